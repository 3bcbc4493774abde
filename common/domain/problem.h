// problem.h: one convolution problem: image shape, filter as applied, border mode, flip.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/geometry/conv_args.h"
#include "common/domain/filter.h"
#include "common/domain/image.h"

namespace cc {

enum class Border { Zero = CC_BORDER_ZERO, Clamp = CC_BORDER_CLAMP, Mirror = CC_BORDER_MIRROR, Wrap = CC_BORDER_WRAP };

std::string_view to_string(Border border);
Border parse_border(std::string_view name);  // throws InputError on an unknown name

// How pixels are stored on the device (docs/architecture.md, "Pixel types"): 32-bit float planes, or
// 8-bit interleaved with float arithmetic, results rounded to nearest and saturated to 0..255: one
// channel, or four (RGBA8; 2 and 3 channels padded to 4, the padding neither read back nor validated).
enum class PixelType { F32, U8 };
std::string_view to_string(PixelType pixel);
PixelType parse_pixel(std::string_view name);  // throws InputError on an unknown name

// Channels a device kernel computes per pixel (f32: every plane's, one plane per launch; u8: 1 or 4
// interleaved), and the bytes one pixel takes on the device, all channels: what the floors count.
int device_channels(PixelType pixel, int channels);
int device_bytes_per_pixel(PixelType pixel, int channels);

struct Problem {
  int width = 0;
  int height = 0;
  int channels = 0;
  Filter filter;  // as the user gave it
  Border border = Border::Zero;
  bool flip = false;  // true convolution instead of correlation
  PixelType pixel = PixelType::F32;
  // Every input sample is finite. A NaN or infinity stays where it is in a direct convolution, as in the
  // reference, but a Fourier transform spreads it over the whole plane: fft is skipped without it.
  bool input_finite = true;

  // The filter every backend correlates with: `filter`, or flipped(filter) when flip is set. Backends
  // never flip themselves; the CPU reference applies `flip` on its own, so --flip is still checked.
  Filter correlation_filter;

  int radius_x() const { return filter.radius_x(); }
  int radius_y() const { return filter.radius_y(); }

  int device_channels() const { return cc::device_channels(pixel, channels); }
  int device_bytes_per_pixel() const { return cc::device_bytes_per_pixel(pixel, channels); }

  // The kernel arguments for one plane of this problem, rows packed (pitch = width).
  ConvArgs conv_args() const;
};

// What the checks on an image need of its samples, found in one pass: the driver takes them once per
// image and reuses them for every filter, border and pixel type on it.
struct SampleFacts {
  double largest_magnitude = 0;  // of the finite samples
  bool all_finite = true;
};
SampleFacts sample_facts(const Image& image);

Problem make_problem(const Image& image, const SampleFacts& facts, const Filter& filter, Border border, bool flip,
                     PixelType pixel = PixelType::F32);
// The same, the image's facts found here (one pass over it).
Problem make_problem(const Image& image, const Filter& filter, Border border, bool flip,
                     PixelType pixel = PixelType::F32);

// Throws InputError when the filter's sums on an image of these facts can leave float's range: the largest
// sample magnitude times the filter's sum of magnitudes (every product and partial sum of one output is at
// most that) over FLT_MAX. Such a run would be infinities in every variant and in no way a kernel's
// fault, so it is refused as bad input before anything runs.
void check_sums_fit_float(const SampleFacts& facts, const Filter& filter);

}  // namespace cc
