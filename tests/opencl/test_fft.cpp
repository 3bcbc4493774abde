// test_fft.cpp: the OpenCL fft variant (VkFFT): the spectrum's orientation with an asymmetric filter,
// the unpadded path and its edge bands, the tolerance and the figures it reports.
#include <doctest/doctest.h>

#include <random>

#include <fmt/format.h>

#include "common/geometry/fft_shape.h"
#include "common/domain/reference.h"
#include "common/domain/validate.h"
#include "tests/support/backend_matrix.h"
#include "tests/opencl/opencl_suite.h"

#ifdef CONVCOMPARE_WITH_VKFFT  // without it the fft variant is skipped: test_opencl's matrix checks the reason

using cc::testing::opencl;
using cc::testing::two_samples;

namespace {

cc::Image random_image(int width, int height, int channels) {
  cc::Image image(width, height, channels, true);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> pixel(0.0f, 255.0f);
  for (float& value : image.data) value = pixel(rng);
  return image;
}

// Weights in [-1, 1]: an asymmetric filter with no structure for an error to hide in.
cc::Filter random_filter(int width, int height) {
  cc::Filter filter{fmt::format("random {}x{}", width, height), width, height, {}};
  std::mt19937 rng(static_cast<unsigned>(width * 131 + height));
  std::uniform_real_distribution<float> weight(-1.0f, 1.0f);
  for (int i = 0; i < width * height; ++i) filter.weights.push_back(weight(rng));
  return filter;
}


}  // namespace

TEST_CASE("fft: the asymmetric 5x3 filter file comes out as a correlation, and --flip as a convolution") {
  const cc::Filter filter = cc::load_filter_file(CONVCOMPARE_TEST_DATA "/filter_5x3.txt");
  const cc::Image input = random_image(37, 23, 1);
  for (const cc::Border border : {cc::Border::Zero, cc::Border::Clamp, cc::Border::Mirror, cc::Border::Wrap}) {
    for (const bool flip : {false, true}) {
      CAPTURE(to_string(border));
      CAPTURE(flip);
      const cc::Problem problem = cc::make_problem(input, filter, border, flip);
      const cc::BackendRun run = opencl().run(problem, input, "fft", 0, two_samples());
      REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
      const cc::Tolerance tolerance = cc::testing::tolerance_of("fft", problem, input);
      const cc::Validation right = cc::validate(run.output, cc::reference_convolve(input, problem), tolerance);
      CHECK_MESSAGE(right.passed, right.message());
      // The other orientation (what a spectrum conjugated once too often or never gives) is far off:
      // the test tells the two apart.
      const cc::Problem mirrored = cc::make_problem(input, filter, border, !flip);
      const cc::Validation wrong = cc::validate(run.output, cc::reference_convolve(input, mirrored), tolerance);
      CHECK_FALSE(wrong.passed);
      CHECK(wrong.max_abs_error > 100 * tolerance.value);
    }
  }
}

TEST_CASE("fft: the looser FFT tolerance, the transforms' build time and the device memory are reported") {
  const cc::Filter filter = cc::load_filter_file(CONVCOMPARE_TEST_DATA "/filter_5x3.txt");
  const cc::Image input = random_image(45, 31, 2);
  const cc::Problem problem = cc::make_problem(input, filter, cc::Border::Mirror, false);
  const cc::BackendRun run = opencl().run(problem, input, "fft", 0, two_samples());
  REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
  CHECK(cc::testing::tolerance_of("fft", problem, input).value == cc::fft_tolerance_for(problem, input).value);
  CHECK(run.times.build_ms > 0);  // fft.cl and VkFFT's generated kernels
  CHECK(run.times.setup_ms > 0);  // the filter's spectrum
  CHECK(run.times.kernel_ms.samples == 2);
  CHECK(run.times.stopped_by == "max");
  CHECK(run.times.kernel_ms.min > 0);
  // An input and an output of two 45x31 planes, the padded buffer and the filter's spectrum
  // (50x35 padded), and a temporary as large on a device that cannot take a row in one pass.
  const cc::FftShape shape = cc::fft_shape(problem);
  CHECK(shape.transform_width == 50);
  CHECK(shape.transform_height == 35);
  CHECK(run.device_bytes >= 2 * 2 * 45 * 31 * 4 + 2 * shape.buffer_bytes());
  CHECK(run.device_bytes <= 2 * 2 * 45 * 31 * 4 + 3 * shape.buffer_bytes());
  CHECK(run.compile_time.find("VkFFT") != std::string::npos);
}

TEST_CASE("fft: even smooth images take the unpadded path, exact in every border with edge bands redone") {
  struct Case {
    int width, height, channels, filter_width, filter_height;
  };
  // Rectangular images, non-square filters, several channels; filters just under the image (bands
  // nearly everywhere), one column (top and bottom bands only), one row (left and right only), and a
  // band taller than one 32-row block.
  const Case cases[] = {{40, 30, 2, 7, 3},  {48, 20, 1, 5, 11}, {24, 14, 1, 23, 13},
                        {32, 9, 1, 1, 7},   {36, 16, 3, 9, 1},  {256, 160, 1, 65, 81}};
  for (const Case& c : cases) {
    const cc::Image input = random_image(c.width, c.height, c.channels);
    const cc::Filter filter = random_filter(c.filter_width, c.filter_height);
    for (const cc::Border border : {cc::Border::Zero, cc::Border::Clamp, cc::Border::Mirror, cc::Border::Wrap}) {
      CAPTURE(c.width);
      CAPTURE(c.height);
      CAPTURE(filter.spec);
      CAPTURE(to_string(border));
      const cc::Problem problem = cc::make_problem(input, filter, border, false);
      const cc::FftShape shape = cc::fft_shape(problem);
      REQUIRE(shape.circular);
      const cc::BackendRun run = opencl().run(problem, input, "fft", 0, two_samples());
      REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
      const cc::Tolerance tolerance = cc::testing::tolerance_of("fft", problem, input);
      const cc::Validation result = cc::validate(run.output, cc::reference_convolve(input, problem), tolerance);
      CHECK_MESSAGE(result.passed, result.message());
      CHECK(run.compile_time.find(cc::fft_shape_text(shape)) != std::string::npos);
      CHECK((run.compile_time.find("edge bands direct") != std::string::npos) == (border != cc::Border::Wrap));
      // Two planes per channel, the half spectrum and the filter's, the bands' coefficients, and a
      // temporary as large as the spectrum on a device that cannot take a row in one pass.
      const std::size_t fixed =
          2 * input.data.size() * sizeof(float) + cc::fft_band_bytes(shape, problem.correlation_filter);
      CHECK(run.device_bytes >= fixed + 2 * shape.buffer_bytes());
      CHECK(run.device_bytes <= fixed + 3 * shape.buffer_bytes());
    }
  }
}

TEST_CASE("fft: a row that fits local memory runs VkFFT's convolution, the product fused, on both paths") {
  // Rows of 40 and 50 floats fit any device's local memory in one pass, so VkFFT's convolution runs
  // (backends/opencl/opencl_fft.h); the results are validated above and here.
  const cc::Filter filter = random_filter(7, 5);
  for (const int width : {40, 43}) {  // unpadded, padded (50x34)
    CAPTURE(width);
    const cc::Image input = random_image(width, 30, 1);
    const cc::Problem problem = cc::make_problem(input, filter, cc::Border::Clamp, false);
    const cc::BackendRun run = opencl().run(problem, input, "fft", 0, two_samples());
    REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
    CHECK(run.compile_time.find("VkFFT convolution") != std::string::npos);
    const cc::Tolerance tolerance = cc::testing::tolerance_of("fft", problem, input);
    const cc::Validation result = cc::validate(run.output, cc::reference_convolve(input, problem), tolerance);
    CHECK_MESSAGE(result.passed, result.message());
  }
}

TEST_CASE("fft: without the edge bands the unpadded path would be wrong at the edges, so the test can fail") {
  // The wrap-border result (what the transform alone gives) misses the zero-border reference.
  const cc::Image input = random_image(40, 30, 1);
  const cc::Filter filter = random_filter(7, 5);
  const cc::Problem wrap = cc::make_problem(input, filter, cc::Border::Wrap, false);
  const cc::Problem zero = cc::make_problem(input, filter, cc::Border::Zero, false);
  const cc::BackendRun run = opencl().run(wrap, input, "fft", 0, two_samples());
  REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
  const cc::Tolerance tolerance = cc::testing::tolerance_of("fft", zero, input);
  CHECK_FALSE(cc::validate(run.output, cc::reference_convolve(input, zero), tolerance).passed);
}

#endif  // CONVCOMPARE_WITH_VKFFT
