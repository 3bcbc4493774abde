// test_cluster.cpp: the cluster variant on a real device where the test matrix does not reach: aprons wider than a block (from the cluster's farther blocks, then global memory), every border, flip, f32 and RGBA8.
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

// f32: values in [0, 255) and weights in [-1, 1]; 8-bit: integers 0..255 and weights around a blur's,
// so results both saturate and round (as backend_matrix.cpp's random filters).
cc::Image random_input(int width, int height, int channels, cc::PixelType pixel, std::mt19937& rng) {
  cc::Image image(width, height, channels, true);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_real_distribution<float> value(0.0f, 255.0f);
  for (float& each : image.data) each = pixel == cc::PixelType::U8 ? static_cast<float>(byte(rng)) : value(rng);
  return image;
}

cc::Filter random_weights(int radius_x, int radius_y, cc::PixelType pixel, std::mt19937& rng) {
  cc::Filter filter{fmt::format("random {}x{}", 2 * radius_x + 1, 2 * radius_y + 1), 2 * radius_x + 1,
                    2 * radius_y + 1, {}};
  const double taps = filter.taps();
  std::uniform_real_distribution<double> weight(-1.0, 1.0);
  for (int i = 0; i < filter.taps(); ++i)
    filter.weights.push_back(static_cast<float>(pixel == cc::PixelType::U8 ? 1.0 / taps + 3.0 * weight(rng) / std::sqrt(taps)
                                                                           : weight(rng)));
  return filter;
}

}  // namespace

// The matrix's radii (up to 16) stay within the next 16x16 block; these reach two blocks away, past
// a 4x2 cluster's edge and past the image, on images that are no multiple of a block or a cluster
// (67x45: 5x3 blocks launched as 8x4) and on one pixel (a cluster of one block).
TEST_CASE("cuda: cluster validates with aprons wider than a block, every border, flip, f32 and RGBA8") {
  const std::unique_ptr<cc::Backend> cuda = cc::testing::find_backend("cuda");
  REQUIRE(cuda);
  cc::RunOptions options;
  options.repetitions = 1;
  options.warmup = 0;
  std::mt19937 rng(25);
  int ran = 0;
  for (const auto& [width, height] : {std::pair{67, 45}, std::pair{150, 70}, std::pair{1, 1}})
    for (const auto& [radius_x, radius_y] : {std::pair{20, 20}, std::pair{32, 5}, std::pair{3, 33}})
      for (const cc::Border border : {cc::Border::Zero, cc::Border::Clamp, cc::Border::Mirror, cc::Border::Wrap})
        for (const bool flip : {false, true})
          for (const cc::PixelType pixel : {cc::PixelType::F32, cc::PixelType::U8}) {
            const int channels = pixel == cc::PixelType::U8 ? 4 : 1;
            INFO(fmt::format("{}x{}x{} {} r={}x{} border {}{}", width, height, channels, cc::to_string(pixel),
                             radius_x, radius_y, cc::to_string(border), flip ? " flip" : ""));
            const cc::Image input = random_input(width, height, channels, pixel, rng);
            const cc::Filter filter = random_weights(radius_x, radius_y, pixel, rng);
            const cc::Problem problem = cc::make_problem(input, filter, border, flip, pixel);
            const cc::BackendRun run = cuda->run(problem, input, "cluster", 0, options);
            if (run.status == cc::Status::Skipped && run.reason.find("thread-block clusters need") != std::string::npos) {
              MESSAGE("skipped: " << run.reason);  // a device before sm_90 (DeviceLimits::missing)
              return;
            }
            REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
            CHECK(run.compile_time.find(width == 67 ? "thread-block clusters of 4x2 blocks" : "thread-block clusters of")
                  != std::string::npos);
            const cc::Validation validation = cc::validate(run.output, cc::reference_convolve(input, problem),
                                                           cc::testing::tolerance_of("cluster", problem, input));
            CHECK_MESSAGE(validation.passed, validation.message());
            ++ran;
          }
  CHECK(ran == 3 * 3 * 4 * 2 * 2);
}
