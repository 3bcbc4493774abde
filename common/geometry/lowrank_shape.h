// lowrank_shape.h: the lowrank kernel's compile-time shape (separable's bands, strips of tiles), the same in both APIs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/geometry/separable_shape.h"

namespace cc {

// A block that owns one tile runs the row pass on tile_h + 2r rows for tile_h rows of output; with TERMS
// planes on chip the tile must be short (at r = 32 and two terms a 64-row tile is all 48 KB holds), so the
// row pass repeats most of its work: 2x at r = 32 with one tile of 64 rows, where separable's 128-row tile
// pays 1.5x. A strip of `chunks` tiles, run top to bottom by one block that keeps the 2r apron rows of
// every plane on chip (kernels_cuda/lowrank.cu, keep_apron), pays the 2r rows once per strip.
// Strip tiles: 32 rows, so that TERMS planes of 32 + 2r rows fit beside the staged band (46 KB at
// r = 32, two terms, 32 wide); 64 wide below r = 9, where the staged apron of a 32-wide tile would
// be as wide as the tile, 32 wide above.
// Strips from this radius on: measured on the H200 (docs/performance.md, "lowrank at large radii"), LoG
// and DoG at 8192x8192 ran in strips at 0.446 ms (r = 7) and 0.645 (r = 13), where single tiles had run in
// 0.325-0.334 and 0.588-0.600; at r = 16 and 32 strips ran in 0.72 and 1.37 against 0.94 and 2.58. The issue
// slots (lowrank_slots_per_output) favour strips from r = 5, so they miss a cost the strips pay (their
// apron copies and barriers between tiles, fewer groups in flight) that only large aprons repay.
inline constexpr int kLowRankStripMinRadius = 16;

inline std::vector<SeparableShape> lowrank_strip_tiles(int radius, std::size_t max_work_group) {
  std::vector<SeparableShape> tiles;
  if (radius < kLowRankStripMinRadius) return tiles;
  if (radius <= 8) tiles = {{.threads = 256, .tile_w = 64, .tile_h = 32}};
  tiles.push_back({.threads = 128, .tile_w = 32, .tile_h = 32});
  for (SeparableShape& tile : tiles) tile = separable_tile_within(tile, max_work_group);
  return tiles;
}

// A strip's rows: 512 leaves the 2r repeated rows at 1/8 of the row pass at r = 32.
inline constexpr int kLowRankStripRows = 512;
// Fewer groups than this and a large GPU would sit partly idle (132 SMs of 4-8 blocks each on the
// H100/H200): a strip is cut shorter rather than leave the grid below it.
inline constexpr int kLowRankMinGroups = 2048;

// Tiles per strip for this image: as many as `strip_rows` hold while the grid keeps kLowRankMinGroups
// groups, and at least 2 wherever the image is 2 tiles tall and the strip holds 2 (the smallest grids pay
// for the second tile's apron no longer); 1 (one tile per block) otherwise.
inline int lowrank_chunks(const SeparableShape& tile, int width, int height, int strip_rows = kLowRankStripRows) {
  const int tiles_down = (height + tile.tile_h - 1) / tile.tile_h;
  const int columns = (width + tile.tile_w - 1) / tile.tile_w;
  if (tiles_down < 2 || strip_rows / tile.tile_h < 2) return 1;
  const long long tiles = static_cast<long long>(tiles_down) * columns;
  const int for_groups = std::max(2, static_cast<int>(tiles / kLowRankMinGroups));
  return std::min({strip_rows / tile.tile_h, tiles_down, for_groups});
}

// separable_slots_per_output with TERMS accumulators in each pass and a strip of chunks: the first tile
// stages and filters all its bands, each later one moves the kept apron (keep_apron, about 4 slots an
// item) and stages and filters tile_h rows.
inline double lowrank_slots_per_output(const SeparableShape& s, int radius_x, int radius_y, int terms) {
  const auto rounds = [&](long long items) { return static_cast<double>((items + s.threads - 1) / s.threads); };
  const double row_item = (s.row_out + 2 * radius_x) + terms * s.row_out * (2 * radius_x + 1) + terms * s.row_out + 8;
  const double column_item =
      terms * (s.column_out + 2 * radius_y) + terms * s.column_out * (2 * radius_y + 1) + s.column_out + 8;
  const double band = rounds(static_cast<long long>(s.band) * (s.tile_w + 2 * radius_x)) * 5.0 +
                      rounds(s.band * s.tile_w / s.row_out) * row_item;
  const double columns = rounds(s.tile_w * s.tile_h / s.column_out) * column_item;
  const int keep_steps = (2 * radius_y + s.tile_h - 1) / s.tile_h;
  const double keep = keep_steps * rounds(static_cast<long long>(terms) * s.tile_h * s.tile_w) * 4.0;
  const double later = (s.tile_h / s.band) * band + keep;
  const double strip = s.bands * band + (s.chunks - 1) * later + s.chunks * columns;
  return strip * s.threads / (static_cast<double>(s.tile_w) * s.tile_h * s.chunks);
}

namespace detail {

// Of `single` tiles (cut into any bands, as separable's) and the strip tiles (bands that divide the
// tile, as a later tile stages tile_h rows in whole bands), the one that fits `on_chip_bytes` in the
// fewest issue slots per output.
inline std::optional<SeparableShape> cheapest_lowrank_shape(const std::vector<SeparableShape>& single,
                                                            int radius_x, int radius_y, int width, int height,
                                                            std::size_t on_chip_bytes, std::size_t max_work_group,
                                                            int terms, int strip_rows) {
  std::optional<SeparableShape> best;
  double best_slots = 0.0;
  const auto consider = [&](const SeparableShape& shape) {
    if (separable_on_chip_bytes(shape, radius_x, terms) > on_chip_bytes) return;
    const double slots = lowrank_slots_per_output(shape, radius_x, radius_y, terms);
    if (!best || slots < best_slots) best = shape, best_slots = slots;
  };
  for (SeparableShape shape : single) {
    const int rows_needed = shape.tile_h + 2 * radius_y;
    for (shape.bands = 1; (rows_needed + shape.bands - 1) / shape.bands >= kSeparableMinBand; ++shape.bands) {
      shape.band = (rows_needed + shape.bands - 1) / shape.bands;
      consider(shape);
    }
  }
  for (SeparableShape shape : lowrank_strip_tiles(std::max(radius_x, radius_y), max_work_group)) {
    shape.chunks = lowrank_chunks(shape, width, height, strip_rows);
    if (shape.chunks < 2) continue;  // one tile per block: a single tile's shape
    for (shape.band = kSeparableMinBand; shape.band <= shape.tile_h; shape.band *= 2) {
      if (shape.tile_h % shape.band != 0) continue;
      shape.bands = (shape.tile_h + 2 * radius_y + shape.band - 1) / shape.band;
      consider(shape);
    }
  }
  return best;
}

// separable_shape_within's order: separable's tiles for the radius and the strips, else its fallback tile.
inline std::optional<SeparableShape> lowrank_shape_within(int radius_x, int radius_y, int width, int height,
                                                          std::size_t on_chip_bytes, std::size_t max_work_group,
                                                          int terms, int strip_rows) {
  const std::vector<SeparableShape> tiles = separable_tiles(std::max(radius_x, radius_y), max_work_group);
  if (auto shape = cheapest_lowrank_shape(tiles, radius_x, radius_y, width, height, on_chip_bytes, max_work_group,
                                          terms, strip_rows))
    return shape;
  return cheapest_lowrank_shape({separable_tile_within(kSeparableFallbackTile, max_work_group)}, radius_x, radius_y,
                                width, height, on_chip_bytes, max_work_group, terms, strip_rows);
}

}  // namespace detail

// lowrank's shape for a width x height image: one that fits kSeparablePortableBytes where there is one
// (so that NVIDIA's OpenCL runs CUDA's shape), else one that fits the device; nullopt where none fits
// (separable_limit_reason says why). `strip_rows`: the most rows a strip may hold (kLowRankStripRows;
// under two tiles' rows, 0 say, one tile per block).
inline std::optional<SeparableShape> lowrank_shape(int radius_x, int radius_y, int width, int height,
                                                   std::size_t on_chip_bytes,
                                                   std::size_t max_work_group = kSeparableDefaultMaxWorkGroup,
                                                   int terms = 1, int strip_rows = kLowRankStripRows) {
  if (std::max(radius_x, radius_y) > kSeparableMaxRadius) return std::nullopt;
  if (auto portable = detail::lowrank_shape_within(radius_x, radius_y, width, height,
                                                   std::min(on_chip_bytes, kSeparablePortableBytes), max_work_group,
                                                   terms, strip_rows))
    return portable;
  return detail::lowrank_shape_within(radius_x, radius_y, width, height, on_chip_bytes, max_work_group, terms,
                                      strip_rows);
}

// separable_defines, and the kernel's TERMS and CHUNKS.
inline std::vector<std::string> lowrank_defines(const SeparableShape& shape, int radius_x, int radius_y, int terms) {
  std::vector<std::string> defines = separable_defines(shape, radius_x, radius_y);
  defines.push_back(fmt::format("-DTERMS={}", terms));
  defines.push_back(fmt::format("-DCHUNKS={}", shape.chunks));
  return defines;
}

}  // namespace cc
