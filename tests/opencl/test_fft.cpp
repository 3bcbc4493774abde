// test_fft.cpp: the OpenCL fft variant (VkFFT): the spectrum's orientation with an asymmetric filter,
// the tolerance and the figures it reports.
#include <doctest/doctest.h>

#include <random>

#include "common/fft_shape.h"
#include "common/reference.h"
#include "common/validate.h"
#include "tests/support/backend_matrix.h"

namespace {

cc::Backend& backend() {
  static const std::unique_ptr<cc::Backend> opencl = cc::testing::find_backend("opencl");
  REQUIRE(opencl);
  return *opencl;
}

bool ready() {
  if (backend().devices().empty()) {
    MESSAGE("no OpenCL device, test not run: " << backend().unavailable_reason());
    return false;
  }
#ifndef CONVCOMPARE_WITH_VKFFT
  MESSAGE("built without VkFFT: fft is skipped");
  return false;
#else
  return true;
#endif
}

cc::Image random_image(int width, int height, int channels) {
  cc::Image image(width, height, channels, true);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> pixel(0.0f, 255.0f);
  for (float& value : image.data) value = pixel(rng);
  return image;
}

cc::RunOptions quick_options() {
  cc::RunOptions options;
  options.repetitions = 2;
  options.warmup = 1;
  return options;
}

}  // namespace

TEST_CASE("fft: the asymmetric 5x3 filter file comes out as a correlation, and --flip as a convolution") {
  if (!ready()) return;
  const cc::Filter filter = cc::load_filter_file(CONVCOMPARE_TEST_DATA "/filter_5x3.txt");
  const cc::Image input = random_image(37, 23, 1);
  for (const cc::Border border : {cc::Border::Zero, cc::Border::Clamp, cc::Border::Mirror, cc::Border::Wrap}) {
    for (const bool flip : {false, true}) {
      CAPTURE(to_string(border));
      CAPTURE(flip);
      const cc::Problem problem = cc::make_problem(input, filter, border, flip);
      const cc::BackendRun run = backend().run(problem, input, "fft", 0, quick_options());
      REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
      const cc::Tolerance tolerance = cc::tolerance_for_run(run, problem, input);
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
  if (!ready()) return;
  const cc::Filter filter = cc::load_filter_file(CONVCOMPARE_TEST_DATA "/filter_5x3.txt");
  const cc::Image input = random_image(45, 31, 2);
  const cc::Problem problem = cc::make_problem(input, filter, cc::Border::Mirror, false);
  const cc::BackendRun run = backend().run(problem, input, "fft", 0, quick_options());
  REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
  CHECK(run.fft_tolerance);
  CHECK(cc::tolerance_for_run(run, problem, input).value == cc::fft_tolerance_for(problem, input).value);
  CHECK(run.times.build_ms > 0);  // fft.cl and VkFFT's generated kernels
  CHECK(run.times.setup_ms > 0);  // the filter's spectrum
  CHECK(run.times.kernel_ms.samples == 2);
  CHECK(run.times.kernel_ms.min > 0);
  // An input and an output of two 45x31 planes, the padded buffer and the filter's spectrum
  // (50x35 padded), and a temporary as large on a device that cannot take a row in one pass.
  const cc::FftShape shape = cc::fft_shape(problem);
  CHECK(shape.padded_width == 50);
  CHECK(shape.padded_height == 35);
  CHECK(run.device_bytes >= 2 * 2 * 45 * 31 * 4 + 2 * shape.buffer_bytes());
  CHECK(run.device_bytes <= 2 * 2 * 45 * 31 * 4 + 3 * shape.buffer_bytes());
  CHECK(run.compile_time.find("VkFFT") != std::string::npos);
}
