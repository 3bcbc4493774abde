// test_opencl.cpp: the OpenCL backend on one OpenCL device (PoCL in CI): discovery, every variant
// through the test matrix and bit-exact, --kernel-dir, timing fields, and the limits that skip.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include <unistd.h>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "backends/opencl/cl_check.h"
#include "backends/opencl/cl_devices.h"
#include "common/domain/error.h"
#include "common/domain/reference.h"
#include "common/domain/filter_shapes.h"
#include "common/geometry/fast_shape.h"
#include "common/geometry/lowrank_shape.h"
#include "common/geometry/pixel_format.h"
#include "common/geometry/separable_shape.h"
#include "common/domain/validate.h"
#include "tests/support/backend_matrix.h"
#include "tests/support/fixtures.h"
#include "tests/opencl/opencl_suite.h"

using cc::testing::device_limits;
using cc::testing::device_under_test;
using cc::testing::name_device;
using cc::testing::opencl;
using cc::testing::skipped_as_known_fault;
using cc::testing::ramp_image;

namespace {

// Some runtimes' profiling timestamps are made up (Rusticl over llvmpipe reports 1e-06 ms kernels and
// transfers): there a run is untimed, says why, and gives no device figure at all (backends/measure.h).
// True on such a device, after checking exactly that; false where the device's spans are real.
bool untimed_with_reason(const std::string& untimed, std::initializer_list<double> device_figures) {
  if (untimed.empty()) return false;
  MESSAGE("untimed on this device: " << untimed);
  CHECK(untimed.find("profiling timestamps are not real") != std::string::npos);
  for (double ms : device_figures) CHECK(std::isnan(ms));
  return true;
}

cc::Filter uniform_filter(int width, int height, float weight) {
  cc::Filter filter;
  filter.spec = fmt::format("box {}x{}", width, height);
  filter.width = width;
  filter.height = height;
  filter.weights.assign(static_cast<std::size_t>(width) * height, weight);
  return filter;
}

cc::RunOptions quick_options() {
  cc::RunOptions options;
  options.repetitions = 1;
  options.warmup = 0;
  return options;
}

// The work-items per group of the shape a fast or separable run was built with (BLOCK_X x BLOCK_Y, or
// THREADS), read from its options: the limit it was chosen under, the device's or, where the built kernel
// takes fewer (Rusticl: 32), the kernel's. The tests check the shape is the rule's for that limit.
std::size_t work_group_items(const std::string& compile_time) {
  const auto value = [&](const std::string& name) {
    const std::size_t at = compile_time.find("-D" + name + "=");
    return at == std::string::npos ? 1 : std::stoul(compile_time.substr(at + name.size() + 3));
  };
  return compile_time.find("-DTHREADS=") != std::string::npos ? value("THREADS") : value("BLOCK_X") * value("BLOCK_Y");
}

// Whether a variant may skip every case here, by its traits: one that needs a capability the device
// lacks (images, sub-group shuffles, ...: DeviceLimits::missing), or fft in a build without VkFFT (each
// skip's reason is checked where it is made).
bool may_decline_every_case(const std::string& variant) {
  const cc::VariantTraits& traits = *cc::find_variant(variant);
  for (const cc::CapabilityName& each : cc::kCapabilityNames)
    if (traits.needs.has(each.capability) && !device_limits().missing[each.capability].empty()) return true;
#ifndef CONVCOMPARE_WITH_VKFFT
  if (traits.kind == cc::VariantKind::Fft) return true;
#endif
  return false;
}

std::string joined_defines(const std::vector<std::string>& defines) { return fmt::format("{}", fmt::join(defines, " ")); }

cc::BackendRun run_variant(std::string_view variant, const cc::Image& input, const cc::Filter& filter,
                           const cc::RunOptions& options = quick_options(), cc::Border border = cc::Border::Zero) {
  return opencl().run(cc::make_problem(input, filter, border, false), input, variant, device_under_test(), options);
}

cc::Validation check_against_reference(const cc::BackendRun& run, const cc::Image& input, const cc::Filter& filter,
                                       cc::Border border = cc::Border::Zero) {
  const cc::Problem problem = cc::make_problem(input, filter, border, false);
  return cc::validate(run.output, cc::reference_convolve(input, problem), cc::tolerance_for(problem, input));
}

// A copy of kernels_cl/ in a fresh temporary directory, removed again at the end of the test.
class KernelDir {
 public:
  KernelDir() {
    static int made = 0;
    path_ = std::filesystem::temp_directory_path() / fmt::format("convcompare-kernels-{}-{}", ::getpid(), made++);
    std::filesystem::create_directories(path_);
    for (const auto& entry : std::filesystem::directory_iterator(CONVCOMPARE_SOURCE_DIR "/kernels_cl"))
      std::filesystem::copy_file(entry.path(), path_ / entry.path().filename());
  }
  ~KernelDir() { std::filesystem::remove_all(path_); }
  KernelDir(const KernelDir&) = delete;
  KernelDir& operator=(const KernelDir&) = delete;

  std::string path() const { return path_.string(); }

  std::string read(const std::string& name) const {
    std::ifstream in(path_ / name);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path_ / name) << text; }
  // Replaces `from` (which must occur) in file `name`.
  void edit(const std::string& name, const std::string& from, const std::string& to) const {
    std::string text = read(name);
    const auto at = text.find(from);
    REQUIRE_MESSAGE(at != std::string::npos, name << " no longer contains: " << from);
    write(name, text.replace(at, from.size(), to));
  }

 private:
  std::filesystem::path path_;
};

}  // namespace

TEST_CASE("discovery: ids, names and the properties --list shows") {
  name_device();
  CHECK(opencl().unavailable_reason().empty());
  std::set<std::string> ids;
  for (const cc::DeviceInfo& device : opencl().devices()) {
    CAPTURE(device.id);
    CHECK(device.backend == "opencl");
    CHECK(std::regex_match(device.id, std::regex(R"(opencl:\d+:\d+)")));
    CHECK(ids.insert(device.id).second);
    CHECK(std::regex_match(device.name, std::regex(R"(.+ \(.+\))")));  // "<device> (<platform>)"
    std::vector<std::string> keys;
    for (const auto& [key, value] : device.properties) {
      CAPTURE(key);
      CHECK(!value.empty());
      keys.push_back(key);
    }
    for (const char* key : {"platform version", "device version", "OpenCL C version", "driver version",
                            "compute units", "max clock MHz", "global memory", "max allocation", "local memory",
                            "constant buffer", "max work-group size", "image support", "largest image2d"})
      CHECK_MESSAGE(std::find(keys.begin(), keys.end(), key) != keys.end(), "missing property " << key);
  }
  CHECK(opencl().devices().front().id == "opencl:0:0");
}

TEST_CASE("no platform: an empty ICD vendor list gives the install hint, not an error") {
  // The ICD loader reads OCL_ICD_VENDORS once per process, so this runs the tool in a child.
  const auto vendors = std::filesystem::temp_directory_path() / fmt::format("convcompare-no-vendors-{}", ::getpid());
  std::filesystem::create_directories(vendors);
  const std::string command = fmt::format("OCL_ICD_VENDORS='{}' '{}' --list 2>&1", vendors.string(), CONVCOMPARE_EXE);
  std::string output;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char chunk[4096];
    for (std::size_t got; (got = std::fread(chunk, 1, sizeof chunk, pipe)) > 0;) output.append(chunk, got);
    CHECK(::pclose(pipe) == 0);
  }
  std::filesystem::remove_all(vendors);
  if (output.find("  opencl:") != std::string::npos) {
    // Some ICD loaders (seen on the GPU host) find their drivers without the vendor directory.
    MESSAGE("this ICD loader ignores OCL_ICD_VENDORS: the no-platform case cannot be simulated here");
    return;
  }
  CHECK_MESSAGE(output.find("no OpenCL platform found: install an OpenCL driver") != std::string::npos, output);
}

TEST_CASE("error codes become ApiError with the code's name, the call, file and line") {
  CHECK(cc::opencl::error_name(CL_OUT_OF_RESOURCES) == "CL_OUT_OF_RESOURCES");
  CHECK(cc::opencl::error_name(CL_BUILD_PROGRAM_FAILURE) == "CL_BUILD_PROGRAM_FAILURE");
  CHECK(cc::opencl::error_name(-1001) == "CL_PLATFORM_NOT_FOUND_KHR");
  CHECK(cc::opencl::error_name(-12345) == "CL_UNKNOWN_ERROR");
  CHECK_NOTHROW(CC_CL(CL_SUCCESS));
  const int line = __LINE__ + 2;
  try {
    CC_CL(CL_INVALID_WORK_GROUP_SIZE);
    FAIL("CC_CL did not throw");
  } catch (const cc::ApiError& error) {
    CHECK(error.api() == "OpenCL");
    CHECK(error.code() == CL_INVALID_WORK_GROUP_SIZE);
    CHECK(error.code_name() == "CL_INVALID_WORK_GROUP_SIZE");
    CHECK(error.call() == "CL_INVALID_WORK_GROUP_SIZE");
    CHECK(error.file().find("test_opencl.cpp") != std::string::npos);
    CHECK(error.line() == line);
    CHECK(std::string(error.what()).find("CL_INVALID_WORK_GROUP_SIZE") != std::string::npos);
  }
}

TEST_CASE("variants in list order, and bad requests are input errors") {
  CHECK(opencl().variants() == cc::testing::table_variants("opencl"));
  name_device();
  const cc::Image input = ramp_image(8, 8);
  const cc::Filter filter = uniform_filter(3, 3, 1.0f);
  CHECK_THROWS_AS(run_variant("npp", input, filter), cc::InputError);
  const cc::Problem problem = cc::make_problem(input, filter, cc::Border::Zero, false);
  CHECK_THROWS_AS(opencl().run(problem, input, "global", 99, quick_options()), cc::InputError);
}

// The float matrix of every variant the table gives OpenCL, one subcase each (-sc=NAME runs one
// variant's; .ci/run picks separable and fast for Rusticl that way), so a new variant joins with no edit.
TEST_CASE("matrix: every variant") {
  name_device();
  for (const std::string& variant : opencl().variants()) {
    SUBCASE(variant.c_str()) {
      const int ran = cc::testing::check_variant_matrix(opencl(), device_under_test(), variant);
      if (!may_decline_every_case(variant)) CHECK(ran > 0);
#ifndef CONVCOMPARE_WITH_VKFFT
      if (cc::find_variant(variant)->kind == cc::VariantKind::Fft) CHECK(ran == 0);  // VkFFT not found at build time
#endif
    }
  }
}

// 8-bit pixels: every variant the table gives 8-bit kernels, 1 channel, 3 (padded to
// RGBA8) and 4, trimmed as the float matrix is.
TEST_CASE("matrix u8: every variant with 8-bit kernels, 1, 3 and 4 channels") {
  name_device();
  int variants = 0;
  for (const std::string& variant : opencl().variants()) {
    if (!(cc::find_variant(variant)->pixels & cc::kU8)) continue;
    ++variants;
    SUBCASE(variant.c_str()) {  // -sc=NAME runs one variant's
      const int ran = cc::testing::check_variant_matrix(opencl(), device_under_test(), variant,
                                                        cc::testing::eight_bit_matrix());
      if (!may_decline_every_case(variant)) CHECK(ran > 0);
    }
  }
  CHECK(variants >= 4);  // global, constant, tiled, texture at least
}

// fast and separable for 8-bit: each of their shapes, built for one channel and for RGBA8
// (3 channels padded, and 4), on an image with groups wholly inside it (fast's quads and rows read it
// without folding there) and groups at every edge, every border; weights that leave 0..255 and fall
// between integers, so rounding and saturation are both exercised.
TEST_CASE("u8 fast and separable: every scheme and shape, 1, 3 and 4 channels, every border") {
  name_device();
  struct Shape {
    const char* variant;
    int radius_x, radius_y;
    const char* what;  // fast_shape / separable_shape's choice on a device with room for it
  };
  const Shape shapes[] = {{"fast", 3, 2, "quads"},          {"fast", 1, 1, "quads"},
                          {"fast", 6, 5, "rows of 4"},      {"fast", 17, 9, "rows of 2"},
                          {"separable", 3, 2, "one band"},  {"separable", 16, 12, "bands"}};
  long below = 0, above = 0;  // reference values the stores must saturate
  for (const int channels : {1, 3, 4}) {
    const cc::Image input = cc::quantized_8bit(ramp_image(300, 150, channels));
    for (const Shape& shape : shapes) {
      cc::Filter filter = uniform_filter(2 * shape.radius_x + 1, 2 * shape.radius_y + 1, 0.0f);
      const bool separable = std::string_view(shape.variant) == "separable";
      for (int y = 0; y < filter.height; ++y)
        for (int x = 0; x < filter.width; ++x)  // rank 1 for separable; sums beyond 0..255 either way
          filter.weights[static_cast<std::size_t>(y) * filter.width + x] =
              separable ? (1.2f - 0.35f * static_cast<float>((x * 5) % 7)) * (6.0f / filter.height + 0.01f * (y % 3))
                        : (1.2f - 0.35f * static_cast<float>((x * 5 + y * 3) % 7)) * 8.0f / static_cast<float>(filter.taps());
      for (const cc::Border border : {cc::Border::Zero, cc::Border::Clamp, cc::Border::Mirror, cc::Border::Wrap}) {
        CAPTURE(channels);
        CAPTURE(shape.variant);
        CAPTURE(shape.what);
        CAPTURE(shape.radius_x);
        INFO("border " << cc::to_string(border));
        const cc::Problem problem = cc::make_problem(input, filter, border, false, cc::PixelType::U8);
        const cc::BackendRun run = opencl().run(problem, input, shape.variant, device_under_test(), quick_options());
        // An implementation that must not build fast's RGBA8 kernels (backends/launch_plan.h) skips them, and only them.
        if (channels > 1 && !separable && skipped_as_known_fault(run)) {
          MESSAGE("skipped: " << run.reason);
          continue;
        }
        REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
        CHECK(run.compile_time.ends_with(channels == 1 ? " -DCC_PIXEL=CC_PIXEL_U8" : " -DCC_PIXEL=CC_PIXEL_U8X4"));
        // The shape is the one f32 takes (both kernels stage float whatever the pixels), but for RGBA8's
        // quads, 2 rows from r = 2 (common/geometry/fast_shape.h).
        const std::size_t items = work_group_items(run.compile_time);
        const std::string defines =
            separable ? joined_defines(cc::separable_defines(
                            *cc::separable_shape(shape.radius_x, shape.radius_y, device_limits().on_chip_bytes, items),
                            shape.radius_x, shape.radius_y))
                      : joined_defines(cc::fast_defines(
                            cc::fast_shape(shape.radius_x, shape.radius_y, device_limits().on_chip_bytes, items,
                                           cc::pixel_format_values(cc::pixel_format(problem))),
                            shape.radius_x, shape.radius_y));
        CHECK(run.compile_time.find(defines) != std::string::npos);
        const cc::Image reference = cc::reference_convolve(input, problem);
        const cc::Validation validation =
            cc::validate(run.output, reference, cc::testing::tolerance_of(shape.variant, problem, input));
        CHECK_MESSAGE(validation.passed, validation.message());
        CHECK(validation.eight_bit);
        below += std::ranges::count_if(reference.data, [](float v) { return v < 0.0f; });
        above += std::ranges::count_if(reference.data, [](float v) { return v > 255.0f; });
      }
    }
  }
  // The cases exercised what 8-bit stores must do: saturate at both ends (and round: validation's
  // neighbour rule sees the values between integers).
  CHECK(below > 0);
  CHECK(above > 0);
}

TEST_CASE("integer-exact u8 problems match the rounded reference bit for bit in every variant with 8-bit kernels") {
  name_device();
  for (const std::string& variant : opencl().variants()) {
    if (!(cc::find_variant(variant)->pixels & cc::kU8)) continue;
    SUBCASE(variant.c_str()) {  // -sc=NAME runs one variant's
      const int ran = cc::testing::check_integer_exact(opencl(), device_under_test(), variant, cc::PixelType::U8);
      // Half its cases are RGBA8 (check_integer_exact), which an implementation known to abort building
      // fast's RGBA8 kernel skips (skipped_as_known_fault).
      const bool rgba8_skipped = variant == "fast" && !device_limits().no_fast_rgba8.empty();
      if (!may_decline_every_case(variant)) CHECK(ran == (rgba8_skipped ? 4 : 8));
    }
  }
}

TEST_CASE("u8: one program per pixel format, its -D in the compile options, 8-bit frames on the device") {
  name_device();
  const cc::Filter filter = uniform_filter(3, 3, 1.0f);
  for (const auto& [channels, define] : {std::pair{1, "-DCC_PIXEL=CC_PIXEL_U8"},
                                         std::pair{3, "-DCC_PIXEL=CC_PIXEL_U8X4"},
                                         std::pair{4, "-DCC_PIXEL=CC_PIXEL_U8X4"}}) {
    CAPTURE(channels);
    const cc::Image input = cc::quantized_8bit(ramp_image(37, 19, channels));
    const cc::Problem problem = cc::make_problem(input, filter, cc::Border::Zero, false, cc::PixelType::U8);
    const cc::BackendRun run = opencl().run(problem, input, "global", device_under_test(), quick_options());
    REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
    CHECK(run.compile_time == std::string("radius: run-time; options: -cl-std=CL1.2 ") + define);
    // An input and an output of one byte per pixel, or four (RGBA8: 3 channels padded), and the 3x3 filter.
    CHECK(run.device_bytes == 2u * 37 * 19 * (channels == 1 ? 1 : 4) + 9 * 4);
    const cc::Validation validation = cc::validate(run.output, cc::reference_convolve(input, problem),
                                                   cc::testing::tolerance_of("global", problem, input));
    CHECK_MESSAGE(validation.passed, validation.message());
    CHECK(validation.eight_bit);
  }
}

TEST_CASE("u8: stores round to nearest, ties to even, and saturate at both ends, as the CPU's to_8bit") {
  name_device();
  // Pixels 0..255 times 0.5 are exact in float, so every odd pixel is a tie; times 2 and -1 saturate.
  // Not texture: it reads 8-bit images as normalized floats, c / 255, and scales back by 255, which
  // need not give c exactly, so a tie may land a hair either side (validation allows that near x.5).
  for (const int channels : {1, 4}) {
    cc::Image ramp(256, 1, channels, true);
    for (std::size_t i = 0; i < ramp.data.size(); ++i) ramp.data[i] = static_cast<float>((i * 7) % 256);
    for (const float weight : {0.5f, 2.0f, -1.0f}) {
      const cc::Filter scale{"scale", 1, 1, {weight}};
      const cc::Problem problem = cc::make_problem(ramp, scale, cc::Border::Zero, false, cc::PixelType::U8);
      for (const char* variant : {"global", "constant", "tiled"}) {
        CAPTURE(channels);
        CAPTURE(weight);
        CAPTURE(variant);
        const cc::BackendRun run = opencl().run(problem, ramp, variant, device_under_test(), quick_options());
        REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
        int wrong = 0;
        for (std::size_t i = 0; i < ramp.data.size(); ++i)
          wrong += run.output.data[i] != cc::to_8bit(weight * ramp.data[i]);
        CHECK(wrong == 0);
      }
    }
  }
}

TEST_CASE("integer-exact problems match the reference bit for bit in every variant") {
  name_device();
  for (const std::string& variant : opencl().variants()) {
    SUBCASE(variant.c_str()) {  // -sc=NAME runs one variant's
      const int ran = cc::testing::check_integer_exact(opencl(), device_under_test(), variant);
      if (!may_decline_every_case(variant)) CHECK(ran == 8);
    }
  }
}

TEST_CASE("timings, memory mode and compile options are reported") {
  name_device();
  const cc::Image input = ramp_image(64, 48, 2);
  const cc::Filter filter = uniform_filter(5, 3, 0.5f);
  for (bool pinned : {true, false}) {
    CAPTURE(pinned);
    cc::RunOptions options;
    options.repetitions = 3;
    options.warmup = 1;
    options.memory = pinned ? cc::HostMemory::Pinned : cc::HostMemory::Pageable;
    const cc::BackendRun first = run_variant("tiled", input, filter, options);
    REQUIRE(first.status == cc::Status::Ok);
    CHECK(check_against_reference(first, input, filter).passed);
    CHECK(first.memory == (pinned ? "pinned" : "pageable"));
    CHECK(first.compile_time == "radius: run-time; options: -cl-std=CL1.2");
    CHECK(first.times.build_ms > 0);
    CHECK(first.times.setup_ms > 0);
    CHECK(first.times.host_to_host_ms > 0);
    const cc::PhaseTimes& times = first.times;
    if (untimed_with_reason(times.untimed, {times.h2d_ms, times.d2h_ms, times.kernel_batch_ms})) {
      CHECK(times.kernel_ms.samples == 0);
    } else {
      CHECK(times.kernel_ms.samples == 3);
      CHECK(times.kernel_ms.min <= times.kernel_ms.median);
      for (double device_ms : {times.h2d_ms, times.d2h_ms, times.kernel_batch_ms, times.kernel_ms.median})
        CHECK((std::isfinite(device_ms) && device_ms >= 0));
    }
    const cc::BackendRun again = run_variant("tiled", input, filter, options);
    CHECK(again.times.build_ms == first.times.build_ms);  // the cached program's build time
  }
}

TEST_CASE("reuse time and device memory are reported, device memory to the byte") {
  name_device();
  const cc::Image input = ramp_image(37, 19, 2);
  const cc::Filter filter = uniform_filter(3, 3, 1.0f);
  const cc::BackendRun global = run_variant("global", input, filter);
  REQUIRE_MESSAGE(global.status == cc::Status::Ok, global.reason);
  CHECK(global.times.reuse_ms > 0);
  // An input and an output of two 37x19 float planes, and the 3x3 filter.
  CHECK(global.device_bytes == 2 * 2 * 37 * 19 * 4 + 9 * 4);
  // Separable passes its rows on chip (no temporary image) and holds a 3-tap row and a 3-tap column instead.
  const cc::BackendRun separable = run_variant("separable", input, filter);
  REQUIRE_MESSAGE(separable.status == cc::Status::Ok, separable.reason);
  CHECK(separable.device_bytes == 2 * 2 * 37 * 19 * 4 + (3 + 3) * 4);
}

TEST_CASE("stream: five frames through three queues, pinned and pageable, and the last one validates") {
  name_device();
  const cc::Image input = ramp_image(37, 19, 2);
  const cc::Filter filter = uniform_filter(5, 3, 0.5f);
  const cc::Problem problem = cc::make_problem(input, filter, cc::Border::Mirror, false);
  const cc::Image reference = cc::reference_convolve(input, problem);
  for (const bool pinned : {true, false}) {
    for (const char* variant : {"global", "tiled"}) {
      CAPTURE(pinned);
      CAPTURE(variant);
      cc::RunOptions options = quick_options();
      options.memory = pinned ? cc::HostMemory::Pinned : cc::HostMemory::Pageable;
      const cc::StreamRun run = opencl().stream(problem, input, variant, device_under_test(), 5, options);
      REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
      CHECK(run.queues == 3);
      CHECK(run.total_ms > 0);
      if (!untimed_with_reason(run.untimed, {run.serial_ms_per_frame, run.h2d_ms_per_frame, run.d2h_ms_per_frame}))
        for (double device_ms : {run.serial_ms_per_frame, run.h2d_ms_per_frame, run.d2h_ms_per_frame})
          CHECK((std::isfinite(device_ms) && device_ms >= 0));
      const cc::Validation validation = cc::validate(run.last_output, reference, cc::tolerance_for(problem, input));
      CHECK_MESSAGE(validation.passed, validation.message());
    }
  }
  CHECK_THROWS_AS(opencl().stream(problem, input, "global", device_under_test(), 0, quick_options()), cc::InputError);
}

TEST_CASE("fast is built with its radius and tile shape as -D options, and skips radii over its limit") {
  name_device();
  const cc::Image input = ramp_image(67, 45);
  const cc::BackendRun run = run_variant("fast", input, uniform_filter(7, 5, 0.25f));
  REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
  CHECK(check_against_reference(run, input, uniform_filter(7, 5, 0.25f)).passed);
  // Below radius 5, quads: 4 x 4 outputs per work-item straight from global memory, 32 x 8 where the
  // device and kernel take 256 work-items.
  const std::size_t items = work_group_items(run.compile_time);
  CHECK(items <= device_limits().max_group);
  CHECK(run.compile_time == "radius: compile-time; options: -cl-std=CL1.2 " +
                                joined_defines(cc::fast_defines(cc::fast_shape(3, 2, device_limits().on_chip_bytes, items), 3, 2)));
  if (items >= 256)
    CHECK(run.compile_time ==
          "radius: compile-time; options: -cl-std=CL1.2 -DRADIUS_X=3 -DRADIUS_Y=2 -DBLOCK_X=32 -DBLOCK_Y=8 -DOUT_X=4 -DOUT_Y=4");
  // From radius 5 on, the rows scheme, a rolled loop over filter rows: up to 16, 8 x 4 outputs per
  // work-item in 8 x 16 groups, the filter row in registers.
  const cc::BackendRun rows = run_variant("fast", input, uniform_filter(13, 11, 0.01f));
  REQUIRE_MESSAGE(rows.status == cc::Status::Ok, rows.reason);
  CHECK(check_against_reference(rows, input, uniform_filter(13, 11, 0.01f)).passed);
  const std::size_t rows_items = work_group_items(rows.compile_time);
  CHECK(rows.compile_time.ends_with(
      joined_defines(cc::fast_defines(cc::fast_shape(6, 5, device_limits().on_chip_bytes, rows_items), 6, 5))));
  if (rows_items >= 128)
    CHECK(rows.compile_time.ends_with("-DRADIUS_X=6 -DRADIUS_Y=5 -DBLOCK_X=8 -DBLOCK_Y=16 -DOUT_X=8 -DOUT_Y=4"));
  // Beyond 16, 8 x 2 outputs, both rows streaming past each coefficient: every border, non-square.
  cc::Filter long_rows = uniform_filter(35, 19, 0.0f);  // distinct weights: a coefficient out of place shows
  for (std::size_t i = 0; i < long_rows.weights.size(); ++i) long_rows.weights[i] = 1e-3f * static_cast<float>((i * 7) % 13) - 4e-3f;
  for (const cc::Border border : {cc::Border::Zero, cc::Border::Clamp, cc::Border::Mirror, cc::Border::Wrap}) {
    const cc::BackendRun two_rows = run_variant("fast", input, long_rows, quick_options(), border);
    REQUIRE_MESSAGE(two_rows.status == cc::Status::Ok, two_rows.reason);
    CHECK(check_against_reference(two_rows, input, long_rows, border).passed);
    CHECK(two_rows.compile_time.find("-DRADIUS_X=17 -DRADIUS_Y=9 ") != std::string::npos);
    CHECK(two_rows.compile_time.ends_with("-DOUT_X=8 -DOUT_Y=2"));
  }
  const cc::BackendRun too_large = run_variant("fast", input, uniform_filter(67, 67, 1e-4f));
  CHECK(too_large.status == cc::Status::Skipped);
  CHECK(too_large.reason == "radius 33x33 is over the fast variant's compile-time limit of 32");
}

TEST_CASE("separable is one kernel built with its radius and tile shape as -D options, in bands for large radii") {
  name_device();
  // 7x5: one band of a 64x32 tile.
  const cc::Image input = ramp_image(67, 45);
  const cc::BackendRun run = run_variant("separable", input, uniform_filter(7, 5, 0.25f));
  REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
  CHECK(check_against_reference(run, input, uniform_filter(7, 5, 0.25f)).passed);
  const std::size_t items = work_group_items(run.compile_time);
  CHECK(items <= device_limits().max_group);
  CHECK(run.compile_time ==
        "radius: compile-time; options: -cl-std=CL1.2 " +
            joined_defines(cc::separable_defines(*cc::separable_shape(3, 2, device_limits().on_chip_bytes, items), 3, 2)));
  if (items >= 256)
    CHECK(run.compile_time == "radius: compile-time; options: -cl-std=CL1.2 -DRADIUS_X=3 -DRADIUS_Y=2 -DTHREADS=256 "
                              "-DTILE_W=64 -DTILE_H=32 -DROW_OUT=8 -DCOLUMN_OUT=8 -DBAND=36 -DBANDS=1");
  // 33x25 (r = 16x12): a 32x128 tile staged in bands, on an image with tiles wholly inside it (no
  // border fold) and tiles at every edge.
  const cc::Image tall = ramp_image(100, 300);
  const cc::Filter wide = uniform_filter(33, 25, 1e-3f);
  const cc::BackendRun banded = run_variant("separable", tall, wide, quick_options(), cc::Border::Wrap);
  REQUIRE_MESSAGE(banded.status == cc::Status::Ok, banded.reason);
  CHECK(check_against_reference(banded, tall, wide, cc::Border::Wrap).passed);
  const std::optional<cc::SeparableShape> shape =
      cc::separable_shape(16, 12, device_limits().on_chip_bytes, work_group_items(banded.compile_time));
  REQUIRE(shape);
  CHECK(shape->bands > 1);
  CHECK(banded.compile_time.ends_with(fmt::format("{}", fmt::join(cc::separable_defines(*shape, 16, 12), " "))));
  const cc::BackendRun too_large = run_variant("separable", input, uniform_filter(259, 3, 1e-3f));
  CHECK(too_large.status == cc::Status::Skipped);
  CHECK(too_large.reason ==
        "radius 129x1 is over the separable variant's compile-time limit of 128 (the fft variant takes it)");
}

TEST_CASE("the time budget sets how many launches are timed, and a single one still gives a valid result") {
  name_device();
  const cc::Image input = ramp_image(37, 23);
  const cc::Filter filter = uniform_filter(3, 3, 0.125f);
  cc::RunOptions options;
  options.repetitions = 10;
  options.warmup = 2;
  options.time_budget_s = 1e-6;  // less than any launch: only the one that must be timed
  options.min_samples = 1;       // (the budget waits for --min-samples: 5 by default)
  const cc::BackendRun hurried = run_variant("global", input, filter, options);
  REQUIRE(hurried.status == cc::Status::Ok);
  CHECK(check_against_reference(hurried, input, filter).passed);
  // The budget is spent in device time: where the device's spans are made up there is none to count.
  if (untimed_with_reason(hurried.times.untimed, {hurried.times.kernel_batch_ms})) {
    CHECK(hurried.times.kernel_ms.samples == 0);
    return;
  }
  CHECK(hurried.times.kernel_ms.samples == 1);
  // The budget bounds the whole run (RunBudget): the batch, host to host and reuse are not started.
  CHECK(std::isnan(hurried.times.kernel_batch_ms));
  CHECK(std::isnan(hurried.times.host_to_host_ms));
  CHECK(hurried.times.budget_skipped == "kernel_batch_ms, host_to_host_ms, reuse_ms");

  options.time_budget_s = 1e6;
  const cc::BackendRun patient = run_variant("global", input, filter, options);
  REQUIRE(patient.status == cc::Status::Ok);
  CHECK(patient.times.kernel_ms.samples == 10);
  CHECK(std::isfinite(patient.times.kernel_batch_ms));
  CHECK(patient.times.budget_skipped.empty());
  CHECK(check_against_reference(patient, input, filter).passed);
}

// The smallest grid that takes strips (common/geometry/lowrank_shape.h: 4 tiles each at 4096x2048), one
// column and one row past the tiles so that the last strip is cut short and the last tiles fold the border.
TEST_CASE("lowrank runs strips of tiles on a large image, and a kernel that keeps its apron wrong fails") {
  name_device();
  const cc::Image input = ramp_image(4099, 2050);
  const cc::Filter filter = cc::filter_shapes::laplacian_of_gaussian(4.0, 16);  // rank 2, a radius with strips
  const cc::Problem problem = cc::make_problem(input, filter, cc::Border::Wrap, false);
  const cc::Image reference = cc::reference_convolve(input, problem);
  const cc::Tolerance tolerance = cc::tolerance_for_variant(*cc::find_variant("lowrank"), problem, input);
  const cc::BackendRun run = run_variant("lowrank", input, filter, quick_options(), cc::Border::Wrap);
  REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
  // The plan's shape, for the group size it built with: the device's, or a built kernel's smaller limit
  // (Rusticl's 32 work-items: plan_launch plans again under it, docs/portability.md).
  std::smatch threads;
  REQUIRE(std::regex_search(run.compile_time, threads, std::regex("-DTHREADS=(\\d+)")));
  const cc::DeviceLimits& limits = device_limits();
  const std::size_t group = std::min({limits.max_group, limits.max_group_x, limits.max_group_y,
                                      static_cast<std::size_t>(std::stoul(threads[1].str()))});
  const std::optional<cc::SeparableShape> shape =
      cc::lowrank_shape(16, 16, input.width, input.height, limits.on_chip_bytes, group, 2);
  REQUIRE(shape);
  REQUIRE(shape->chunks > 1);  // 4 where a group takes 128 work-items or more
  CHECK(run.compile_time.ends_with(joined_defines(cc::lowrank_defines(*shape, 16, 16, 2))));
  CHECK(cc::validate(run.output, reference, tolerance).passed);

  KernelDir dir;  // the apron moved at half its value: only the later tiles of each strip go wrong
  dir.edit("lowrank.cl", "plane[row * DONE_PITCH + x] = plane[(row + TILE_H) * DONE_PITCH + x];",
           "plane[row * DONE_PITCH + x] = 0.5f * plane[(row + TILE_H) * DONE_PITCH + x];");
  cc::RunOptions options = quick_options();
  options.kernel_dir = dir.path();
  const cc::BackendRun broken = run_variant("lowrank", input, filter, options, cc::Border::Wrap);
  REQUIRE_MESSAGE(broken.status == cc::Status::Ok, broken.reason);
  const cc::Validation validation = cc::validate(broken.output, reference, tolerance);
  CHECK_FALSE(validation.passed);
  CHECK(validation.bad_y >= 32);  // the first tile of the first strip keeps no apron
}

TEST_CASE("--kernel-dir: sources are read from the directory") {
  name_device();
  const cc::Image input = ramp_image(19, 11);
  const cc::Filter filter = uniform_filter(3, 5, 0.25f);
  KernelDir dir;
  cc::RunOptions options = quick_options();
  options.kernel_dir = dir.path();

  SUBCASE("an unmodified copy runs, with conv_args.h from the embedded copy") {
    const cc::BackendRun run = run_variant("separable", input, filter, options);
    REQUIRE(run.status == cc::Status::Ok);
    CHECK(check_against_reference(run, input, filter).passed);
    CHECK(run.compile_time.find(dir.path()) != std::string::npos);
  }
  SUBCASE("a modified kernel is the one that runs") {
    dir.edit("global.cl", "cc_store(output, y * args.pitch + x, sum);",
             "cc_store(output, y * args.pitch + x, sum + 1000.0f);");
    const cc::BackendRun run = run_variant("global", input, filter, options);
    REQUIRE(run.status == cc::Status::Ok);
    const cc::Image reference =
        cc::reference_convolve(input, cc::make_problem(input, filter, cc::Border::Zero, false));
    for (std::size_t i = 0; i < reference.data.size(); ++i)
      REQUIRE(run.output.data[i] == doctest::Approx(reference.data[i] + 1000.0).epsilon(1e-5));
  }
  SUBCASE("a pixel the kernel never writes is NaN, so validation fails") {
    dir.edit("global.cl", "if (x >= args.width || y >= args.height) return;",
             "if (x >= args.width || y >= args.height || x == 0) return;");
    const cc::BackendRun run = run_variant("global", input, filter, options);
    REQUIRE(run.status == cc::Status::Ok);
    for (int y = 0; y < input.height; ++y) CHECK(std::isnan(run.output.at(0, y, 0)));
    const cc::Validation validation = check_against_reference(run, input, filter);
    CHECK_FALSE(validation.passed);
    CHECK(validation.bad_x == 0);
  }
  SUBCASE("an 8-bit pixel the kernel never writes comes back NaN (poisoned twice), so validation fails") {
    dir.edit("global.cl", "if (x >= args.width || y >= args.height) return;",
             "if (x >= args.width || y >= args.height || x == 0) return;");
    for (const int channels : {1, 4}) {
      CAPTURE(channels);
      const cc::Image eight = cc::quantized_8bit(ramp_image(19, 11, channels));
      const cc::Problem problem = cc::make_problem(eight, filter, cc::Border::Zero, false, cc::PixelType::U8);
      const cc::BackendRun run = opencl().run(problem, eight, "global", device_under_test(), options);
      REQUIRE(run.status == cc::Status::Ok);
      for (int c = 0; c < channels; ++c)
        for (int y = 0; y < eight.height; ++y) {
          CHECK(std::isnan(run.output.at(c, y, 0)));
          CHECK_FALSE(std::isnan(run.output.at(c, y, 1)));
        }
      const cc::Validation validation = cc::validate(run.output, cc::reference_convolve(eight, problem),
                                                     cc::testing::tolerance_of("global", problem, eight));
      CHECK_FALSE(validation.passed);
      CHECK(validation.bad_x == 0);
    }
  }
  // A compiler error in a --kernel-dir source is the user's input: one line naming the file and the
  // compiler's first error (backends/opencl/opencl_backend.cpp, refuse_build_failure; exit 2).
  SUBCASE("a syntax error is an input error naming the file and the compiler's first error") {
    dir.write("tiled.cl", dir.read("tiled.cl") + "\nthis is not OpenCL C;\n");
    try {
      run_variant("tiled", input, filter, options);
      FAIL("the broken kernel built");
    } catch (const cc::InputError& error) {
      const std::string message = error.what();
      CHECK(message.find("--kernel-dir: OpenCL cannot compile tiled.cl") != std::string::npos);
      CHECK(message.find("'this'") != std::string::npos);  // the offending word, in every compiler's message
      CHECK(message.find('\n') == std::string::npos);
    }
  }
  SUBCASE("conv_args.h and pixel.h in the directory replace the embedded ones") {
    for (const char* header : {"conv_args.h", "pixel.h"}) {
      CAPTURE(header);
      dir.write(header, fmt::format("#error {} read from the kernel directory\n", header));
      try {
        run_variant("constant", input, filter, options);
        FAIL("the broken header built");
      } catch (const cc::InputError& error) {
        CHECK(std::string(error.what()).find(fmt::format("{} read from the kernel directory", header)) != std::string::npos);
      }
      std::filesystem::remove(std::filesystem::path(dir.path()) / header);
    }
  }
  SUBCASE("a missing kernel file is an input error") {
    std::filesystem::remove(std::filesystem::path(dir.path()) / "texture.cl");
    CHECK_THROWS_AS(run_variant("texture", input, filter, options), cc::InputError);
  }
}

TEST_CASE("limits: a variant that cannot run here is skipped with the reason") {
  name_device();
  const cc::Image input = ramp_image(9, 7);

  SUBCASE("a filter over CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE") {
    const cc::DeviceLimits& device = device_limits();
    int side = static_cast<int>(std::ceil(std::sqrt(device.constant_bytes / 4.0 + 1)));
    side += side % 2 == 0;
    if (side > cc::kMaxFilterSide) {
      MESSAGE("constant buffer of " << device.constant_bytes << " bytes: no legal filter exceeds it");
      return;
    }
    const cc::Filter filter = uniform_filter(side, side, 1e-4f);
    REQUIRE(filter.weights.size() * 4 > device.constant_bytes);
    for (const char* variant : {"constant", "tiled", "texture"}) {
      CAPTURE(variant);
      const cc::BackendRun run = run_variant(variant, input, filter);
      CHECK(run.status == cc::Status::Skipped);
      CHECK(run.reason.find("CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE") != std::string::npos);
    }
    // global keeps the filter in global memory: it runs, with a filter far larger than the image.
    const cc::BackendRun run = run_variant("global", input, filter, quick_options(), cc::Border::Mirror);
    REQUIRE(run.status == cc::Status::Ok);
    CHECK(check_against_reference(run, input, filter, cc::Border::Mirror).passed);
  }
  SUBCASE("a tile whose apron does not fit local memory") {
    const cc::DeviceLimits& device = device_limits();
    const int radius = static_cast<int>((std::sqrt(device.on_chip_bytes / 4.0) - 4) / 2) + 1;
    const cc::Filter filter = uniform_filter(2 * radius + 1, 2 * radius + 1, 1e-4f);
    if (filter.width > cc::kMaxFilterSide || filter.weights.size() * 4 > device.constant_bytes) {
      MESSAGE("local memory of " << device.on_chip_bytes << " bytes: the filter that overflows it is not legal here");
      return;
    }
    const cc::BackendRun run = run_variant("tiled", input, filter);
    CHECK(run.status == cc::Status::Skipped);
    CHECK(run.reason.find("CL_DEVICE_LOCAL_MEM_SIZE") != std::string::npos);
  }
  SUBCASE("an image wider than CL_DEVICE_IMAGE2D_MAX_WIDTH") {
    const cc::DeviceLimits& device = device_limits();
    if (!device.missing[cc::Capability::Images].empty()) {
      const cc::BackendRun run = run_variant("texture", input, uniform_filter(3, 3, 1.0f));
      CHECK(run.reason.find("CL_DEVICE_IMAGE_SUPPORT") != std::string::npos);
      return;
    }
    if (device.image_max_width >= static_cast<std::size_t>(cc::kMaxImageDimension)) {
      MESSAGE("largest image2d is " << device.image_max_width << " wide: no legal image exceeds it");
      return;
    }
    const cc::Image wide = ramp_image(static_cast<int>(device.image_max_width) + 1, 1);
    const cc::BackendRun run = run_variant("texture", wide, uniform_filter(3, 3, 1.0f));
    CHECK(run.status == cc::Status::Skipped);
    CHECK(run.reason.find("CL_DEVICE_IMAGE2D_MAX_WIDTH") != std::string::npos);
  }
  SUBCASE("separable with a filter that is not rank 1") {
    cc::Filter filter = uniform_filter(3, 3, 1.0f);
    filter.weights[0] = -1.0f;
    const cc::BackendRun run = run_variant("separable", input, filter);
    CHECK(run.status == cc::Status::Skipped);
    CHECK(run.reason == "filter is not separable");
  }
}
