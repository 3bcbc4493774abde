// test_fft_shape.cpp: the fft variant's path and sizes, its reversed, wrapped, scaled filter placement and edge bands.
#include <doctest/doctest.h>

#include <cmath>

#include "common/geometry/fft_shape.h"

namespace {

cc::Problem numbered_problem(int width, int height, int filter_width, int filter_height,
                       cc::Border border = cc::Border::Zero) {
  const cc::Image image(width, height, 1);
  cc::Filter filter{"test", filter_width, filter_height, {}};
  for (int i = 0; i < filter_width * filter_height; ++i) filter.weights.push_back(static_cast<float>(i + 1));
  return cc::make_problem(image, filter, border, false);
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

TEST_CASE("fft: an even smooth image larger than the filter is transformed at its own size, out of place") {
  const cc::FftShape large = cc::fft_shape(numbered_problem(8192, 8192, 65, 65));
  CHECK(large.circular);
  CHECK(large.edge_bands);
  CHECK(large.transform_width == 8192);
  CHECK(large.transform_height == 8192);
  CHECK(large.complex_width() == 4097);
  CHECK(large.real_pitch == 8192);  // the image's rows
  CHECK(large.buffer_floats() == 2u * 4097u * 8192u);
  CHECK(cc::fft_shape_text(large) == "8192x8192 unpadded, edge bands direct");

  const cc::FftShape wrap = cc::fft_shape(numbered_problem(320, 168, 5, 9, cc::Border::Wrap));
  CHECK(wrap.circular);
  CHECK_FALSE(wrap.edge_bands);  // the transform's wrap-around is the border rule
  CHECK(cc::fft_shape_text(wrap) == "320x168 unpadded");
  CHECK_FALSE(cc::fft_shape(numbered_problem(320, 168, 1, 1)).edge_bands);  // no radius, no band
  CHECK(cc::fft_shape(numbered_problem(320, 15, 1, 3)).circular);          // odd height is fine
}

TEST_CASE("fft: other images are padded: odd or unsmooth widths, filters as large as the image") {
  const cc::FftShape large = cc::fft_shape(numbered_problem(8190, 8192, 65, 65));  // 8190 = 2 * 3^2 * 5 * 7 * 13
  CHECK_FALSE(large.circular);
  CHECK_FALSE(large.edge_bands);
  CHECK(large.transform_width == 8400);
  CHECK(large.transform_height == 8400);
  CHECK(large.complex_width() == 4201);
  CHECK(large.real_pitch == 8402);
  CHECK(large.buffer_floats() == 8402u * 8400u);
  CHECK(cc::fft_shape_text(large) == "8400x8400 padded");

  const cc::FftShape odd = cc::fft_shape(numbered_problem(7, 5, 3, 7));  // needs 9 x 11
  CHECK_FALSE(odd.circular);
  CHECK(odd.transform_width == 10);   // 9 is smooth but odd
  CHECK(odd.transform_height == 12);  // 11 is prime
  const cc::FftShape pixel = cc::fft_shape(numbered_problem(1, 1, 1, 1));
  CHECK(pixel.transform_width == 2);
  CHECK(pixel.transform_height == 2);
  const cc::FftShape wide_filter = cc::fft_shape(numbered_problem(1, 1, 65, 3));  // radius far over the image
  CHECK(wide_filter.transform_width == 70);
  CHECK(wide_filter.transform_height == 3);
  CHECK_FALSE(cc::fft_shape(numbered_problem(64, 64, 65, 3)).circular);  // 64 = 2 * radius_x: all band
  CHECK(cc::fft_shape(numbered_problem(70, 64, 65, 3)).circular);
  CHECK_FALSE(cc::fft_shape(numbered_problem(64, 1, 3, 1)).circular);  // VkFFT takes no length 1
}

TEST_CASE("fft: the filter is stored reversed around (0, 0), wrapped, scaled by 1 / (width * height)") {
  const cc::Problem problem = numbered_problem(5, 3, 3, 3);  // weights 1..9 row by row, radius 1
  const cc::FftShape shape = cc::fft_shape(problem);
  REQUIRE(shape.transform_width == 8);
  REQUIRE(shape.transform_height == 5);
  const std::vector<float> buffer = cc::fft_filter_buffer(problem.correlation_filter, shape);
  REQUIRE(buffer.size() == shape.buffer_floats());
  const auto at = [&](int x, int y) { return buffer[static_cast<std::size_t>(y) * shape.real_pitch + x] * 40.0f; };
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

TEST_CASE("fft: on the unpadded path the filter is placed in the image's own rows, scaled by 1 / (W * H)") {
  const cc::Problem problem = numbered_problem(6, 4, 3, 3);  // weights 1..9, radius 1
  const cc::FftShape shape = cc::fft_shape(problem);
  REQUIRE(shape.circular);
  const std::vector<float> buffer = cc::fft_filter_buffer(problem.correlation_filter, shape);
  REQUIRE(buffer.size() == 6u * 4u);
  const auto at = [&](int x, int y) { return buffer[static_cast<std::size_t>(y) * 6 + x] * 24.0f; };
  CHECK(at(0, 0) == doctest::Approx(5));
  CHECK(at(1, 1) == doctest::Approx(1));
  CHECK(at(5, 3) == doctest::Approx(9));
  CHECK(at(5, 0) == doctest::Approx(6));  // offset (+1, 0)
}

TEST_CASE("fft: for an inverse that normalizes itself (VkFFT's convolution) the filter is placed unscaled") {
  const cc::Problem problem = numbered_problem(6, 4, 3, 3);  // weights 1..9, radius 1
  const cc::FftShape shape = cc::fft_shape(problem);
  const std::vector<float> scaled = cc::fft_filter_buffer(problem.correlation_filter, shape);
  const std::vector<float> unscaled =
      cc::fft_filter_buffer(problem.correlation_filter, shape, cc::FftInverse::Normalized);
  REQUIRE(unscaled.size() == scaled.size());
  CHECK(unscaled[0] == doctest::Approx(5));
  CHECK(unscaled[1 * 6 + 1] == doctest::Approx(1));
  CHECK(unscaled[3 * 6 + 5] == doctest::Approx(9));
  for (std::size_t i = 0; i < scaled.size(); ++i) CHECK(unscaled[i] == doctest::Approx(scaled[i] * 24.0f));
}

TEST_CASE("fft: edge-band coefficients are the filter's columns with zeros around, and the bands' block count") {
  const cc::Problem problem = numbered_problem(40, 30, 3, 5);  // weights 1..15 row by row
  // A thread reads 5 + 7 = 12 input rows in 2 chunks, 16 coefficients from the second's start (8).
  CHECK(cc::fft_band_column_length(5) == 24);
  CHECK(cc::fft_band_column_length(1) == 16);
  CHECK(cc::fft_band_column_length(65) == 80);
  const std::vector<float> coefficients = cc::fft_band_coefficients(problem.correlation_filter);
  REQUIRE(coefficients.size() == 3u * 24u);
  CHECK(coefficients[0 * 24 + 8] == 1);      // (fy 0, fx 0)
  CHECK(coefficients[2 * 24 + 8 + 4] == 15);  // (fy 4, fx 2)
  CHECK(coefficients[1 * 24 + 8 + 2] == 8);   // (fy 2, fx 1)
  double sum = 0;
  for (float value : coefficients) sum += value;
  CHECK(sum == 120);  // nothing else written: 1 + ... + 15
  CHECK(cc::fft_band_bytes(cc::fft_shape(problem), problem.correlation_filter) == 3u * 24u * 4u);
  CHECK(cc::fft_band_bytes(cc::fft_shape(numbered_problem(7, 5, 3, 3)), problem.correlation_filter) == 0);

  // 40x30, radius 1 x 2, blocks of 32 x 4 threads (32 columns, 32 rows): top and bottom 2 x 1 blocks
  // each, left and right (1 column, 26 rows) 1 each.
  const ConvArgs args = problem.conv_args();
  CHECK(cc::fft_band_blocks(args, 32, 4) == 6);
  CHECK(cc::fft_band_blocks(args, 8, 1) == 2 * 5 * 1 + 2 * 1 * 4);
  // 8192^2 at radius 32: 256 blocks each for top and bottom, 254 for left and right.
  CHECK(cc::fft_band_blocks(numbered_problem(8192, 8192, 65, 65).conv_args(), 32, 4) == 2 * 256 + 2 * 254);
}
