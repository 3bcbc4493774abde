// problem.h: one convolution problem: image shape, filter as applied, border mode, flip.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/geometry/conv_args.h"
#include "common/domain/filter.h"
#include "common/domain/image.h"
#include "common/domain/low_rank.h"

namespace cc {

enum class Border { Zero = CC_BORDER_ZERO, Clamp = CC_BORDER_CLAMP, Mirror = CC_BORDER_MIRROR, Wrap = CC_BORDER_WRAP };

std::string_view to_string(Border border);
Border parse_border(std::string_view name);  // throws InputError on an unknown name

// How pixels are stored on the device (docs/architecture.md, "Adding a pixel type"): 32-bit float planes, or
// 8-bit interleaved with float arithmetic, results rounded to nearest and saturated to 0..255: one
// channel, or four (RGBA8; 2 and 3 channels padded to 4, the padding neither read back nor validated).
enum class PixelType { F32, U8 };
std::string_view to_string(PixelType pixel);
PixelType parse_pixel(std::string_view name);  // throws InputError on an unknown name

// Which kernels read a frame: the values of common/geometry/pixel.h's CC_PIXEL_F32, CC_PIXEL_U8 and
// CC_PIXEL_U8X4 (common/geometry/pixel_format.h checks they agree).
enum class KernelFormat { F32 = 1, U8 = 2, U8x4 = 3 };

// The device frame of one pixel type and channel count, derived by device_format() once per problem
// (make_problem sets Problem::format): the kernels' format and the frame's layout in units (what one launch reads: a float plane, or the
// 8-bit interleaved image; backends/device_api.h's FrameLayout packs them).
struct DeviceFormat {
  KernelFormat kernel = KernelFormat::F32;
  int units = 0;             // f32: one plane per channel; u8: one interleaved image
  int device_channels = 0;   // channels a kernel computes per pixel, all units (f32: every plane's; u8: 1 or 4)
  int unit_pixel_bytes = 0;  // one pixel of one unit, as a tile stages it: 4 (a float), or 1 or 4 bytes
  int values = 1;            // floats in a kernel's cc_value: 4 for RGBA8, else 1

  int bytes_per_pixel() const { return units * unit_pixel_bytes; }  // all channels: what the floors count
  // Stored as bytes: every sum rounded to nearest and saturated to 0..255 as it is stored, and no NaN
  // to poison a frame with (f32 stores floats as computed).
  bool eight_bit() const { return kernel != KernelFormat::F32; }
};
DeviceFormat device_format(PixelType pixel, int channels);

struct Problem {
  int width = 0;
  int height = 0;
  int channels = 0;
  Filter filter;  // as the user gave it
  Border border = Border::Zero;
  bool flip = false;  // true convolution instead of correlation
  PixelType pixel = PixelType::F32;
  // device_format(pixel, channels), set once by make_problem: what planning, the frames, the kernels'
  // -D and the CPU's 8-bit rounding read, so none derives it again.
  DeviceFormat format;
  // Every input sample is finite. A NaN or infinity stays where it is in a direct convolution, as in the
  // reference, but a Fourier transform spreads it over the whole plane: fft is skipped without it.
  bool input_finite = true;

  // The filter every backend correlates with: `filter`, or flipped(filter) when flip is set. Backends
  // never flip themselves; the CPU reference applies `flip` on its own, so --flip is still checked.
  Filter correlation_filter;
  // separate(correlation_filter): its rank-1 factors, or nullopt when it is not separable. Found once
  // here, for the launch plan, the tolerance and the tuning key alike.
  std::optional<SeparableFactors> correlation_factors;
  // decompose(correlation_filter): its singular values, numerical rank and, up to kMaxLowRank, the
  // separable terms the lowrank variant runs; nullopt for a filter too wide to decompose.
  std::optional<LowRank> correlation_low_rank;

  int radius_x() const { return filter.radius_x(); }
  int radius_y() const { return filter.radius_y(); }

  int device_channels() const { return format.device_channels; }
  int device_bytes_per_pixel() const { return format.bytes_per_pixel(); }

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
