// variants.cpp: looking a variant up by name in the one table, and the figures its traits imply.
#include "common/domain/variants.h"

#include <algorithm>

namespace cc {

const VariantTraits* find_variant(std::string_view name) {
  const auto variants = all_variants();
  const auto found = std::ranges::find(variants, name, &VariantTraits::name);
  return found == variants.end() ? nullptr : &*found;
}

PixelBit pixel_bit(PixelType pixel) { return pixel == PixelType::U8 ? kU8 : kF32; }

std::string pixel_names(std::uint8_t pixels) {
  std::string names;
  for (const PixelType pixel : {PixelType::F32, PixelType::U8})
    if (pixels & pixel_bit(pixel)) names += (names.empty() ? "" : ", ") + std::string(to_string(pixel));
  return names;
}

double taps_per_pixel(const VariantTraits& variant, int radius_x, int radius_y, int terms) {
  const double width = 2 * radius_x + 1, height = 2 * radius_y + 1;
  if (variant.kind == VariantKind::Fft) return 0;
  if (variant.low_rank && terms >= 1) return terms * (width + height);  // each term a row and a column pass
  return variant.rank_one ? width + height : width * height;
}

}  // namespace cc
