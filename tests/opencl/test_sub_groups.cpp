// test_sub_groups.cpp: kernels_cl/shuffle.cl under emulated sub-groups of every layout the OpenCL specification allows, and tensor.cl's Intel path under emulated sub-group matrix products, on any OpenCL device, each result checked against the reference.
// The emulation (sub_group_emulation.cl) makes a shuffle a barrier over the whole work-group, as PoCL 5.0
// does, so a kernel whose sub-groups part ways fails here as it failed there (docs/portability.md,
// "Sub-groups"). CONVCOMPARE_TEST_SHUFFLE_CL names another shuffle.cl to run instead of the tree's, to
// show that an older kernel fails this test (`git show REV:kernels_cl/shuffle.cl > old.cl`);
// CONVCOMPARE_TEST_TENSOR_CL another tensor.cl, and CONVCOMPARE_TEST_MATRIX_EMULATION_CL another
// matrix_emulation.cl (a wrong lane layout, say), to show that a wrong one fails.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include "common/domain/error.h"
#include "common/domain/reference.h"
#include "common/domain/validate.h"
#include "tests/opencl/opencl_suite.h"
#include "tests/support/backend_matrix.h"
#include "tests/support/scoped_env.h"

namespace {

std::string sub_groups_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  REQUIRE_MESSAGE(in, "cannot read " << path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The text of `tree_file` (under the source tree), or of the file the environment variable `other` names.
std::string file_or_override(const char* tree_file, const char* other) {
  const char* named = std::getenv(other);
  return sub_groups_text(named && *named ? std::filesystem::path(named)
                                         : std::filesystem::path(CONVCOMPARE_SOURCE_DIR) / tree_file);
}

// A kernel file as an emulation runs it: the emulation's functions first, and its lanes' words declared
// at the top of the kernel's body, where OpenCL C allows __local variables.
struct Emulated {
  const char* file;            // kernels_cl/NAME.cl, the --kernel-dir file it replaces
  const char* kernel_other;    // the variable naming another kernel file
  const char* emulation;       // tests/opencl/NAME.cl
  const char* emulation_other; // the variable naming another emulation file
  const char* kernel;          // its kernel function
  const char* lanes;           // the declaration of the lanes' words
};
constexpr Emulated kShuffle{"shuffle.cl", "CONVCOMPARE_TEST_SHUFFLE_CL", "sub_group_emulation.cl", "",
                            "convolve_shuffle", "__local uint cc_emulated_lanes[CC_EMULATED_ITEMS];"};
constexpr Emulated kMatrix{"tensor.cl", "CONVCOMPARE_TEST_TENSOR_CL", "matrix_emulation.cl",
                           "CONVCOMPARE_TEST_MATRIX_EMULATION_CL", "convolve_tensor",
                           "__local int cc_emulated_a[CC_EMULATED_ITEMS * 8];"};

std::string emulated_source(const Emulated& emulated) {
  std::string kernel = file_or_override((std::string("kernels_cl/") + emulated.file).c_str(), emulated.kernel_other);
  const std::string opening = "const ConvArgs args)\n{\n";
  const auto body = kernel.find(opening, kernel.find(fmt::format("void {}(", emulated.kernel)));
  REQUIRE_MESSAGE(body != std::string::npos, emulated.file << "'s kernel no longer opens with: " << opening);
  kernel.insert(body + opening.size(), fmt::format("    {}\n", emulated.lanes));
  return file_or_override((std::string("tests/opencl/") + emulated.emulation).c_str(), emulated.emulation_other) +
         "\n" + kernel;
}

// A --kernel-dir holding the emulated kernel file alone (the headers come from the embedded copies).
struct EmulatedKernelDir {
  std::filesystem::path path = std::filesystem::temp_directory_path() /
                               fmt::format("convcompare-sub-groups-{}", ::getpid());
  explicit EmulatedKernelDir(const Emulated& emulated) {
    std::filesystem::create_directories(path);
    std::ofstream(path / emulated.file) << emulated_source(emulated);
  }
  ~EmulatedKernelDir() { std::filesystem::remove_all(path); }
  EmulatedKernelDir(const EmulatedKernelDir&) = delete;
  EmulatedKernelDir& operator=(const EmulatedKernelDir&) = delete;
};

// The layouts (CONVCOMPARE_TEST_SUB_GROUPS): the backend's work-groups are 16 x 16 here (256 work-items),
// so 48 leaves a short trailing sub-group of 16 and 7 one of 4. The 8-bit formats change only how a
// pixel becomes a word, so three layouts take them (each format a program of its own to build), the
// others float pixels alone.
struct Layout {
  const char* setting;
  const char* what;
  bool eight_bit = false;
};
constexpr Layout kLayouts[] = {
    {"1", "scalar sub-groups"},
    {"8", "8 lanes"},
    {"16", "16 lanes"},
    {"32", "32 lanes", true},
    {"64", "64 lanes"},
    {"48", "a short trailing sub-group of 16", true},
    {"7", "a short trailing sub-group of 4, lanes that divide nothing"},
    {"along-x", "a row of the work-group (PoCL's CPU driver)", true},
};

struct Shape {
  int width, height;
};
// 1x1, one row, one column, a width below every sub-group size but 1, and sizes whose segments fill no
// whole round of the grid (the sizes that broke PoCL 5.0), the largest with two radii.
constexpr Shape kShapes[] = {{1, 1}, {1, 37}, {37, 1}, {5, 9}, {67, 45}, {100, 100}, {257, 255}};
constexpr cc::Border kBorders[] = {cc::Border::Zero, cc::Border::Clamp, cc::Border::Mirror, cc::Border::Wrap};
// Radii within a chunk of 8 lanes, across chunks of up to 32, and past the small images.
constexpr int kRadii[] = {1, 2, 20};

struct PixelCase {
  cc::PixelType pixel;
  int channels;
};
constexpr PixelCase kPixels[] = {{cc::PixelType::F32, 1}, {cc::PixelType::U8, 1}, {cc::PixelType::U8, 3}};

// Random pixels: floats in -1..1, or 8-bit integers 0..255 as an 8-bit frame holds them.
cc::Image sample_image(const Shape& shape, const PixelCase& pixels, std::mt19937& rng) {
  const bool eight_bit = pixels.pixel == cc::PixelType::U8;
  cc::Image image(shape.width, shape.height, pixels.channels, eight_bit);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (float& pixel : image.data) pixel = eight_bit ? static_cast<float>(byte(rng)) : value(rng);
  return image;
}

// A filter with no symmetry, its weights summing to about 1 so 8-bit results round between 0 and 255.
cc::Filter sample_filter(int radius_x, int radius_y, std::mt19937& rng) {
  const int width = 2 * radius_x + 1, height = 2 * radius_y + 1;
  cc::Filter filter{fmt::format("random {}x{}", width, height), width, height, {}};
  std::uniform_real_distribution<float> weight(0.0f, 2.0f);
  for (int i = 0; i < width * height; ++i) filter.weights.push_back(weight(rng) / static_cast<float>(width * height));
  return filter;
}
cc::Filter sample_filter(int radius, std::mt19937& rng) { return sample_filter(radius, radius, rng); }

// The index of the device `backend` lists under `id`: a backend made under another setting lists the same.
int device_of(cc::Backend& backend, const std::string& id) {
  for (std::size_t i = 0; i < backend.devices().size(); ++i)
    if (backend.devices()[i].id == id) return static_cast<int>(i);
  FAIL("the backend lists no device " << id);
  return -1;
}

}  // namespace

TEST_CASE("sub-groups: shuffle under every emulated layout, every border, flip, f32, u8 and RGBA8, odd sizes") {
  cc::testing::name_device();
  const EmulatedKernelDir kernels(kShuffle);
  const std::string device_id = cc::testing::opencl().devices()[cc::testing::device_under_test()].id;
  std::mt19937 rng(20261129);
  for (const Layout& layout : kLayouts) {
    const cc::test::ScopedEnv emulated("CONVCOMPARE_TEST_SUB_GROUPS", layout.setting);
    const std::unique_ptr<cc::Backend> backend = cc::testing::find_backend("opencl");  // reads the layout
    REQUIRE(backend);
    const int device = device_of(*backend, device_id);
    int turn = 0, validated = 0;
    for (const Shape& shape : kShapes)
      for (const cc::Border border : kBorders) {
        // Each (size, border) takes one pixel format, radius and flip in turn, so every layout runs each
        // radius and flip, and those with 8-bit pixels each format.
        const PixelCase& pixels = layout.eight_bit ? kPixels[turn % std::size(kPixels)] : kPixels[0];
        // The widest filter on the images up to 100x100 only: on the largest it adds a minute of barriers.
        const int radius = std::min(kRadii[turn % std::size(kRadii)], shape.width * shape.height > 10000 ? 2 : 20);
        const bool flip = turn++ % 2 == 1;
        INFO(fmt::format("sub-groups {} ({}): {}x{}x{} {} radius {} border {}{}", layout.setting, layout.what,
                         shape.width, shape.height, pixels.channels, cc::to_string(pixels.pixel), radius,
                         cc::to_string(border), flip ? " flip" : ""));
        const cc::Image input = sample_image(shape, pixels, rng);
        const cc::Filter filter = sample_filter(radius, rng);
        const cc::Problem problem = cc::make_problem(input, filter, border, flip, pixels.pixel);
        cc::RunOptions options;
        options.repetitions = 1;
        options.warmup = 0;
        options.kernel_dir = kernels.path.string();
        const cc::BackendRun run = backend->run(problem, input, "shuffle", device, options);
        REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
        CHECK(run.compile_time.find("CC_SHUFFLE_EMULATED") != std::string::npos);
        const cc::Validation validation = cc::validate(run.output, cc::reference_convolve(input, problem),
                                                       cc::testing::tolerance_of("shuffle", problem, input));
        CHECK_MESSAGE(validation.passed, validation.message());
        validated += validation.passed;
      }
    CHECK(validated == static_cast<int>(std::size(kShapes) * std::size(kBorders)));
  }
}

TEST_CASE("sub-groups: CONVCOMPARE_TEST_SUB_GROUPS takes along-x or 1 to 64, nothing else") {
  for (const char* bad : {"0", "65", "16x", "along-y", "-8"}) {
    CAPTURE(bad);
    const cc::test::ScopedEnv emulated("CONVCOMPARE_TEST_SUB_GROUPS", bad);
    const std::unique_ptr<cc::Backend> backend = cc::testing::find_backend("opencl");
    REQUIRE(backend);
    try {
      (void)backend->devices();  // discovery, where the setting is read
      FAIL("CONVCOMPARE_TEST_SUB_GROUPS=" << bad << " was taken");
    } catch (const cc::InputError& error) {
      CHECK(std::string(error.what()).find("expected along-x or a sub-group size of 1 to 64") != std::string::npos);
    }
  }
}

// tensor.cl's Intel path (CC_TENSOR_INTEL) under matrix_emulation.cl, at both sub-group sizes the
// extension's built-ins take, every border of each case (the border is an argument: one program for all
// four; PoCL takes about 10 s to build each, so three programs a size). Filters one Toeplitz block wide
// and two (8 lanes: r = 5; 16 lanes: any r), so a wrong block offset, lane layout or dropped split product
// shows; several filter rows; a single column; sizes that leave a group's bands and slices partly outside
// the image.
TEST_CASE("tensor: Intel's sub-group matrix path under emulated products of 8 and 16 lanes, every border, f32, u8 and RGBA8") {
  cc::testing::name_device();
  const EmulatedKernelDir kernels(kMatrix);
  const std::string device_id = cc::testing::opencl().devices()[cc::testing::device_under_test()].id;
  std::mt19937 rng(20261130);
  struct TensorCase {
    const char* lanes;
    Shape shape;
    int radius_x, radius_y;
    PixelCase pixels;
  };
  // Radii up to the second block of 8 lanes only: PoCL's build of the emulated kernel grows with the blocks.
  constexpr TensorCase kCases[] = {{"8", {5, 9}, 1, 1, kPixels[0]},     {"8", {131, 70}, 5, 1, kPixels[0]},
                                   {"8", {67, 45}, 2, 3, kPixels[1]},   {"16", {67, 45}, 2, 3, kPixels[0]},
                                   {"16", {1, 1}, 0, 2, kPixels[0]},    {"16", {37, 20}, 5, 1, kPixels[2]}};
  constexpr int kCasesPerSize = 3;
  for (const char* lanes : {"8", "16"}) {
    const cc::test::ScopedEnv emulated("CONVCOMPARE_TEST_MATRIX", lanes);
    const std::unique_ptr<cc::Backend> backend = cc::testing::find_backend("opencl");  // reads the setting
    REQUIRE(backend);
    const int device = device_of(*backend, device_id);
    int turn = 0, validated = 0;
    for (const TensorCase& each : kCases) {
      if (std::string_view(each.lanes) != lanes) continue;
      for (const cc::Border border : kBorders) {
        const bool flip = turn++ % 3 == 1;
        INFO(fmt::format("{} lanes: {}x{}x{} {} radius {}x{} border {}{}", lanes, each.shape.width, each.shape.height,
                         each.pixels.channels, cc::to_string(each.pixels.pixel), each.radius_x, each.radius_y,
                         cc::to_string(border), flip ? " flip" : ""));
        const cc::Image input = sample_image(each.shape, each.pixels, rng);
        const cc::Filter filter = sample_filter(each.radius_x, each.radius_y, rng);
        const cc::Problem problem = cc::make_problem(input, filter, border, flip, each.pixels.pixel);
        cc::RunOptions options;
        options.repetitions = 1;
        options.warmup = 0;
        options.kernel_dir = kernels.path.string();
        const cc::BackendRun run = backend->run(problem, input, "tensor", device, options);
        // A device whose kernels take fewer work-items than tensor's fixed group of 128 (Rusticl's
        // llvmpipe: 32) cannot run it, emulated or not: the first run says so, and the case stops there.
        if (turn == 1 && run.status == cc::Status::Skipped &&
            run.reason.find("the tensor kernel needs groups of 32x4") != std::string::npos) {
          MESSAGE("skipped: " << run.reason);
          return;
        }
        REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
        CHECK(run.compile_time.find(fmt::format("CC_TENSOR_INTEL={}", lanes)) != std::string::npos);
        CHECK(run.compile_time.find("CC_TENSOR_EMULATED") != std::string::npos);
        const cc::Validation validation = cc::validate(run.output, cc::reference_convolve(input, problem),
                                                       cc::testing::tolerance_of("tensor", problem, input));
        CHECK_MESSAGE(validation.passed, validation.message());
        validated += validation.passed;
      }
    }
    CHECK(validated == static_cast<int>(kCasesPerSize * std::size(kBorders)));
  }
}

TEST_CASE("tensor: CONVCOMPARE_TEST_MATRIX takes 8 or 16, nothing else") {
  for (const char* bad : {"0", "4", "32", "8x", "-16"}) {
    CAPTURE(bad);
    const cc::test::ScopedEnv emulated("CONVCOMPARE_TEST_MATRIX", bad);
    const std::unique_ptr<cc::Backend> backend = cc::testing::find_backend("opencl");
    REQUIRE(backend);
    try {
      (void)backend->devices();  // discovery, where the setting is read
      FAIL("CONVCOMPARE_TEST_MATRIX=" << bad << " was taken");
    } catch (const cc::InputError& error) {
      CHECK(std::string(error.what()).find("expected a sub-group size of 8 or 16") != std::string::npos);
    }
  }
}
