// fft_shape.cpp: padded FFT lengths and the reversed, wrapped, scaled filter of the `fft` variant.
#include "common/fft_shape.h"

#include <algorithm>

namespace cc {

namespace {

bool is_smooth(int length) {
  for (int prime : {2, 3, 5, 7})
    while (length % prime == 0) length /= prime;
  return length == 1;
}

// Python-style modulo: the index a negative offset wraps to.
int wrap(int i, int n) { return ((i % n) + n) % n; }

}  // namespace

int fft_smooth_length(int needed) {
  int length = std::max(needed, 1);
  while (!is_smooth(length)) ++length;
  return length;
}

FftShape fft_shape(const Problem& problem) {
  FftShape shape;
  // At least 2 both ways: VkFFT takes no transform of length 1 (a 1-pixel image with radius 0).
  int width = fft_smooth_length(std::max(problem.width + 2 * problem.radius_x(), 2));
  while (width % 2 != 0) width = fft_smooth_length(width + 1);
  shape.padded_width = width;
  shape.padded_height = fft_smooth_length(std::max(problem.height + 2 * problem.radius_y(), 2));
  return shape;
}

std::vector<float> fft_filter_buffer(const Filter& correlation_filter, const FftShape& shape) {
  std::vector<float> buffer(shape.buffer_floats(), 0.0f);
  const double scale = 1.0 / (static_cast<double>(shape.padded_width) * shape.padded_height);
  const int radius_x = correlation_filter.radius_x(), radius_y = correlation_filter.radius_y();
  for (int fy = 0; fy < correlation_filter.height; ++fy)
    for (int fx = 0; fx < correlation_filter.width; ++fx) {
      // Tap (fx, fy) reads the pixel at offset (fx - radius_x, fy - radius_y): stored at minus that offset.
      const int x = wrap(radius_x - fx, shape.padded_width), y = wrap(radius_y - fy, shape.padded_height);
      buffer[static_cast<std::size_t>(y) * shape.real_pitch() + x] =
          static_cast<float>(correlation_filter.at(fy, fx) * scale);
    }
  return buffer;
}

}  // namespace cc
