// fft_shape.cpp: FFT lengths and path, the reversed, wrapped, scaled filter and the edge-band coefficients of `fft`.
#include "common/geometry/fft_shape.h"

#include <algorithm>

#include <fmt/format.h>

namespace cc {

namespace {

bool is_smooth(int length) {
  if (length < 1) return false;
  for (int prime : {2, 3, 5, 7})
    while (length % prime == 0) length /= prime;
  return length == 1;
}

int blocks_over(int length, int block) { return length <= 0 ? 0 : (length + block - 1) / block; }

}  // namespace

int fft_smooth_length(int needed) {
  int length = std::max(needed, 1);
  while (!is_smooth(length)) ++length;
  return length;
}

FftShape fft_shape(const Problem& problem) {
  FftShape shape;
  const int width = problem.width, height = problem.height;
  const int radius_x = problem.radius_x(), radius_y = problem.radius_y();
  // Larger than the filter, or the bands would be the whole image; at least 2 high, as VkFFT takes no
  // transform of length 1.
  if (is_smooth(width) && width % 2 == 0 && is_smooth(height) && height >= 2 && width > 2 * radius_x &&
      height > 2 * radius_y) {
    shape.transform_width = width;
    shape.transform_height = height;
    shape.circular = true;
    shape.edge_bands = problem.border != Border::Wrap && (radius_x > 0 || radius_y > 0);
    shape.real_pitch = problem.conv_args().pitch;
    return shape;
  }
  int padded_width = fft_smooth_length(std::max(width + 2 * radius_x, 2));
  while (padded_width % 2 != 0) padded_width = fft_smooth_length(padded_width + 1);
  shape.transform_width = padded_width;
  shape.transform_height = fft_smooth_length(std::max(height + 2 * radius_y, 2));
  shape.real_pitch = 2 * shape.complex_width();
  return shape;
}

std::string fft_shape_text(const FftShape& shape) {
  if (!shape.circular) return fmt::format("{}x{} padded", shape.transform_width, shape.transform_height);
  return fmt::format("{}x{} unpadded{}", shape.transform_width, shape.transform_height,
                     shape.edge_bands ? ", edge bands direct" : "");
}

std::vector<float> fft_filter_buffer(const Filter& correlation_filter, const FftShape& shape, FftInverse inverse) {
  std::vector<float> buffer(shape.real_floats(), 0.0f);
  const double scale = inverse == FftInverse::Normalized
                           ? 1.0
                           : 1.0 / (static_cast<double>(shape.transform_width) * shape.transform_height);
  const int radius_x = correlation_filter.radius_x(), radius_y = correlation_filter.radius_y();
  for (int fy = 0; fy < correlation_filter.height; ++fy)
    for (int fx = 0; fx < correlation_filter.width; ++fx) {
      // Tap (fx, fy) reads the pixel at offset (fx - radius_x, fy - radius_y): stored at minus that offset.
      const int x = cc_border_index(radius_x - fx, shape.transform_width, CC_BORDER_WRAP);
      const int y = cc_border_index(radius_y - fy, shape.transform_height, CC_BORDER_WRAP);
      buffer[static_cast<std::size_t>(y) * shape.real_pitch + x] =
          static_cast<float>(correlation_filter.at(fy, fx) * scale);
    }
  return buffer;
}

int fft_band_column_length(int filter_height) {
  // A thread reads filter_height + kFftBandRows - 1 input rows in chunks of kFftBandRows, and from the
  // last chunk's start 2 * kFftBandRows coefficients.
  const int chunks = (filter_height + 2 * kFftBandRows - 2) / kFftBandRows;
  return (chunks + 1) * kFftBandRows;
}

std::vector<float> fft_band_coefficients(const Filter& correlation_filter) {
  const int column_length = fft_band_column_length(correlation_filter.height);
  std::vector<float> coefficients(static_cast<std::size_t>(column_length) * correlation_filter.width, 0.0f);
  for (int fy = 0; fy < correlation_filter.height; ++fy)
    for (int fx = 0; fx < correlation_filter.width; ++fx)
      coefficients[static_cast<std::size_t>(fx) * column_length + kFftBandRows + fy] = correlation_filter.at(fy, fx);
  return coefficients;
}

std::size_t fft_band_bytes(const FftShape& shape, const Filter& correlation_filter) {
  if (!shape.edge_bands) return 0;
  return static_cast<std::size_t>(fft_band_column_length(correlation_filter.height)) * correlation_filter.width *
         sizeof(float);
}

int fft_band_blocks(const ConvArgs& args, int block_x, int block_y) {
  const int block_rows = block_y * kFftBandRows;
  const int top_and_bottom = blocks_over(args.width, block_x) * blocks_over(args.radius_y, block_rows);
  const int left_and_right =
      blocks_over(args.radius_x, block_x) * blocks_over(args.height - 2 * args.radius_y, block_rows);
  return 2 * top_and_bottom + 2 * left_and_right;
}

}  // namespace cc
