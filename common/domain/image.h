// image.h: the image type every part of convcompare passes around: float planes, 1 to 4 channels.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cc {

// Planar float image: plane c, row y, column x lives at data[(c * height + y) * width + x].
// Planar because every kernel convolves one plane at a time and the APIs want contiguous planes.
struct Image {
  int width = 0;
  int height = 0;
  int channels = 0;
  // True when the pixels came from (or are meant for) 8-bit files: values are on the 0..255 scale
  // and results are saved as PNG by default. False for float data (PFM).
  bool eight_bit = false;
  std::vector<float> data;

  Image() = default;
  Image(int width, int height, int channels, bool eight_bit = false);

  std::size_t plane_size() const { return static_cast<std::size_t>(width) * height; }
  float* plane(int c) { return data.data() + c * plane_size(); }
  const float* plane(int c) const { return data.data() + c * plane_size(); }
  float& at(int c, int y, int x) { return data[(c * static_cast<std::size_t>(height) + y) * width + x]; }
  float at(int c, int y, int x) const { return data[(c * static_cast<std::size_t>(height) + y) * width + x]; }
  bool empty() const { return data.empty(); }
};

// Limits checked before any pixel memory is allocated, so a header that claims 100000x100000 is an
// input error, not a multi-gigabyte allocation.
inline constexpr int kMaxImageDimension = 32768;
inline constexpr std::size_t kMaxImagePixels = std::size_t{1} << 28;  // 256 Mpix (16384^2)

// A value on the 0..255 scale as an 8-bit pixel: rounded to nearest (ties to even, as the kernels'
// conversions do) and saturated; NaN to 0.
unsigned char to_8bit(float value);

// The image as 8-bit pixels hold it (every value through to_8bit), eight_bit = true: what a u8 run's
// input is, and its reference is computed from.
Image quantized_8bit(const Image& image);

// Throws InputError naming `what` when width x height x channels is outside the limits above.
void check_image_size(long long width, long long height, long long channels, const std::string& what);

}  // namespace cc
