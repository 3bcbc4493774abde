// fast_shape.h: the compile-time shape of the `fast` variant, chosen per radius, the same in both APIs.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace cc {

// Work-group / block of BLOCK_X x BLOCK_Y threads, each computing OUT_X x OUT_Y outputs, so a block
// covers (BLOCK_X * OUT_X) x (BLOCK_Y * OUT_Y) outputs. Three schemes, one per regime of the H100's floor:
//  - quads (OUT_X = 4, OUT_Y = 4; RGBA8 from r = 2: 2), for small radii, where DRAM bounds: 16-byte loads and stores straight
//    from global memory (L1 serves the overlap), no tile, no border fold away from the edges;
//  - rows (OUT_X = 8, OUT_Y = 4 or 2), for large radii, where the FMAs bound: a tile on chip, a loop
//    over filter rows that keeps the code in the instruction cache, each coefficient read serving 32
//    or 16 FMAs; the block narrows where the tile would not fit on chip;
//  - columns (OUT_X = 1, OUT_Y = 8 or 4), where the rows tile does not fit on chip: a narrower tile,
//    every loop unrolled, each tile read serving up to OUT_Y outputs.
struct FastShape {
  int block_x = 32;  // a warp wide where possible: a warp's tile reads are consecutive words
  int block_y = 8;
  int out_x = 1;
  int out_y = 8;
  bool quads() const { return out_x == 4; }
  bool rows() const { return out_x >= 8; }
};

// From this radius on (either axis) the rows scheme is used: on the H100 a filter of (2r+1)^2 taps
// costs more in FMAs than in DRAM traffic from about r = 5 (docs/performance.md). Below it, quads: their
// one quad of halo either side covers radii up to 4.
inline constexpr int kFastRowsRadius = 5;

// Up to this radius the rows scheme computes 4 output rows per thread, beyond it 2: a filter row of
// up to 33 coefficients then stays in registers beside the 32 sums, and 4 rows halve the coefficient
// reads and the apron rows per output. Measured on the H100 (docs/performance.md): 8 x 16 blocks of 8 x 4
// outputs are fastest in both APIs for 5 <= r <= 16, and 2 rows in the widest block beyond.
inline constexpr int kFastTallRowsRadius = 16;

// RGBA8's quads accumulate a float4 per output, so 4 rows of 4 outputs are 64 accumulators: NVIDIA's OpenCL
// builds them with 200 registers at r = 2 and 3 (one 256-item group per SM). From this radius RGBA8 quads
// take 2 rows: measured on the H100 (docs/performance.md, "8-bit"), OpenCL 17% and 20% faster at r = 2
// and 3, CUDA within 3%; at r = 1 both row counts run alike, and 4 rows read fewer apron rows.
inline constexpr int kFastShortQuadsRadius = 2;

// Beyond this radius the fully unrolled kernel grows too large to compile in reasonable time; the
// variant is skipped there (the separable and FFT variants are the tools for such filters).
inline constexpr int kFastMaxRadius = 32;

// Why the fast variant cannot take this radius, or "" when it can: the same words in both backends.
inline std::string fast_radius_limit_reason(int radius_x, int radius_y) {
  if (radius_x <= kFastMaxRadius && radius_y <= kFastMaxRadius) return "";
  return fmt::format("radius {}x{} is over the fast variant's compile-time limit of {}", radius_x, radius_y,
                     kFastMaxRadius);
}

// The tile's width in floats: the block's outputs plus the apron; rows: rounded so every work-item's
// float4 reads stay inside it (the kernels' TILE_W).
inline int fast_tile_width(const FastShape& shape, int radius_x) {
  const int apron = 2 * radius_x;
  return shape.rows() ? shape.block_x * shape.out_x + (apron + shape.out_x - 1) / shape.out_x * shape.out_x
                      : shape.block_x + apron;
}

inline std::size_t fast_tile_bytes(const FastShape& shape, int radius_x, int radius_y) {
  if (shape.quads()) return 0;  // reads global memory directly
  return static_cast<std::size_t>(fast_tile_width(shape, radius_x)) *
         (shape.block_y * shape.out_y + 2 * radius_y) * sizeof(float);
}

// The most work-items a block may have when the caller names no limit: CUDA's 1024 threads per block,
// above every block below, so CUDA and a large OpenCL device choose the same shapes.
inline constexpr std::size_t kFastDefaultMaxWorkGroup = 1024;
// The fewest work-items of any block below: a device or built kernel that takes fewer gets no fast shape.
inline constexpr std::size_t kFastMinWorkGroup = 32;

// Each scheme's blocks, best first. The first fits the larger devices; the later ones exist for devices
// and built kernels that take fewer work-items per group (Rusticl on llvmpipe: 32, docs/portability.md),
// halving the block's height first, so that a row of the block stays a warp wide where it was.
inline const std::vector<std::pair<int, int>>& fast_warp_wide_blocks() {  // quads and columns
  static const std::vector<std::pair<int, int>> blocks{{32, 8}, {32, 4}, {32, 2}, {32, 1}};
  return blocks;
}
inline const std::vector<std::pair<int, int>>& fast_tall_row_blocks() {
  static const std::vector<std::pair<int, int>> blocks{{8, 16}, {8, 8}, {8, 4}};
  return blocks;
}
inline const std::vector<std::pair<int, int>>& fast_wide_row_blocks() {
  static const std::vector<std::pair<int, int>> blocks{{32, 8}, {16, 16}, {8, 16}, {8, 8}, {8, 4}};
  return blocks;
}

// The first of `blocks` with at most `max_work_group` work-items, or the smallest when none has.
inline std::pair<int, int> fast_block_within(const std::vector<std::pair<int, int>>& blocks,
                                             std::size_t max_work_group) {
  for (const auto& block : blocks)
    if (static_cast<std::size_t>(block.first) * block.second <= max_work_group) return block;
  return blocks.back();
}

// The shape for this radius on a device with `on_chip_bytes` of shared / local memory per block and at
// most `max_work_group` work-items per block: quads below kFastRowsRadius, then rows in the first block
// whose tile fits (NVIDIA's OpenCL offers 48 KB, which at r = 32 takes an 8 x 16 block; CUDA may opt in
// to 227 KB), else columns in the first block whose tile fits; each scheme within `max_work_group`.
// Below kFastMinWorkGroup the smallest block comes back, and the caller's check of the limit skips it.
// `values_per_pixel`: the floats a quad output accumulates, 4 for RGBA8 (one float4), else 1; the
// on-chip schemes stage one channel at a time whatever the format, so only the quads depend on it.
inline FastShape fast_shape(int radius_x, int radius_y, std::size_t on_chip_bytes,
                            std::size_t max_work_group = kFastDefaultMaxWorkGroup, int values_per_pixel = 1) {
  if (std::max(radius_x, radius_y) < kFastRowsRadius) {
    const auto [block_x, block_y] = fast_block_within(fast_warp_wide_blocks(), max_work_group);
    const bool short_quads = values_per_pixel > 1 && std::max(radius_x, radius_y) >= kFastShortQuadsRadius;
    return FastShape{.block_x = block_x, .block_y = block_y, .out_x = 4, .out_y = short_quads ? 2 : 4};
  }
  const bool tall = std::max(radius_x, radius_y) <= kFastTallRowsRadius;
  for (const auto& [block_x, block_y] : tall ? fast_tall_row_blocks() : fast_wide_row_blocks()) {
    if (static_cast<std::size_t>(block_x) * block_y > max_work_group) continue;
    const FastShape rows{.block_x = block_x, .block_y = block_y, .out_x = 8, .out_y = tall ? 4 : 2};
    if (fast_tile_bytes(rows, radius_x, radius_y) <= on_chip_bytes) return rows;
  }
  // Columns: out_y keeps the unrolled body and the tile height in bounds. The first block whose tile fits,
  // else the smallest within the limit: the least on-chip memory the scheme can ask for.
  FastShape columns{.out_x = 1, .out_y = radius_y > 16 ? 4 : 8};
  for (const auto& [block_x, block_y] : fast_warp_wide_blocks()) {
    if (static_cast<std::size_t>(block_x) * block_y > max_work_group && block_y > 1) continue;
    columns.block_x = block_x;
    columns.block_y = block_y;
    if (fast_tile_bytes(columns, radius_x, radius_y) <= on_chip_bytes) break;
  }
  return columns;
}

// Work-items (threads) per axis before rounding up to whole groups: each covers OUT_X x OUT_Y outputs.
inline std::pair<std::size_t, std::size_t> fast_work_items(const FastShape& shape, int width, int height) {
  return {static_cast<std::size_t>((width + shape.out_x - 1) / shape.out_x),
          static_cast<std::size_t>((height + shape.out_y - 1) / shape.out_y)};
}

// The -D options both compilers get (clBuildProgram and NVRTC).
inline std::vector<std::string> fast_defines(const FastShape& shape, int radius_x, int radius_y) {
  return {fmt::format("-DRADIUS_X={}", radius_x), fmt::format("-DRADIUS_Y={}", radius_y),
          fmt::format("-DBLOCK_X={}", shape.block_x), fmt::format("-DBLOCK_Y={}", shape.block_y),
          fmt::format("-DOUT_X={}", shape.out_x), fmt::format("-DOUT_Y={}", shape.out_y)};
}

}  // namespace cc
