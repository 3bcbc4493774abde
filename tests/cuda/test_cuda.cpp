// test_cuda.cpp: the CUDA backend on a real device: every variant over the matrix, timing fields, limits, NPP.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "common/domain/error.h"
#include "common/domain/variants.h"
#include "common/geometry/tile_shape.h"
#include "common/domain/filter.h"
#include "common/domain/reference.h"
#include "common/domain/validate.h"
#include "kernels_cuda/launchers.h"
#include "tests/support/backend_matrix.h"
#include "tests/support/fixtures.h"
#include "tests/cuda/cuda_suite.h"

using cc::testing::cuda;
using cc::testing::quick_options;
using cc::testing::random_filter;
using cc::testing::random_image;

namespace {

// Our own kernels, one per described line of the variant table: a new one is tested here
// without a line of its own. Not tma: test_tma.cpp runs it over the same matrices in a process of its own
// (ctest's test_cuda_tma), since a fault of the tensor memory accelerator loses the CUDA context for the
// rest of a process, as the H100 showed.
std::vector<std::string_view> memory_space_variants() {
  std::vector<std::string_view> names;
  for (const cc::VariantTraits& variant : cc::all_variants())
    if (cc::kernel_description(variant) && !variant.needs.has(cc::Capability::TensorMaps))
      names.push_back(variant.name);
  return names;
}

// Integers 0..255, as an 8-bit frame holds them.
cc::Image eight_bit_image(int width, int height, int channels, unsigned seed) {
  cc::Image image(width, height, channels, true);
  std::mt19937 generator(seed);
  std::uniform_int_distribution<int> value(0, 255);
  for (float& pixel : image.data) pixel = static_cast<float>(value(generator));
  return image;
}

// column x row with random, asymmetric factors: exactly what separate() must find.
cc::Filter random_separable_filter(int width, int height, unsigned seed) {
  const cc::Filter row = random_filter(width, 1, seed);
  const cc::Filter column = random_filter(1, height, seed + 1);
  cc::Filter filter{"separable " + std::to_string(width) + "x" + std::to_string(height), width, height, {}};
  for (int r = 0; r < height; ++r)
    for (int c = 0; c < width; ++c) filter.weights.push_back(column.weights[r] * row.weights[c]);
  return filter;
}

struct Checked {
  cc::BackendRun run;
  cc::Validation validation;  // meaningful only when run.status is Ok
};

// Runs one variant and validates it as the driver does, the variant's extra tolerance included.
Checked run_and_validate(std::string_view variant, const cc::Image& input, const cc::Filter& filter,
                         cc::Border border, const cc::RunOptions& options = quick_options(),
                         cc::PixelType pixel = cc::PixelType::F32) {
  const cc::Problem problem = cc::make_problem(input, filter, border, false, pixel);
  Checked checked{cuda().run(problem, input, variant, 0, options), {}};
  if (checked.run.status != cc::Status::Ok) return checked;
  checked.validation = cc::validate(checked.run.output, cc::reference_convolve(input, problem),
                                    cc::testing::tolerance_of(variant, problem, input));
  return checked;
}

}  // namespace

TEST_CASE("cuda: the device and the variants are listed as the report expects") {
  const cc::DeviceInfo& device = cuda().devices().at(0);
  CHECK(device.backend == "cuda");
  CHECK(device.id == "cuda:0");
  CHECK_FALSE(device.name.empty());
  CHECK(device.properties.at(0).first == "compute capability");
  CHECK(cuda().unavailable_reason().empty());
  CHECK(cuda().variants() == cc::testing::table_variants("cuda"));
}

TEST_CASE("cuda: every memory-space variant validates over the test matrix, bit-exact on integer data") {
  for (const std::string_view variant : memory_space_variants()) {
    INFO("variant: " << variant);
    CHECK(cc::testing::check_variant_matrix(cuda(), 0, variant) > 0);
    CHECK(cc::testing::check_integer_exact(cuda(), 0, variant) > 0);
  }
}

// 8-bit pixels: each variant the table gives 8-bit kernels, 1 channel, 3 (padded to RGBA8)
// and 4, and the rounded reference bit for bit on integer data, 1 channel and RGBA8.
TEST_CASE("cuda: every memory-space variant with 8-bit kernels validates over the u8 matrix, bit-exact on integers") {
  int variants = 0;
  for (const std::string_view variant : memory_space_variants()) {
    if (!(cc::find_variant(variant)->pixels & cc::kU8)) continue;
    INFO("variant: " << variant);
    ++variants;
    CHECK(cc::testing::check_variant_matrix(cuda(), 0, variant, cc::testing::eight_bit_matrix()) > 0);
    CHECK(cc::testing::check_integer_exact(cuda(), 0, variant, cc::PixelType::U8) == 8);
  }
  CHECK(variants >= 4);  // global, constant, tiled, texture at least
}

TEST_CASE("cuda: u8 runs the kernels compiled for its format, on 8-bit frames, and tiled stages an 8-bit tile") {
  const cc::Filter filter = random_filter(3, 3, 41);
  for (const int channels : {1, 3, 4}) {
    const cc::Image input = eight_bit_image(37, 19, channels, 42);
    for (const std::string_view variant : {"global", "constant", "tiled", "texture"}) {
      INFO(variant << ", " << channels << " channels");
      const Checked checked = run_and_validate(variant, input, filter, cc::Border::Wrap, quick_options(),
                                               cc::PixelType::U8);
      REQUIRE_MESSAGE(checked.run.status == cc::Status::Ok, checked.run.reason);
      CHECK_MESSAGE(checked.validation.passed, checked.validation.message());
      CHECK(checked.validation.eight_bit);
      // An input and an output of one byte per pixel, or four (RGBA8), and the 3x3 filter.
      CHECK(checked.run.device_bytes == 2u * 37 * 19 * (channels == 1 ? 1 : 4) + 9 * 4);
    }
  }
  // Radius 50: a 16x16 block's float tile, 116 x 116 x 4 bytes, needs the opt-in beyond 48 KB; the
  // 8-bit one, 116 x 116 bytes, does not, and RGBA8's needs it as the float one does. Weights / 101,
  // so that sums stay of the order of the pixels rather than all saturating.
  cc::Filter large = random_filter(101, 101, 43);
  for (float& weight : large.weights) weight /= 101.0f;
  const cc::Image gray = eight_bit_image(131, 97, 1, 44);
  const ConvArgs args = cc::make_problem(gray, large, cc::Border::Mirror, false, cc::PixelType::U8).conv_args();
  CHECK(cc::tile_bytes(args.radius_x, args.radius_y, 16, 16, 1) < 48 * 1024);
  CHECK(cc::tile_bytes(args.radius_x, args.radius_y, 16, 16, 4) > 48 * 1024);
  for (const int channels : {1, 4}) {
    INFO(channels << " channels, radius 50");
    const Checked checked = run_and_validate("tiled", eight_bit_image(131, 97, channels, 45), large, cc::Border::Mirror,
                                             quick_options(), cc::PixelType::U8);
    REQUIRE_MESSAGE(checked.run.status == cc::Status::Ok, checked.run.reason);
    CHECK_MESSAGE(checked.validation.passed, checked.validation.message());
  }
}

// fast and separable for 8-bit: each NVRTC shape for one channel and RGBA8, on an image
// with blocks wholly inside it (quads' 4-byte / 16-byte loads, rows' unfolded staging) and at every
// edge, every border, with the pixel format's -D in the module's options.
TEST_CASE("cuda: u8 fast and separable validate in every scheme and shape, 1, 3 and 4 channels") {
  struct Shape {
    const char* variant;
    int width, height;
    const char* define;  // the scheme's tell-tale in the options
    const char* rgba8_define = nullptr;  // where RGBA8's differs: its quads' 2 rows from r = 2 (fast_shape.h)
  };
  const Shape shapes[] = {{"fast", 3, 3, "-DOUT_X=4 -DOUT_Y=4"},
                          {"fast", 7, 5, "-DOUT_X=4 -DOUT_Y=4", "-DOUT_X=4 -DOUT_Y=2"},
                          {"fast", 13, 11, "-DOUT_X=8 -DOUT_Y=4"},  {"fast", 35, 19, "-DOUT_X=8 -DOUT_Y=2"},
                          {"fast", 65, 65, "-DOUT_X=8 -DOUT_Y=2"},  {"separable", 7, 5, "-DBANDS=1"},
                          {"separable", 33, 25, "-DBANDS="}};
  unsigned seed = 60;
  for (const int channels : {1, 3, 4}) {
    const cc::Image input = eight_bit_image(300, 150, channels, ++seed);
    for (const Shape& shape : shapes) {
      const bool separable = std::string_view(shape.variant) == "separable";
      cc::Filter filter = separable ? random_separable_filter(shape.width, shape.height, ++seed)
                                    : random_filter(shape.width, shape.height, ++seed);
      // Sums of the order of the pixels, both signs: some round, some saturate at each end.
      for (float& weight : filter.weights) weight *= 4.0f / std::sqrt(static_cast<float>(filter.taps()));
      for (const cc::Border border : {cc::Border::Zero, cc::Border::Clamp, cc::Border::Mirror, cc::Border::Wrap}) {
        INFO(shape.variant << " " << shape.width << "x" << shape.height << ", " << channels << " channels, border "
                           << cc::to_string(border));
        const Checked checked = run_and_validate(shape.variant, input, filter, border, quick_options(),
                                                 cc::PixelType::U8);
        REQUIRE_MESSAGE(checked.run.status == cc::Status::Ok, checked.run.reason);
        CHECK_MESSAGE(checked.validation.passed, checked.validation.message());
        CHECK(checked.validation.eight_bit);
        const char* define = channels > 1 && shape.rgba8_define ? shape.rgba8_define : shape.define;
        CHECK(checked.run.compile_time.find(define) != std::string::npos);
        CHECK(checked.run.compile_time.ends_with(channels == 1 ? "-DCC_PIXEL=CC_PIXEL_U8" : "-DCC_PIXEL=CC_PIXEL_U8X4"));
        // One byte per pixel each way, or four (RGBA8), and the filter (separable: its two factors).
        const std::size_t filter_bytes =
            separable ? (static_cast<std::size_t>(shape.width) + shape.height) * 4 : filter.weights.size() * 4;
        CHECK(checked.run.device_bytes == 2u * 300 * 150 * (channels == 1 ? 1 : 4) + filter_bytes);
      }
    }
  }
}

TEST_CASE("cuda: every phase is timed, pinned and pageable alike") {
  const cc::Image input = random_image(67, 45, 3, 1);
  const cc::Filter filter = random_filter(5, 3, 2);
  for (const cc::HostMemory memory : {cc::HostMemory::Pinned, cc::HostMemory::Pageable}) {
    INFO("memory: " << cc::to_string(memory));
    const cc::RunOptions options = quick_options(memory);
    const Checked checked = run_and_validate("global", input, filter, cc::Border::Wrap, options);
    REQUIRE(checked.run.status == cc::Status::Ok);
    CHECK(checked.validation.passed);
    const cc::PhaseTimes& times = checked.run.times;
    CHECK(checked.run.memory == cc::to_string(memory));
    CHECK(std::isnan(times.build_ms));  // compiled offline by nvcc: nothing to measure
    CHECK(times.setup_ms >= 0);
    CHECK(times.h2d_ms > 0);
    CHECK(times.d2h_ms > 0);
    CHECK(times.kernel_ms.samples == options.repetitions);
    CHECK(times.kernel_ms.min > 0);
    CHECK(times.kernel_ms.min <= times.kernel_ms.median);
    CHECK(times.kernel_batch_ms > 0);
    CHECK(times.host_to_host_ms > 0);
    CHECK(checked.run.compile_time.find("radius: run-time") == 0);
  }
}

TEST_CASE("cuda: reuse time and device memory are reported, device memory to the byte") {
  const cc::Image input = random_image(37, 19, 2, 21);
  const Checked global = run_and_validate("global", input, random_filter(3, 3, 22), cc::Border::Zero);
  REQUIRE_MESSAGE(global.run.status == cc::Status::Ok, global.run.reason);
  CHECK(global.run.times.reuse_ms > 0);
  // An input and an output of two 37x19 float planes, and the 3x3 filter: as the OpenCL test counts.
  CHECK(global.run.device_bytes == 2 * 2 * 37 * 19 * 4 + 9 * 4);
  // Separable passes its rows on chip (no temporary image) and holds a 3-tap row and a 3-tap column instead.
  const Checked separable = run_and_validate("separable", input, random_separable_filter(3, 3, 23), cc::Border::Zero);
  REQUIRE_MESSAGE(separable.run.status == cc::Status::Ok, separable.run.reason);
  CHECK(separable.run.device_bytes == 2 * 2 * 37 * 19 * 4 + (3 + 3) * 4);
}

TEST_CASE("cuda: stream pushes five frames through three streams, pinned and pageable, and the last one validates") {
  const cc::Image input = random_image(37, 19, 2, 24);
  const cc::Problem problem = cc::make_problem(input, random_filter(5, 3, 25), cc::Border::Mirror, false);
  const cc::Image reference = cc::reference_convolve(input, problem);
  for (const cc::HostMemory memory : {cc::HostMemory::Pinned, cc::HostMemory::Pageable}) {
    for (const char* variant : {"global", "tiled", "texture"}) {
      CAPTURE(cc::to_string(memory));
      CAPTURE(variant);
      const cc::StreamRun run = cuda().stream(problem, input, variant, 0, 5, quick_options(memory));
      REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
      CHECK(run.queues == 3);
      CHECK(run.total_ms > 0);
      CHECK(run.serial_ms_per_frame > 0);
      CHECK(run.h2d_ms_per_frame > 0);
      CHECK(run.d2h_ms_per_frame > 0);
      const cc::Validation validation = cc::validate(run.last_output, reference, cc::tolerance_for(problem, input));
      CHECK_MESSAGE(validation.passed, validation.message());
    }
  }
  CHECK_THROWS_AS(cuda().stream(problem, input, "global", 0, 0, quick_options()), cc::InputError);
}

TEST_CASE("cuda: a filter over 64 KB skips the constant-memory variants while global still validates") {
  const cc::Image input = random_image(40, 30, 1, 3);
  const cc::Filter filter = random_filter(129, 129, 4);  // 16641 taps, 66564 bytes
  REQUIRE(filter.taps() > cc::cuda_kernels::kMaxConstantTaps);
  for (const std::string_view variant : {"constant", "tiled", "texture"}) {
    INFO("variant: " << variant);
    const Checked checked = run_and_validate(variant, input, filter, cc::Border::Zero);
    CHECK(checked.run.status == cc::Status::Skipped);
    CHECK(checked.run.reason == "filter of 66564 bytes exceeds the 64 KB of constant memory");
  }
  const Checked global = run_and_validate("global", input, filter, cc::Border::Zero);
  REQUIRE(global.run.status == cc::Status::Ok);
  CHECK_MESSAGE(global.validation.passed, global.validation.message());
}

TEST_CASE("cuda: tiled opts in to more than 48 KB of shared memory for a large radius") {
  const cc::Image input = random_image(131, 97, 1, 5);
  const cc::Filter filter = random_filter(101, 101, 6);  // radius 50: a 16x16 tile is (16+100)^2 floats
  const cc::Problem problem = cc::make_problem(input, filter, cc::Border::Mirror, false);
  REQUIRE(cc::tile_bytes(problem.conv_args().radius_x, problem.conv_args().radius_y, 16, 16, sizeof(float)) > 48 * 1024);
  const Checked checked = run_and_validate("tiled", input, filter, cc::Border::Mirror);
  REQUIRE_MESSAGE(checked.run.status == cc::Status::Ok, checked.run.reason);
  CHECK_MESSAGE(checked.validation.passed, checked.validation.message());
}

TEST_CASE("cuda: fast is compiled by NVRTC for its radius, and skips radii over its limit") {
  const cc::Image input = random_image(67, 45, 1, 13);
  const Checked checked = run_and_validate("fast", input, random_filter(7, 5, 14), cc::Border::Mirror);
  REQUIRE_MESSAGE(checked.run.status == cc::Status::Ok, checked.run.reason);
  CHECK_MESSAGE(checked.validation.passed, checked.validation.message());
  CHECK(checked.run.times.build_ms > 0);
  CHECK(checked.run.compile_time.find("radius: compile-time; NVRTC") == 0);
  CHECK(checked.run.compile_time.find("-DRADIUS_X=3 -DRADIUS_Y=2") != std::string::npos);
  // The rows scheme's two loops: 4 output rows up to radius 16, 2 beyond (every border, non-square).
  for (const cc::Border border : {cc::Border::Zero, cc::Border::Clamp, cc::Border::Mirror, cc::Border::Wrap}) {
    for (const auto& [filter, rows] : {std::pair{random_filter(13, 11, 16), "-DOUT_Y=4"},
                                       std::pair{random_filter(35, 19, 17), "-DOUT_Y=2"}}) {
      const Checked scheme = run_and_validate("fast", input, filter, border);
      REQUIRE_MESSAGE(scheme.run.status == cc::Status::Ok, scheme.run.reason);
      CHECK_MESSAGE(scheme.validation.passed, scheme.validation.message());
      CHECK(scheme.run.compile_time.ends_with(rows));
    }
  }
  const Checked too_large = run_and_validate("fast", input, random_filter(67, 67, 15), cc::Border::Zero);
  CHECK(too_large.run.status == cc::Status::Skipped);
  CHECK(too_large.run.reason == "radius 33x33 is over the fast variant's compile-time limit of 32");
}

TEST_CASE("cuda: separable skips a filter that is not rank 1 and validates one that is") {
  const cc::Image input = random_image(33, 17, 2, 7);
  const Checked not_separable = run_and_validate("separable", input, random_filter(5, 5, 8), cc::Border::Clamp);
  CHECK(not_separable.run.status == cc::Status::Skipped);
  CHECK(not_separable.run.reason == "filter is not separable");
  const Checked separable = run_and_validate("separable", input, random_separable_filter(7, 3, 9), cc::Border::Clamp);
  REQUIRE(separable.run.status == cc::Status::Ok);
  CHECK_MESSAGE(separable.validation.passed, separable.validation.message());
}

#ifdef CONVCOMPARE_WITH_NPP
TEST_CASE("cuda: the NPP baseline validates with the replicate (clamp) border") {
  const std::vector<std::pair<int, int>> sizes{{1, 1}, {1, 17}, {7, 5}, {67, 45}, {257, 131}};
  unsigned seed = 100;
  for (const auto& [width, height] : sizes) {
    for (const int radius : {0, 1, 3, 8}) {
      for (const int channels : {1, 3}) {
        const cc::Image input = random_image(width, height, channels, ++seed);
        // Non-square too: the row and column passes, and the 2D anchor, must not be swapped.
        const int filter_width = 2 * radius + 1, filter_height = 2 * (radius / 2) + 1;
        INFO(width << "x" << height << " x" << channels << ", filter " << filter_width << "x" << filter_height);
        const Checked full = run_and_validate("npp", input, random_filter(filter_width, filter_height, ++seed),
                                              cc::Border::Clamp);
        REQUIRE_MESSAGE(full.run.status == cc::Status::Ok, full.run.reason);
        CHECK_MESSAGE(full.validation.passed, full.validation.message());
        const Checked separable = run_and_validate(
            "npp-separable", input, random_separable_filter(filter_width, filter_height, ++seed), cc::Border::Clamp);
        REQUIRE_MESSAGE(separable.run.status == cc::Status::Ok, separable.run.reason);
        CHECK_MESSAGE(separable.validation.passed, separable.validation.message());
      }
    }
  }
}

// NPP's 8-bit filters (nppiFilterBorder32f_8u, nppiFilterRowBorder32f_8u + ColumnBorder, C1R and C4R)
// round as NPP does, which it does not document: they are held to within 1 of the exact value
// (plus the 8-bit intermediate's rounding for two passes: Tolerance::any_rounding), and this test says
// which way NPP rounded, for docs/correctness.md.
TEST_CASE("cuda: NPP's 8-bit baselines validate within their bound, 1 channel and RGBA8, and how NPP rounds") {
  const std::vector<std::pair<int, int>> sizes{{1, 1}, {1, 17}, {7, 5}, {67, 45}, {257, 131}};
  unsigned seed = 200;
  long long nearest = 0, truncated = 0;  // pixels where the two differ
  for (const auto& [width, height] : sizes) {
    for (const int radius : {0, 1, 3, 8}) {
      for (const int channels : {1, 3, 4}) {
        const cc::Image input = eight_bit_image(width, height, channels, ++seed);
        const int filter_width = 2 * radius + 1, filter_height = 2 * (radius / 2) + 1;
        INFO(width << "x" << height << " x" << channels << ", filter " << filter_width << "x" << filter_height);
        const cc::Filter filter = random_filter(filter_width, filter_height, ++seed);
        const Checked full =
            run_and_validate("npp", input, filter, cc::Border::Clamp, quick_options(), cc::PixelType::U8);
        REQUIRE_MESSAGE(full.run.status == cc::Status::Ok, full.run.reason);
        CHECK_MESSAGE(full.validation.passed, full.validation.message());
        CHECK(full.validation.any_rounding);
        const cc::Image reference =
            cc::reference_convolve(input, cc::make_problem(input, filter, cc::Border::Clamp, false, cc::PixelType::U8));
        for (std::size_t i = 0; i < reference.data.size(); ++i) {
          const double exact = reference.data[i];
          if (exact < 0 || exact > 255 || exact - std::floor(exact) < 0.5) continue;  // nearest == truncated
          nearest += full.run.output.data[i] == cc::to_8bit(static_cast<float>(exact));
          truncated += full.run.output.data[i] == std::floor(exact);
        }
        // A rank-1 filter with a factor of one sign (the column), so both orders of the passes occur
        // as the row factor's signs vary: eight_bit_passes.h.
        const cc::Filter row = random_filter(filter_width, 1, ++seed), column = random_filter(1, filter_height, ++seed);
        cc::Filter separable{"separable, column >= 0", filter_width, filter_height, {}};
        for (const float down : column.weights)
          for (const float across : row.weights) separable.weights.push_back(std::fabs(down) * across);
        const Checked two_passes = run_and_validate("npp-separable", input, separable, cc::Border::Clamp,
                                                    quick_options(), cc::PixelType::U8);
        REQUIRE_MESSAGE(two_passes.run.status == cc::Status::Ok, two_passes.run.reason);
        CHECK_MESSAGE(two_passes.validation.passed, two_passes.validation.message());
      }
    }
  }
  MESSAGE("nppiFilterBorder32f_8u: of " << nearest + truncated << " pixels whose nearest and truncated values differ, "
                                        << nearest << " were rounded to nearest, " << truncated << " truncated");
  CHECK(nearest + truncated > 0);
  // Both factors of mixed sign: the first 8-bit pass would saturate at 0, so it is declined with the reason.
  const cc::Filter mixed{"mixed", 3, 3, {1, 0, -1, 0, 0, 0, -1, 0, 1}};
  const Checked declined = run_and_validate("npp-separable", eight_bit_image(16, 16, 1, 11), mixed, cc::Border::Clamp,
                                            quick_options(), cc::PixelType::U8);
  CHECK(declined.run.status == cc::Status::Skipped);
  CHECK(declined.run.reason.find("no negative weight") != std::string::npos);
}

TEST_CASE("cuda: the NPP baseline skips every border but clamp") {
  const cc::Image input = random_image(16, 16, 1, 11);
  for (const cc::Border border : {cc::Border::Zero, cc::Border::Mirror, cc::Border::Wrap}) {
    for (const std::string_view variant : {"npp", "npp-separable"}) {
      const Checked checked = run_and_validate(variant, input, random_separable_filter(3, 3, 12), border);
      CHECK(checked.run.status == cc::Status::Skipped);
      CHECK(checked.run.reason == std::string(variant) + " takes the clamp border only: use --border clamp");
    }
  }
}
#else
TEST_CASE("cuda: without NPP at build time the baseline is reported as skipped") {
  const cc::Image input = random_image(16, 16, 1, 11);
  for (const std::string_view variant : {"npp", "npp-separable"}) {
    const Checked checked = run_and_validate(variant, input, random_separable_filter(3, 3, 12), cc::Border::Clamp);
    CHECK(checked.run.status == cc::Status::Skipped);
    CHECK(checked.run.reason == "NPP not found at build time");
  }
}
#endif
