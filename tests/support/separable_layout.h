// separable_layout.h: what separable's and lowrank's kernels rely on in a shape, checked once for both shape tests.
#pragma once

#include <cstddef>

#include <doctest/doctest.h>

#include "common/geometry/separable_shape.h"

namespace cc::testing {

// Whatever the radius: the first tile's bands cover every row its column pass reads (and a later tile of
// a lowrank strip stages its tile_h new rows in whole bands), a warp's column-pass stores stay within one
// tile row, the passes' items divide the tile evenly, `terms` planes fit on chip, and both pitches are odd
// (kernels_cuda/separable.cu and lowrank.cu: each row-pass thread has its own bank).
inline void check_separable_layout(const SeparableShape& shape, int radius_x, int radius_y, std::size_t on_chip_bytes,
                                   int terms = 1) {
  CAPTURE(radius_x);
  CAPTURE(radius_y);
  CAPTURE(terms);
  CHECK(shape.band * shape.bands >= shape.tile_h + 2 * radius_y);
  CHECK(shape.band >= kSeparableMinBand);
  CHECK(shape.tile_w % 32 == 0);
  CHECK(shape.tile_w % shape.row_out == 0);
  CHECK(shape.tile_h % shape.column_out == 0);
  CHECK(shape.chunks >= 1);
  if (shape.chunks > 1) CHECK(shape.tile_h % shape.band == 0);
  CHECK(separable_on_chip_bytes(shape, radius_x, terms) <= on_chip_bytes);
  CHECK(separable_input_pitch(shape, radius_x) % 2 == 1);
  CHECK(separable_done_pitch(shape) % 2 == 1);
}

}  // namespace cc::testing
