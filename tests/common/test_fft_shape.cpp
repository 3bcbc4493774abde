// test_fft_shape.cpp: the fft variant's padded sizes and its reversed, wrapped, scaled filter placement.
#include <doctest/doctest.h>

#include <cmath>

#include "common/fft_shape.h"

namespace {

cc::Problem problem_of(int width, int height, int filter_width, int filter_height) {
  const cc::Image image(width, height, 1);
  cc::Filter filter{"test", filter_width, filter_height, {}};
  for (int i = 0; i < filter_width * filter_height; ++i) filter.weights.push_back(static_cast<float>(i + 1));
  return cc::make_problem(image, filter, cc::Border::Zero, false);
}

}  // namespace

TEST_CASE("fft: smooth lengths have no prime factor above 7") {
  CHECK(cc::fft_smooth_length(0) == 1);
  CHECK(cc::fft_smooth_length(1) == 1);
  CHECK(cc::fft_smooth_length(11) == 12);
  CHECK(cc::fft_smooth_length(13) == 14);
  CHECK(cc::fft_smooth_length(17) == 18);
  CHECK(cc::fft_smooth_length(8192) == 8192);
  CHECK(cc::fft_smooth_length(8256) == 8400);  // 8192 + 2 * 32 = 2^6 * 3 * 43; 8400 = 2^4 * 3 * 5^2 * 7
}

TEST_CASE("fft: the padded size holds the image and its apron, even wide, at least 2x2") {
  const cc::FftShape large = cc::fft_shape(problem_of(8192, 8192, 65, 65));
  CHECK(large.padded_width == 8400);
  CHECK(large.padded_height == 8400);
  CHECK(large.complex_width() == 4201);
  CHECK(large.real_pitch() == 8402);
  CHECK(large.buffer_floats() == 8402u * 8400u);

  const cc::FftShape odd = cc::fft_shape(problem_of(7, 5, 3, 7));  // needs 9 x 11
  CHECK(odd.padded_width == 10);   // 9 is smooth but odd
  CHECK(odd.padded_height == 12);  // 11 is prime
  const cc::FftShape pixel = cc::fft_shape(problem_of(1, 1, 1, 1));
  CHECK(pixel.padded_width == 2);
  CHECK(pixel.padded_height == 2);
  const cc::FftShape wide_filter = cc::fft_shape(problem_of(1, 1, 65, 3));  // radius far over the image
  CHECK(wide_filter.padded_width == 70);
  CHECK(wide_filter.padded_height == 3);
}

TEST_CASE("fft: the filter is stored reversed around (0, 0), wrapped, scaled by 1 / (width * height)") {
  const cc::Problem problem = problem_of(5, 3, 3, 3);  // weights 1..9 row by row, radius 1
  const cc::FftShape shape = cc::fft_shape(problem);
  REQUIRE(shape.padded_width == 8);
  REQUIRE(shape.padded_height == 5);
  const std::vector<float> buffer = cc::fft_filter_buffer(problem.correlation_filter, shape);
  REQUIRE(buffer.size() == shape.buffer_floats());
  const auto at = [&](int x, int y) { return buffer[static_cast<std::size_t>(y) * shape.real_pitch() + x] * 40.0f; };
  // Tap (fx, fy) reads offset (fx - 1, fy - 1) and sits at minus that offset: the centre at (0, 0),
  // the top-left tap (weight 1, offset (-1, -1)) at (1, 1), the bottom-right (weight 9) at (-1, -1).
  CHECK(at(0, 0) == doctest::Approx(5));
  CHECK(at(1, 1) == doctest::Approx(1));
  CHECK(at(7, 4) == doctest::Approx(9));
  CHECK(at(1, 0) == doctest::Approx(4));  // offset (-1, 0)
  CHECK(at(0, 4) == doctest::Approx(8));  // offset (0, +1)
  double sum = 0;
  for (float value : buffer) sum += value;
  CHECK(sum * 40 == doctest::Approx(45));  // nothing else written: 1 + ... + 9
}
