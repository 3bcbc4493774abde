// fft_shape.h: the `fft` variant's transform size, path and filter placements, the same in both APIs.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/domain/filter.h"
#include "common/domain/problem.h"

namespace cc {

// How one plane goes through the frequency domain. Two paths:
//  - unpadded (circular): when the image is itself a fast transform size and larger than the filter,
//    the transform runs at exactly width x height, out of place from the input plane into a half
//    spectrum and back into the output plane. The product of spectra is then the wrap-border
//    correlation; for the other borders a direct kernel recomputes the edge bands (the pixels within
//    radius_x columns / radius_y rows of an edge, whose taps wrapped). Padding by the radius would
//    leave the fast sizes: cuFFT takes twice as long at 8400^2 as at 8192^2.
//  - padded: otherwise the plane is padded to a fast size >= the image plus its apron on every side,
//    filled by the border rule, zeros beyond, so the linear correlation fits without wrap-around; it is
//    transformed in place, so each real row is 2 * (transform_width / 2 + 1) floats long.
struct FftShape {
  int transform_width = 0;   // even and 2,3,5,7-smooth
  int transform_height = 0;  // 2,3,5,7-smooth, >= 2
  bool circular = false;     // the unpadded path
  bool edge_bands = false;   // circular and a border other than wrap, with a radius: bands redone directly
  int real_pitch = 0;        // floats from one real row to the next: the image's pitch, or the in-place row
  int complex_width() const { return transform_width / 2 + 1; }
  std::size_t complex_count() const { return static_cast<std::size_t>(complex_width()) * transform_height; }
  // The spectrum buffer (padded path: the real data too, in place).
  std::size_t buffer_floats() const { return 2 * complex_count(); }
  std::size_t buffer_bytes() const { return buffer_floats() * sizeof(float); }
  std::size_t real_floats() const { return static_cast<std::size_t>(real_pitch) * transform_height; }
};

// The smallest integer >= `needed` (and >= 1) with no prime factor above 7: the lengths cuFFT and
// VkFFT transform fastest, at most a few percent longer than `needed` for sizes that matter.
int fft_smooth_length(int needed);

// The path and size for a problem. The transform width is always even: VkFFT's real-to-complex
// transform takes no odd length once a row needs more than one pass through shared memory.
FftShape fft_shape(const Problem& problem);

// "8192x8192 unpadded, edge bands direct" or "8400x8400 padded": the report's note on the path taken.
std::string fft_shape_text(const FftShape& shape);

// Whether the inverse transform divides by transform_width * transform_height itself: cuFFT's never
// does; VkFFT's convolution always divides by the last axis's length, so the OpenCL path asks it for
// the whole normalization (backends/opencl/opencl_fft.h).
enum class FftInverse { Unnormalized, Normalized };

// The real data (transform_height rows of real_pitch floats) whose forward transform is the spectrum
// a plane's spectrum is multiplied by. The correlation filter is stored reversed, tap (i, j) at
// (-i mod transform_width, -j mod transform_height), so the product of spectra computes a correlation
// (a plain product of spectra is a convolution); and, for an unnormalized inverse, it is scaled by
// 1 / (transform_width * transform_height).
std::vector<float> fft_filter_buffer(const Filter& correlation_filter, const FftShape& shape,
                                     FftInverse inverse = FftInverse::Unnormalized);

// The edge-band kernels (fft_bands in kernels_cuda/fft.cu and kernels_cl/fft.cl): each thread computes
// this many outputs down one column, and a block of block_x x block_y threads covers block_x columns
// and block_y * kFftBandRows rows of one band. The kernels' own constant must match.
inline constexpr int kFftBandRows = 8;

// Their coefficients: column fx of the correlation filter at [fx * column_length + 8, ...), with 8
// zeros before and at least 8 after, so that a thread reading 16 coefficients from any chunk of 8
// input rows gets zero for every filter row outside the filter, and needs no bounds test.
int fft_band_column_length(int filter_height);
std::vector<float> fft_band_coefficients(const Filter& correlation_filter);
// Their device memory: 0 when the shape has no edge bands.
std::size_t fft_band_bytes(const FftShape& shape, const Filter& correlation_filter);

// Blocks of one edge-band launch: top and bottom bands (radius_y rows, full width), then left and
// right (radius_x columns, the rows between), each cut into blocks as above, in that order.
int fft_band_blocks(const ConvArgs& args, int block_x, int block_y);

}  // namespace cc
