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
//  - quads (OUT_X = 4, OUT_Y = 4), for small radii, where DRAM bounds: 16-byte loads and stores straight
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

// The shape for this radius on a device with `on_chip_bytes` of shared / local memory per block: quads
// below kFastRowsRadius, then rows in the first block whose tile fits (NVIDIA's OpenCL offers 48 KB,
// which at r = 32 takes an 8 x 16 block; CUDA may opt in to 227 KB), else columns.
inline FastShape fast_shape(int radius_x, int radius_y, std::size_t on_chip_bytes) {
  if (std::max(radius_x, radius_y) < kFastRowsRadius) return FastShape{.out_x = 4, .out_y = 4};
  using Blocks = std::vector<std::pair<int, int>>;
  const bool tall = std::max(radius_x, radius_y) <= kFastTallRowsRadius;
  const Blocks blocks = tall ? Blocks{{8, 16}, {8, 8}} : Blocks{{32, 8}, {16, 16}, {8, 16}, {8, 8}};
  for (const auto& [block_x, block_y] : blocks) {
    const FastShape rows{.block_x = block_x, .block_y = block_y, .out_x = 8, .out_y = tall ? 4 : 2};
    if (fast_tile_bytes(rows, radius_x, radius_y) <= on_chip_bytes) return rows;
  }
  // keep the unrolled body and the tile height in bounds
  return FastShape{.out_x = 1, .out_y = radius_y > 16 ? 4 : 8};
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
