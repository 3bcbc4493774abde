// image.cpp: the Image constructor and the size check every loader runs before allocating pixels.
#include "common/domain/image.h"

#include <fmt/format.h>

#include <cmath>

#include "common/domain/error.h"

namespace cc {

Image::Image(int width, int height, int channels, bool eight_bit)
    : width(width), height(height), channels(channels), eight_bit(eight_bit) {
  // Checked here too, so a negative or absurd size can never reach the vector's size arithmetic.
  check_image_size(width, height, channels, "image");
  data.assign(plane_size() * channels, 0.0f);
}

unsigned char to_8bit(float value) {
  if (!(value > 0)) return 0;  // NaN too
  if (value >= 255) return 255;
  return static_cast<unsigned char>(std::nearbyint(value));  // the default rounding: to nearest, ties to even
}

Image quantized_8bit(const Image& image) {
  Image result = image;
  result.eight_bit = true;
  for (float& value : result.data) value = to_8bit(value);
  return result;
}

void check_image_size(long long width, long long height, long long channels, const std::string& what) {
  if (channels < 1 || channels > 4)
    throw InputError(fmt::format("{} has {} channels (1 to 4 supported)", what, channels));
  if (width <= 0 || height <= 0) throw InputError(fmt::format("{} has an empty size {}x{}", what, width, height));
  if (width > kMaxImageDimension || height > kMaxImageDimension)
    throw InputError(
        fmt::format("{} is {}x{}: each side must be at most {} pixels", what, width, height, kMaxImageDimension));
  // Both sides are <= 32768 here, so the product cannot overflow.
  if (static_cast<unsigned long long>(width * height) > kMaxImagePixels)
    throw InputError(fmt::format("{} is {}x{} = {} pixels: at most {} are supported", what, width, height,
                                 width * height, kMaxImagePixels));
}

}  // namespace cc
