// test_fft_convolver.cpp: FftConvolver's steps on each path and for each place of the product, over a library that records them (the sequence CUDA and OpenCL both run).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "backends/fft_convolver.h"
#include "common/geometry/fft_shape.h"
#include "tests/support/fixtures.h"

namespace {

// An FftLibrary whose buffers and planes are numbers: the convolver's allocations are 1 (the spectrum),
// 2 (the filter's spectrum) and 3 (the edge bands' coefficients); the tests' plane is 100 in, 200 out.
// Each step is one line, in `setup` or in the plane's queue.
struct FftConvolverRecorder {
  using Buffer = int;
  using Input = int;
  using Output = int;
  using Queue = std::vector<std::string>&;

  FftConvolverRecorder(cc::FftProduct product, std::vector<std::string>& setup) : product(product), setup(setup) {}

  static int data(const int& buffer) { return buffer; }
  int allocate(std::size_t) { return ++allocated; }
  int constants(const std::vector<float>& values) {
    setup.push_back(fmt::format("constants {}", values.size()));
    return ++allocated;
  }
  cc::FftProduct plan(const cc::FftShape&, const ConvArgs&, int filter_spectrum) {
    setup.push_back(fmt::format("plan, the filter's spectrum in {}", filter_spectrum));
    return product;
  }
  void write(int target, const std::vector<float>& values) {
    written = values;
    setup.push_back(fmt::format("write {}", target));
  }
  void forward_filter(int real, int spectrum) { setup.push_back(fmt::format("forward {}->{}", real, spectrum)); }
  void finish() { setup.push_back("finish"); }
  std::size_t bytes() const { return 7; }
  cc::GroupShape band_group() const { return {16, 2}; }
  void forward(int real, int spectrum, Queue queue) { queue.push_back(fmt::format("forward {}->{}", real, spectrum)); }
  void inverse(int spectrum, int real, Queue queue) { queue.push_back(fmt::format("inverse {}->{}", spectrum, real)); }
  void fused_transforms(int real, int spectrum, int filter_spectrum, int result, Queue queue) {
    queue.push_back(fmt::format("fused {}->{}*{}->{}", real, spectrum, filter_spectrum, result));
  }
  void pad(int in, int padded, const ConvArgs& args, int height, int pitch, Queue queue) {
    queue.push_back(fmt::format("pad {}->{} apron {}x{}, {} rows of {}", in, padded, args.radius_x, args.radius_y,
                                height, pitch));
  }
  void multiply(int spectrum, int filter_spectrum, int count, Queue queue) {
    queue.push_back(fmt::format("multiply {}*{} {}", spectrum, filter_spectrum, count));
  }
  void crop(int padded, int out, const ConvArgs& args, int pitch, Queue queue) {
    queue.push_back(fmt::format("crop {}->{} apron {}x{}, rows of {}", padded, out, args.radius_x, args.radius_y, pitch));
  }
  void bands(int in, int out, int coefficients, int column_length, const ConvArgs& args, int blocks, Queue queue) {
    queue.push_back(fmt::format("bands {}->{} coefficients {} of {} rows, {} blocks, apron {}x{}", in, out, coefficients,
                                column_length, blocks, args.radius_x, args.radius_y));
  }
  void mark(Queue queue) const { queue.push_back("mark"); }

  cc::FftProduct product;
  std::vector<std::string>& setup;
  std::vector<float> written;  // the filter's placement
  int allocated = 0;
};

struct FftConvolverSteps {
  std::vector<std::string> setup, plane;
  std::vector<float> filter_written;
  bool fused = false;
  std::size_t library_bytes = 0;
};

FftConvolverSteps fft_convolver_steps(const cc::Problem& problem, cc::FftProduct product) {
  FftConvolverSteps steps;
  cc::FftConvolver<FftConvolverRecorder> convolver(problem, product, steps.setup);
  convolver.convolve_plane(100, 200, steps.plane);
  steps.filter_written = convolver.library().written;
  steps.fused = convolver.fused();
  steps.library_bytes = convolver.library_bytes();
  return steps;
}

cc::Problem fft_convolver_problem(int width, int height, int filter_width, int filter_height, cc::Border border) {
  return cc::make_problem(cc::testing::random_image(width, height, 1, 61),
                          cc::testing::random_filter(filter_width, filter_height, 62), border, false);
}

}  // namespace

TEST_CASE("fft convolver: unpadded, the transforms from the input plane into the output plane, then the edge bands") {
  const cc::Problem problem = fft_convolver_problem(40, 30, 7, 3, cc::Border::Zero);
  const cc::FftShape shape = cc::fft_shape(problem);
  REQUIRE(shape.circular);
  REQUIRE(shape.edge_bands);
  const int blocks = cc::fft_band_blocks(problem.conv_args(), 16, 2);
  CHECK(blocks > 0);
  const std::string bands = fmt::format("bands 100->200 coefficients 3 of {} rows, {} blocks, apron 3x1",
                                        cc::fft_band_column_length(3), blocks);
  // The filter's placement goes through the spectrum buffer (larger than a plane) into its spectrum.
  const std::vector<std::string> setup = {"plan, the filter's spectrum in 2", "write 1", "forward 1->2",
                                          fmt::format("constants {}", cc::fft_band_coefficients(problem.correlation_filter).size()),
                                          "finish"};
  const std::string multiply = fmt::format("multiply 1*2 {}", 21 * 30);

  const FftConvolverSteps pass = fft_convolver_steps(problem, cc::FftProduct::Pass);
  CHECK(pass.setup == setup);
  CHECK(pass.plane == std::vector<std::string>{"mark", "forward 100->1", multiply, "inverse 1->200", bands});
  CHECK(pass.filter_written == cc::fft_filter_buffer(problem.correlation_filter, shape, cc::FftInverse::Unnormalized));
  CHECK_FALSE(pass.fused);
  CHECK(pass.library_bytes == 7);

  const FftConvolverSteps callbacks = fft_convolver_steps(problem, cc::FftProduct::Callbacks);
  CHECK(callbacks.setup == setup);
  CHECK(callbacks.plane == std::vector<std::string>{"mark", "fused 100->1*2->200", bands});
  CHECK(callbacks.filter_written == pass.filter_written);
  CHECK(callbacks.fused);

  // VkFFT's convolution leaves the result in the spectrum buffer's real rows, cropped out with no apron,
  // and normalizes its inverse itself.
  const FftConvolverSteps convolution = fft_convolver_steps(problem, cc::FftProduct::Convolution);
  CHECK(convolution.setup == setup);
  CHECK(convolution.plane ==
        std::vector<std::string>{"mark", "fused 100->1*2->1", "crop 1->200 apron 0x0, rows of 42", bands});
  CHECK(convolution.filter_written ==
        cc::fft_filter_buffer(problem.correlation_filter, shape, cc::FftInverse::Normalized));
  CHECK(convolution.filter_written != pass.filter_written);
  CHECK(convolution.fused);
}

TEST_CASE("fft convolver: unpadded with a wrap border, no edge bands: a mark ends a plane whose last step is a transform") {
  const cc::Problem problem = fft_convolver_problem(40, 30, 7, 3, cc::Border::Wrap);
  REQUIRE(cc::fft_shape(problem).circular);
  REQUIRE_FALSE(cc::fft_shape(problem).edge_bands);
  const FftConvolverSteps pass = fft_convolver_steps(problem, cc::FftProduct::Pass);
  CHECK(pass.setup == std::vector<std::string>{"plan, the filter's spectrum in 2", "write 1", "forward 1->2", "finish"});
  CHECK(pass.plane == std::vector<std::string>{"mark", "forward 100->1", "multiply 1*2 630", "inverse 1->200", "mark"});
  CHECK(fft_convolver_steps(problem, cc::FftProduct::Callbacks).plane ==
        std::vector<std::string>{"mark", "fused 100->1*2->200", "mark"});
  CHECK(fft_convolver_steps(problem, cc::FftProduct::Convolution).plane ==
        std::vector<std::string>{"mark", "fused 100->1*2->1", "crop 1->200 apron 0x0, rows of 42"});
}

TEST_CASE("fft convolver: padded, pad into the spectrum buffer, transforms in place, crop; cuFFT's callbacks pad in the forward transform") {
  const cc::Problem problem = fft_convolver_problem(45, 31, 5, 3, cc::Border::Mirror);
  const cc::FftShape shape = cc::fft_shape(problem);
  REQUIRE_FALSE(shape.circular);
  REQUIRE(shape.transform_width == 50);
  REQUIRE(shape.transform_height == 35);
  REQUIRE(shape.real_pitch == 52);
  // The filter's placement is transformed in place in its own buffer.
  const std::vector<std::string> setup = {"plan, the filter's spectrum in 2", "write 2", "forward 2->2", "finish"};
  const std::string pad = "pad 100->1 apron 2x1, 35 rows of 52";
  const std::string crop = "crop 1->200 apron 2x1, rows of 52";

  const FftConvolverSteps pass = fft_convolver_steps(problem, cc::FftProduct::Pass);
  CHECK(pass.setup == setup);
  CHECK(pass.plane == std::vector<std::string>{pad, "forward 1->1", "multiply 1*2 910", "inverse 1->1", crop});
  CHECK(pass.filter_written == cc::fft_filter_buffer(problem.correlation_filter, shape, cc::FftInverse::Unnormalized));

  // The forward transform reads the input plane itself, its padding callback applying the border rule.
  const FftConvolverSteps callbacks = fft_convolver_steps(problem, cc::FftProduct::Callbacks);
  CHECK(callbacks.setup == setup);
  CHECK(callbacks.plane == std::vector<std::string>{"fused 100->1*2->1", crop});

  const FftConvolverSteps convolution = fft_convolver_steps(problem, cc::FftProduct::Convolution);
  CHECK(convolution.setup == setup);
  CHECK(convolution.plane == std::vector<std::string>{pad, "fused 1->1*2->1", crop});
  CHECK(convolution.filter_written ==
        cc::fft_filter_buffer(problem.correlation_filter, shape, cc::FftInverse::Normalized));
}
