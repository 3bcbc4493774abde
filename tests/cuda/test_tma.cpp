// test_tma.cpp: the tma variant on a real device where the test matrix does not reach (its rows are no multiple of 16 bytes, which TMA skips): every border, flip, non-square filters, radii larger than the image, f32, u8 and RGBA8, bit-exact on integers, and each skip's reason.
#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "common/domain/reference.h"
#include "common/domain/validate.h"
#include "tests/support/backend_matrix.h"

namespace {

// Integers 0..255 (8-bit as the frame holds them; f32 the same values, so both can be exact).
cc::Image integer_image(int width, int height, int channels, std::mt19937& rng) {
  cc::Image image(width, height, channels, true);
  std::uniform_int_distribution<int> byte(0, 255);
  for (float& each : image.data) each = static_cast<float>(byte(rng));
  return image;
}

// Integer weights: every sum exact in float, so a cell TMA or the border fix-up got wrong cannot hide
// under a tolerance. 8-bit: 0..2 with a few -1, so results both saturate and land inside 0..255.
cc::Filter integer_filter(int radius_x, int radius_y, cc::PixelType pixel, std::mt19937& rng) {
  cc::Filter filter{fmt::format("integer {}x{}", 2 * radius_x + 1, 2 * radius_y + 1), 2 * radius_x + 1,
                    2 * radius_y + 1, {}};
  std::uniform_int_distribution<int> weight(pixel == cc::PixelType::U8 ? -1 : -4, pixel == cc::PixelType::U8 ? 2 : 4);
  for (int i = 0; i < filter.taps(); ++i) filter.weights.push_back(static_cast<float>(weight(rng)));
  return filter;
}

cc::RunOptions one_run() {
  cc::RunOptions options;
  options.repetitions = 1;
  options.warmup = 0;
  return options;
}

cc::BackendRun run_tma(const cc::Image& input, const cc::Filter& filter, cc::Border border, bool flip,
                       cc::PixelType pixel) {
  static const std::unique_ptr<cc::Backend> cuda = cc::testing::find_backend("cuda");
  REQUIRE(cuda);
  return cuda->run(cc::make_problem(input, filter, border, flip, pixel), input, "tma", 0, one_run());
}

// A device before 9.0 skips every tma run with this reason (DeviceLimits::missing).
bool no_tma_here(const cc::BackendRun& run) {
  return run.status == cc::Status::Skipped &&
         run.reason.find("accelerator (TMA) needs compute capability") != std::string::npos;
}

}  // namespace

// Rows of whole 16-byte multiples in every format (80 and 160 pixels, one channel of bytes included);
// blocks at every edge and, at 160x70, interior ones, which skip the border fix-up; radii wider than a
// 16x16 block, non-square ones, and on one pixel (a one-row image: its row stride is never stepped)
// radii far larger than the image.
TEST_CASE("cuda: tma validates bit-exact on integers, every border, flip, non-square filters, f32, u8 and RGBA8") {
  std::mt19937 rng(90);
  int ran = 0;
  for (const auto& [width, height] : {std::pair{80, 45}, std::pair{160, 70}, std::pair{1, 1}})
    for (const auto& [radius_x, radius_y] : {std::pair{1, 1}, std::pair{20, 20}, std::pair{32, 5}, std::pair{3, 33}})
      for (const cc::Border border : {cc::Border::Zero, cc::Border::Clamp, cc::Border::Mirror, cc::Border::Wrap})
        for (const bool flip : {false, true})
          for (const auto& [pixel, channels] : {std::pair{cc::PixelType::F32, 1}, std::pair{cc::PixelType::U8, 1},
                                                std::pair{cc::PixelType::U8, 4}}) {
            INFO(fmt::format("{}x{}x{} {} r={}x{} border {}{}", width, height, channels, cc::to_string(pixel),
                             radius_x, radius_y, cc::to_string(border), flip ? " flip" : ""));
            const cc::Image input = integer_image(width, height, channels, rng);
            const cc::Filter filter = integer_filter(radius_x, radius_y, pixel, rng);
            const cc::BackendRun run = run_tma(input, filter, border, flip, pixel);
            if (no_tma_here(run)) {
              MESSAGE("skipped: " << run.reason);
              return;
            }
            REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
            // 16x16 groups: 18 pixels a row after a lead to the 16-byte step below the tile's edge (3 pixels
            // of 4 bytes, 15 of one), padded to 16 bytes (tile_shape.h's tma_tile_pitch).
            if (width == 80 && radius_x == 1 && radius_y == 1)
              CHECK(run.compile_time.find(channels == 4 || pixel == cc::PixelType::F32 ? "TMA boxes of 24x18 pixels"
                                                                                        : "TMA boxes of 48x18 pixels")
                    != std::string::npos);
            const cc::Problem problem = cc::make_problem(input, filter, border, flip, pixel);
            const cc::Tolerance tolerance = cc::testing::tolerance_of("tma", problem, input);
            CHECK(tolerance.exact);
            const cc::Validation validation = cc::validate(run.output, cc::reference_convolve(input, problem), tolerance);
            CHECK_MESSAGE(validation.passed, validation.message());
            ++ran;
          }
  CHECK(ran == 3 * 4 * 4 * 2 * 3);
}

// Float planes (three channels) one after the other, each the base of its own map: 80-pixel rows keep
// every plane on a 16-byte boundary. Random floats and weights, held to the float tolerance.
TEST_CASE("cuda: tma validates float planes of a three-channel image") {
  std::mt19937 rng(91);
  cc::Image input(80, 45, 3, true);
  std::uniform_real_distribution<float> value(0.0f, 255.0f), weight(-1.0f, 1.0f);
  for (float& each : input.data) each = value(rng);
  cc::Filter filter{"random 9x5", 9, 5, {}};
  for (int i = 0; i < filter.taps(); ++i) filter.weights.push_back(weight(rng));
  for (const cc::Border border : {cc::Border::Zero, cc::Border::Wrap}) {
    const cc::BackendRun run = run_tma(input, filter, border, false, cc::PixelType::F32);
    if (no_tma_here(run)) return;
    REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
    const cc::Problem problem = cc::make_problem(input, filter, border, false, cc::PixelType::F32);
    const cc::Validation validation = cc::validate(run.output, cc::reference_convolve(input, problem),
                                                   cc::testing::tolerance_of("tma", problem, input));
    CHECK_MESSAGE(validation.passed, validation.message());
  }
}

// The tensor map is encoded at each launch from the unit's own address: float planes, the frames in
// flight of --stream (three slots, each its own buffers), and frames in pageable, mapped (host memory
// the kernel reaches over the host link: TMA reading it is what this confirms) and managed memory.
TEST_CASE("cuda: tma validates in every memory mode and with frames in flight, each launch mapping its own unit") {
  static const std::unique_ptr<cc::Backend> cuda = cc::testing::find_backend("cuda");
  REQUIRE(cuda);
  std::mt19937 rng(93);
  for (const cc::HostMemory memory :
       {cc::HostMemory::Pinned, cc::HostMemory::Pageable, cc::HostMemory::Mapped, cc::HostMemory::Managed})
    for (const auto& [pixel, channels] : {std::pair{cc::PixelType::F32, 3}, std::pair{cc::PixelType::U8, 4}}) {
      INFO(fmt::format("{} {}x{}", cc::to_string(memory), cc::to_string(pixel), channels));
      const cc::Image input = integer_image(80, 45, channels, rng);
      const cc::Problem problem =
          cc::make_problem(input, integer_filter(4, 2, pixel, rng), cc::Border::Mirror, false, pixel);
      const cc::Image reference = cc::reference_convolve(input, problem);
      cc::RunOptions options = one_run();
      options.memory = memory;
      const cc::BackendRun run = cuda->run(problem, input, "tma", 0, options);
      if (no_tma_here(run)) return;
      REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
      CHECK(cc::validate(run.output, reference, cc::testing::tolerance_of("tma", problem, input)).passed);
      const cc::StreamRun stream = cuda->stream(problem, input, "tma", 0, 5, options);
      REQUIRE_MESSAGE(stream.status == cc::Status::Ok, stream.reason);
      CHECK(cc::validate(stream.last_output, reference, cc::testing::tolerance_of("tma", problem, input)).passed);
    }
}

// The matrices every other variant meets in test_cuda.cpp, here in tma's own process (ctest's
// test_cuda_tma: a TMA fault loses the CUDA context for the rest of a process). TMA takes rows
// of whole 16-byte multiples only: the integer cases' 37-pixel rows are each skipped with that reason.
TEST_CASE("cuda: tma validates over the test matrices where TMA can describe the image, f32 and u8") {
  static const std::unique_ptr<cc::Backend> cuda = cc::testing::find_backend("cuda");
  REQUIRE(cuda);
  CHECK(cc::testing::check_variant_matrix(*cuda, 0, "tma") > 0);
  CHECK(cc::testing::check_integer_exact(*cuda, 0, "tma") == 0);
  CHECK(cc::testing::check_variant_matrix(*cuda, 0, "tma", cc::testing::eight_bit_matrix()) > 0);
  CHECK(cc::testing::check_integer_exact(*cuda, 0, "tma", cc::PixelType::U8) == 0);
}

// What TMA cannot describe is a skip naming the limit (backends/cuda/tensor_map.cpp), not a wrong image:
// rows that are no multiple of 16 bytes (37 floats, 40 bytes), a plane that starts off a 16-byte boundary
// (one-row float planes of 37 pixels), a tile over 256 pixels wide (8-bit, a 261x1 filter).
TEST_CASE("cuda: tma skips what the tensor memory accelerator cannot describe, with the reason") {
  std::mt19937 rng(92);
  struct Refusal {
    int width, height, channels, radius_x, radius_y;
    cc::PixelType pixel;
    const char* reason;
  };
  for (const Refusal& refusal : {Refusal{37, 23, 1, 2, 2, cc::PixelType::F32, "this image's rows are 148 bytes"},
                                 Refusal{40, 9, 1, 1, 1, cc::PixelType::U8, "this image's rows are 40 bytes"},
                                 Refusal{37, 1, 2, 1, 1, cc::PixelType::F32, "float planes are 148 bytes each"},
                                 Refusal{160, 4, 1, 130, 0, cc::PixelType::U8, "at most 256 pixels a side"}}) {
    INFO(fmt::format("{}x{}x{} {} r={}x{}", refusal.width, refusal.height, refusal.channels,
                     cc::to_string(refusal.pixel), refusal.radius_x, refusal.radius_y));
    const cc::Image input = integer_image(refusal.width, refusal.height, refusal.channels, rng);
    const cc::BackendRun run = run_tma(input, integer_filter(refusal.radius_x, refusal.radius_y, refusal.pixel, rng),
                                       cc::Border::Clamp, false, refusal.pixel);
    if (no_tma_here(run)) return;
    CHECK(run.status == cc::Status::Skipped);
    CHECK_MESSAGE(run.reason.find(refusal.reason) != std::string::npos, run.reason);
  }
}
