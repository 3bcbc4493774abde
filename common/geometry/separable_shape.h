// separable_shape.h: the compile-time shape of the fused `separable` kernel, chosen per radius, the same in both APIs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace cc {

// A block of `threads` (one dimension) owns a tile_w x tile_h tile of outputs. It stages its input
// rows plus the apron on chip `band` rows at a time (`bands` times), runs the row pass of each band
// into rows_done (tile_w x bands*band), then the column pass from rows_done to the output. Each thread
// computes row_out outputs along a row in the row pass and column_out down a column in the column pass.
struct SeparableShape {
  int threads = 256;
  int tile_w = 64;  // a multiple of 32 (a warp's column-pass stores are one row segment) and of row_out
  int tile_h = 32;  // a multiple of column_out
  int row_out = 8;
  int column_out = 8;
  int band = 0;   // input rows on chip at a time
  int bands = 0;  // band * bands >= tile_h + 2 * radius_y: the rows the column pass needs, rounded up
  // lowrank only (common/geometry/lowrank_shape.h): tiles a block runs down its strip, keeping the apron
  // rows of its row pass on chip from one to the next; separable's blocks own one tile
  int chunks = 1;
};

// The unrolled passes grow with the radius (8 x (2r+1) FMAs each); the fft variant takes larger filters.
inline constexpr int kSeparableMaxRadius = 128;
// Fewer rows per band than this would leave most of the block idle in the row pass.
inline constexpr int kSeparableMinBand = 8;
// What every OpenCL device of interest offers per work-group (NVIDIA's OpenCL: exactly this): shapes
// that fit it are preferred, so that both APIs run the same shape wherever they can.
inline constexpr std::size_t kSeparablePortableBytes = 48 * 1024;

// The on-chip arrays' row lengths in floats, odd so that the row pass's threads, each on its own row,
// read and write distinct banks (the kernels' IN_PITCH and DONE_PITCH).
inline int separable_input_pitch(const SeparableShape& shape, int radius_x) {
  return (shape.tile_w + 2 * radius_x) | 1;
}
inline int separable_done_pitch(const SeparableShape& shape) { return shape.tile_w + 1; }

// `terms`: the lowrank kernel keeps one rows_done plane per separable term (kernels_cl/lowrank.cl).
inline std::size_t separable_on_chip_bytes(const SeparableShape& shape, int radius_x, int terms = 1) {
  return (static_cast<std::size_t>(shape.band) * separable_input_pitch(shape, radius_x) +
          static_cast<std::size_t>(terms) * shape.band * shape.bands * separable_done_pitch(shape)) *
         sizeof(float);
}

// Issue slots per output pixel (thread instructions: FMAs, on-chip loads and stores, a few for
// indexing), counting the threads left idle by the last round of each pass: the cost the shape is chosen by.
inline double separable_slots_per_output(const SeparableShape& s, int radius_x, int radius_y) {
  const auto rounds = [&](int items) { return (items + s.threads - 1) / s.threads; };
  const double staged = s.bands * rounds(s.band * (s.tile_w + 2 * radius_x)) * 5.0;
  const double row_item = (s.row_out + 2 * radius_x) + s.row_out * (2 * radius_x + 1) + s.row_out + 8;
  const double column_item = (s.column_out + 2 * radius_y) + s.column_out * (2 * radius_y + 1) + s.column_out + 8;
  const double rows = s.bands * rounds(s.band * s.tile_w / s.row_out) * row_item;
  const double columns = rounds(s.tile_w * s.tile_h / s.column_out) * column_item;
  return (staged + rows + columns) * s.threads / (s.tile_w * s.tile_h);
}

// What a block with less on-chip memory falls back to when its radius's tiles do not fit.
inline constexpr SeparableShape kSeparableFallbackTile{.threads = 64, .tile_w = 32, .tile_h = 64};

// The most work-items a block may have when the caller names no limit: CUDA's 1024 threads per block,
// above every tile's threads, so CUDA and a large OpenCL device choose the same shapes.
inline constexpr std::size_t kSeparableDefaultMaxWorkGroup = 1024;
// The fewest threads a tile is given: a warp, so that the column pass's stores stay one row segment.
inline constexpr int kSeparableMinThreads = 32;

// A tile's threads, halved until the block takes at most `max_work_group` work-items (a device or built
// kernel may take fewer than the tile's own count: Rusticl on llvmpipe takes 32, docs/portability.md).
// The tile stays: the passes loop over their items in rounds of THREADS, so fewer threads take more
// rounds. Never below kSeparableMinThreads: the caller's check of the limit skips such a device.
inline SeparableShape separable_tile_within(SeparableShape tile, std::size_t max_work_group) {
  while (static_cast<std::size_t>(tile.threads) > max_work_group && tile.threads > kSeparableMinThreads)
    tile.threads /= 2;
  return tile;
}

// The tiles for this radius (the larger of the two):
//  - r <= 4: 64x32 outputs, 256 threads, one band under 22 KB: DRAM bounds here, and a small footprint
//    keeps 8 blocks (2048 threads) loading on each SM;
//  - r <= 8: 64x64, 256 threads, one band up to 46 KB: the row pass repeats 2r rows of every tile,
//    which a 32-row tile would pay for with 50% more FMAs;
//  - larger: 32 wide and tall (128 rows and 128 threads, or 64 and 64), staged in bands: tall, so that
//    the repeated rows stay few.
// Each with its threads within `max_work_group` (separable_tile_within).
inline std::vector<SeparableShape> separable_tiles(int radius, std::size_t max_work_group = kSeparableDefaultMaxWorkGroup) {
  std::vector<SeparableShape> tiles;
  if (radius <= 4) tiles = {{.threads = 256, .tile_w = 64, .tile_h = 32}};
  else if (radius <= 8) tiles = {{.threads = 256, .tile_w = 64, .tile_h = 64}};
  else tiles = {{.threads = 128, .tile_w = 32, .tile_h = 128}, kSeparableFallbackTile};
  for (SeparableShape& tile : tiles) tile = separable_tile_within(tile, max_work_group);
  return tiles;
}

// Of `tiles`, each cut into bands of at least kSeparableMinBand rows, the one that fits `on_chip_bytes`
// in the fewest issue slots per output; nullopt when none fits.
inline std::optional<SeparableShape> cheapest_separable_shape(const std::vector<SeparableShape>& tiles, int radius_x,
                                                              int radius_y, std::size_t on_chip_bytes, int terms = 1) {
  std::optional<SeparableShape> best;
  for (SeparableShape shape : tiles) {
    const int rows_needed = shape.tile_h + 2 * radius_y;
    for (shape.bands = 1; (rows_needed + shape.bands - 1) / shape.bands >= kSeparableMinBand; ++shape.bands) {
      shape.band = (rows_needed + shape.bands - 1) / shape.bands;
      if (separable_on_chip_bytes(shape, radius_x, terms) > on_chip_bytes) continue;
      if (!best || separable_slots_per_output(shape, radius_x, radius_y) <
                       separable_slots_per_output(*best, radius_x, radius_y))
        best = shape;
    }
  }
  return best;
}

inline std::optional<SeparableShape> separable_shape_within(int radius_x, int radius_y, std::size_t on_chip_bytes,
                                                            std::size_t max_work_group, int terms = 1) {
  const std::vector<SeparableShape> tiles = separable_tiles(std::max(radius_x, radius_y), max_work_group);
  if (auto shape = cheapest_separable_shape(tiles, radius_x, radius_y, on_chip_bytes, terms)) return shape;
  return cheapest_separable_shape({separable_tile_within(kSeparableFallbackTile, max_work_group)}, radius_x, radius_y,
                                  on_chip_bytes, terms);
}

// The least on-chip memory any shape needs for this radius: the fallback tile in its thinnest bands.
inline std::size_t separable_min_bytes(int radius_x, int radius_y) {
  SeparableShape shape = kSeparableFallbackTile;
  const int rows_needed = shape.tile_h + 2 * radius_y;
  shape.bands = std::max(1, rows_needed / kSeparableMinBand);
  shape.band = (rows_needed + shape.bands - 1) / shape.bands;
  return separable_on_chip_bytes(shape, radius_x);
}

// The shape for this radius on a device with `on_chip_bytes` of shared / local memory and at most
// `max_work_group` work-items per block: one that fits kSeparablePortableBytes where there is one, else
// one that fits the device (CUDA may opt in to 227 KB). nullopt: the radius is over kSeparableMaxRadius or no band fits (separable_limit_reason).
inline std::optional<SeparableShape> separable_shape(int radius_x, int radius_y, std::size_t on_chip_bytes,
                                                     std::size_t max_work_group = kSeparableDefaultMaxWorkGroup,
                                                     int terms = 1) {
  if (std::max(radius_x, radius_y) > kSeparableMaxRadius) return std::nullopt;
  if (auto portable = separable_shape_within(radius_x, radius_y, std::min(on_chip_bytes, kSeparablePortableBytes),
                                             max_work_group, terms))
    return portable;
  return separable_shape_within(radius_x, radius_y, on_chip_bytes, max_work_group, terms);
}

// Why separable_shape found none: the same words in both backends (`memory_name` names the limit).
inline std::string separable_limit_reason(int radius_x, int radius_y, std::size_t on_chip_bytes,
                                          std::string_view memory_name) {
  if (std::max(radius_x, radius_y) > kSeparableMaxRadius)
    return fmt::format("radius {}x{} is over the separable variant's compile-time limit of {} "
                       "(the fft variant takes it)", radius_x, radius_y, kSeparableMaxRadius);
  return fmt::format("radius {}x{} needs at least {} bytes of {} per block, the device has {}", radius_x, radius_y,
                     separable_min_bytes(radius_x, radius_y), memory_name, on_chip_bytes);
}

// Blocks (work-groups) per axis: one per tile, or per strip of `chunks` tiles.
inline std::pair<std::size_t, std::size_t> separable_groups(const SeparableShape& shape, int width, int height) {
  const int strip_h = shape.tile_h * shape.chunks;
  return {static_cast<std::size_t>((width + shape.tile_w - 1) / shape.tile_w),
          static_cast<std::size_t>((height + strip_h - 1) / strip_h)};
}

// The -D options both compilers get (clBuildProgram and NVRTC).
inline std::vector<std::string> separable_defines(const SeparableShape& shape, int radius_x, int radius_y) {
  return {fmt::format("-DRADIUS_X={}", radius_x),        fmt::format("-DRADIUS_Y={}", radius_y),
          fmt::format("-DTHREADS={}", shape.threads),    fmt::format("-DTILE_W={}", shape.tile_w),
          fmt::format("-DTILE_H={}", shape.tile_h),      fmt::format("-DROW_OUT={}", shape.row_out),
          fmt::format("-DCOLUMN_OUT={}", shape.column_out), fmt::format("-DBAND={}", shape.band),
          fmt::format("-DBANDS={}", shape.bands)};
}

}  // namespace cc
