// test_fft.cpp: CUDA's fft on a real device: the matrix, orientation, device memory, the unpadded path, and the product fused into cuFFT's transforms (LTO callbacks) or, where cuFFT will not plan them, the separate passes.
#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "backends/backend.h"
#include "common/domain/error.h"
#include "common/domain/filter.h"
#include "common/domain/reference.h"
#include "common/domain/validate.h"
#include "common/geometry/fft_shape.h"
#include "tests/support/backend_matrix.h"
#include "tests/support/fixtures.h"
#include "tests/cuda/cuda_suite.h"
#ifdef CONVCOMPARE_WITH_CUFFT
#include "backends/cuda/cuda_fft.h"
#include "backends/cuda/cuda_resources.h"
#endif

using cc::testing::cuda;
using cc::testing::quick_options;
using cc::testing::random_filter;
using cc::testing::random_image;

namespace {

#ifdef CONVCOMPARE_WITH_CUFFT
// One plane through a convolver made directly, against the reference (channel 0 of `input`).
cc::Validation convolve_once(cc::cuda::FftConvolver& convolver, const cc::Problem& problem, const cc::Image& input) {
  const std::size_t plane = static_cast<std::size_t>(input.width) * input.height;
  std::vector<float> pixels(plane), result(plane);
  for (std::size_t i = 0; i < plane; ++i) pixels[i] = input.data[i * input.channels];
  const cc::cuda::DeviceBuffer in(plane), out(plane);
  REQUIRE(cudaMemcpy(in.get(), pixels.data(), in.bytes(), cudaMemcpyHostToDevice) == cudaSuccess);
  convolver.convolve_plane(in.get(), out.get(), nullptr);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  REQUIRE(cudaMemcpy(result.data(), out.get(), out.bytes(), cudaMemcpyDeviceToHost) == cudaSuccess);
  cc::Image got(input.width, input.height, 1), single(input.width, input.height, 1);
  got.data = result;
  single.data = pixels;
  return cc::validate(got, cc::reference_convolve(single, problem), cc::testing::tolerance_of("fft", problem, single));
}
#endif

}  // namespace

#ifdef CONVCOMPARE_WITH_CUFFT
TEST_CASE("cuda: fft validates over the test matrix within its FFT bound") {
  CHECK(cc::testing::check_variant_matrix(cuda(), 0, "fft") > 0);
  CHECK(cc::testing::check_integer_exact(cuda(), 0, "fft") > 0);
}

TEST_CASE("cuda: fft orients the asymmetric 5x3 filter file as a correlation, and --flip as a convolution") {
  const cc::Filter filter = cc::load_filter_file(CONVCOMPARE_TEST_DATA "/filter_5x3.txt");
  const cc::Image input = random_image(37, 23, 2, 21);
  for (const cc::Border border : {cc::Border::Zero, cc::Border::Clamp, cc::Border::Mirror, cc::Border::Wrap}) {
    for (const bool flip : {false, true}) {
      INFO("border " << to_string(border) << (flip ? ", flip" : ""));
      const cc::Problem problem = cc::make_problem(input, filter, border, flip);
      const cc::BackendRun run = cuda().run(problem, input, "fft", 0, quick_options());
      REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
      const cc::Tolerance tolerance = cc::testing::tolerance_of("fft", problem, input);
      CHECK(tolerance.value == cc::fft_tolerance_for(problem, input).value);
      const cc::Validation right = cc::validate(run.output, cc::reference_convolve(input, problem), tolerance);
      CHECK_MESSAGE(right.passed, right.message());
      const cc::Problem mirrored = cc::make_problem(input, filter, border, !flip);
      CHECK(cc::validate(run.output, cc::reference_convolve(input, mirrored), tolerance).max_abs_error >
            100 * tolerance.value);
    }
  }
}

TEST_CASE("cuda: fft reports its device memory: two planes each way, the padded buffer, the spectrum, the work area") {
  const cc::Image input = random_image(45, 31, 2, 22);
  const cc::Filter filter = random_filter(5, 3, 23);
  const cc::Problem problem = cc::make_problem(input, filter, cc::Border::Mirror, false);
  const cc::BackendRun run = cuda().run(problem, input, "fft", 0, quick_options());
  REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
  const std::size_t buffers = 2 * 2 * 45 * 31 * sizeof(float) + 2 * cc::fft_shape(problem).buffer_bytes();
  CHECK(run.device_bytes >= buffers);
  CHECK(run.device_bytes < buffers + (64u << 20));  // cuFFT's work area for a 50x35 transform is small
  CHECK(run.compile_time.find("cuFFT real-to-complex and back at 50x35 padded") != std::string::npos);
  // The separate passes by default; with CONVCOMPARE_CUDA_FFT_CALLBACKS=1 the product and padding fused
  // (docs/performance.md, "fft: the product fused into the transforms"), or why cuFFT would not plan
  // them: never silent.
  const std::string fusion = cc::cuda::fft_fusion_text(cc::fft_shape(problem));
  if (cc::cuda::default_fft_fusion() == cc::cuda::FftFusion::Separate)
    CHECK(fusion == "fft_pad and fft_multiply passes");
  else
    CHECK((fusion == "the product (and padding) LTO callbacks" || fusion.starts_with("not fused: CUFFT_")));
  CHECK(run.compile_time.ends_with(", " + fusion));
  CHECK(run.times.setup_ms > 0);
}

TEST_CASE("cuda: fft takes even smooth images unpadded, every border exact with the edge bands redone") {
  struct Case {
    int width, height, channels, filter_width, filter_height;
  };
  // Rectangular images, non-square filters, several channels; filters just under the image (bands
  // nearly everywhere), one column (top and bottom bands only), one row (left and right only), and a
  // band taller than one 32-row block.
  const Case cases[] = {{40, 30, 2, 7, 3}, {48, 20, 1, 5, 11}, {24, 14, 1, 23, 13}, {32, 9, 1, 1, 7},
                        {36, 16, 3, 9, 1}, {256, 160, 1, 65, 81}};
  for (const Case& c : cases) {
    const cc::Image input = random_image(c.width, c.height, c.channels, 31);
    const cc::Filter filter = random_filter(c.filter_width, c.filter_height, 32);
    for (const cc::Border border : {cc::Border::Zero, cc::Border::Clamp, cc::Border::Mirror, cc::Border::Wrap}) {
      INFO(c.width << "x" << c.height << "x" << c.channels << " " << filter.spec << " border " << to_string(border));
      const cc::Problem problem = cc::make_problem(input, filter, border, false);
      const cc::FftShape shape = cc::fft_shape(problem);
      REQUIRE(shape.circular);
      const cc::BackendRun run = cuda().run(problem, input, "fft", 0, quick_options());
      REQUIRE_MESSAGE(run.status == cc::Status::Ok, run.reason);
      const cc::Tolerance tolerance = cc::testing::tolerance_of("fft", problem, input);
      const cc::Validation result = cc::validate(run.output, cc::reference_convolve(input, problem), tolerance);
      CHECK_MESSAGE(result.passed, result.message());
      CHECK(run.compile_time.find("at " + cc::fft_shape_text(shape)) != std::string::npos);
      const std::size_t buffers = 2 * input.data.size() * sizeof(float) + 2 * shape.buffer_bytes() +
                                  cc::fft_band_bytes(shape, problem.correlation_filter);
      CHECK(run.device_bytes >= buffers);
      CHECK(run.device_bytes < buffers + (64u << 20));
    }
  }
}

TEST_CASE("cuda: fft fuses the product (and padding) where cuFFT plans the callbacks, else runs separate passes") {
  // A padded shape and an unpadded one with edge bands (the cases above).
  struct Case {
    int width, height, filter_width, filter_height;
    cc::Border border;
  };
  for (const Case& c : {Case{45, 31, 5, 3, cc::Border::Mirror}, Case{40, 30, 7, 3, cc::Border::Clamp}}) {
    const cc::Image input = random_image(c.width, c.height, 1, 41);
    const cc::Problem problem =
        cc::make_problem(input, random_filter(c.filter_width, c.filter_height, 42), c.border, false);
    INFO(c.width << "x" << c.height << " at " << cc::fft_shape_text(cc::fft_shape(problem)));
    cc::cuda::FftConvolver separate(problem, nullptr, cc::cuda::FftFusion::Separate);
    CHECK_FALSE(separate.fused());
    CHECK(separate.library().not_fused() == "separate passes asked for");
    const cc::Validation separate_result = convolve_once(separate, problem, input);
    CHECK_MESSAGE(separate_result.passed, separate_result.message());

    cc::cuda::FftConvolver tried(problem, nullptr, cc::cuda::FftFusion::Callbacks);
    const std::string fusion = cc::cuda::fft_fusion_text(tried.shape());
    if (tried.fused()) {
      CHECK(fusion == "the product (and padding) LTO callbacks");
      CHECK(tried.library_bytes() >= sizeof(float));  // the callbacks' parameters, at least
    } else {
      // cuFFT refused a callback: the fallback (the separate passes) ran, and the report says why.
      MESSAGE("cuFFT did not fuse: " << tried.library().not_fused());
      CHECK(tried.library().not_fused().starts_with("CUFFT_"));
      CHECK(fusion == "not fused: " + tried.library().not_fused() + "; fft_pad and fft_multiply passes");
    }
    const cc::Validation tried_result = convolve_once(tried, problem, input);
    CHECK_MESSAGE(tried_result.passed, tried_result.message());
    CHECK(tried_result.max_abs_error < 1e-3);
    CHECK(separate_result.max_abs_error < 1e-3);
  }
}
#else
TEST_CASE("cuda: without cuFFT at build time fft is reported as skipped") {
  const cc::Image input = random_image(16, 16, 1, 11);
  const cc::BackendRun run = cuda().run(cc::make_problem(input, random_filter(3, 3, 12), cc::Border::Zero, false),
                                        input, "fft", 0, quick_options());
  CHECK(run.status == cc::Status::Skipped);
  CHECK(run.reason == "cuFFT not found at build time");
}
#endif
