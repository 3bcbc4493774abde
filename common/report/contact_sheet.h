// contact_sheet.h: --output-dir's overview picture: the input and every result side by side, labelled.
#pragma once

#include <string>
#include <vector>

#include "common/domain/image.h"

namespace cc {

struct LabelledImage {
  std::string label;   // e.g. "original", "gaussian:sigma=2 (reference)", "cuda fast"
  const Image* image;  // not owned; must outlive the call
};

// Longest side of a tile in the sheet; larger images are scaled down (aspect kept), smaller ones kept.
inline constexpr int kContactTileSize = 384;

// One PNG, written atomically: tiles in rows of at most four, each with its label underneath. Colour
// from the first three channels, grey from one (or the first of two); 8-bit images clamped to
// 0..255, float images stretched from their own minimum to their maximum. Throws InputError when
// there is no tile or a tile has no pixels.
void write_contact_sheet(const std::vector<LabelledImage>& tiles, const std::string& path);

}  // namespace cc
