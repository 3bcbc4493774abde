// fft_shape.h: the `fft` variant's padded transform size and filter placement, the same in both APIs.
#pragma once

#include <cstddef>
#include <vector>

#include "common/filter.h"
#include "common/problem.h"

namespace cc {

// One plane is convolved in a padded real buffer of padded_width x padded_height: the image with an
// apron of radius_x / radius_y on every side (filled by the border rule), zeros beyond. A linear
// correlation fits in it without wrap-around, so every border mode comes out exact. The buffer is
// transformed in place (real to complex and back), so each row holds padded_width / 2 + 1 complex
// numbers: 2 * (padded_width / 2 + 1) floats, the last one or two unused by the real data.
struct FftShape {
  int padded_width = 0;   // even and 2,3,5,7-smooth, >= width + 2 * radius_x and >= 2
  int padded_height = 0;  // 2,3,5,7-smooth, >= height + 2 * radius_y and >= 2
  int complex_width() const { return padded_width / 2 + 1; }
  int real_pitch() const { return 2 * complex_width(); }  // floats from one row to the next
  std::size_t complex_count() const { return static_cast<std::size_t>(complex_width()) * padded_height; }
  std::size_t buffer_floats() const { return 2 * complex_count(); }
  std::size_t buffer_bytes() const { return buffer_floats() * sizeof(float); }
};

// The smallest integer >= `needed` (and >= 1) with no prime factor above 7: the lengths cuFFT and
// VkFFT transform fastest, at most a few percent longer than `needed` for sizes that matter.
int fft_smooth_length(int needed);

// The padded size for a problem. The width is also even: VkFFT's real-to-complex transform takes
// no odd length once a row needs more than one pass through shared memory.
FftShape fft_shape(const Problem& problem);

// The real buffer (padded_height rows of real_pitch floats) whose forward transform is the spectrum
// a plane's spectrum is multiplied by. The correlation filter is stored reversed, tap (i, j) at
// (-i mod padded_width, -j mod padded_height), so the product of spectra computes a correlation
// (a plain product of spectra is a convolution); and it is scaled by 1 / (padded_width *
// padded_height), because neither library normalizes its inverse transform.
std::vector<float> fft_filter_buffer(const Filter& correlation_filter, const FftShape& shape);

}  // namespace cc
