// tile_shape.h: the tiled variant's group shapes and on-chip tile, the same in both APIs (C++17: nvcc reads it too).
#pragma once

#include <cstddef>

namespace cc {

// The group shapes the tiled variant tries, largest first: fewer work-items share a smaller apron, so
// a large radius still tiles, only less profitably.
struct TileGroup {
  int x, y;
};
inline constexpr TileGroup kTileGroups[] = {{16, 16}, {16, 8}, {8, 8}, {4, 4}};

// The groups of one thread-block cluster (the cluster variant, CUDA): 4 across by 2 down, 8 blocks, the
// most a cluster may hold on every device that has them (CUDA's "portable" cluster size). A first
// choice, not yet measured against 2x2 or 2x4; fewer where the grid has fewer (backends/launch_plan.cpp).
inline constexpr TileGroup kClusterGroups = {4, 2};

// A group's tile: its outputs plus the apron on every side, in bytes: the tile holds the frame's pixels
// as stored (common/geometry/pixel.h's cc_pixel: a float, or an 8-bit tile of 1 or 4 bytes per pixel).
inline std::size_t tile_bytes(int radius_x, int radius_y, std::size_t group_x, std::size_t group_y,
                              std::size_t pixel_bytes) {
  return (group_x + 2 * static_cast<std::size_t>(radius_x)) * (group_y + 2 * static_cast<std::size_t>(radius_y)) *
         pixel_bytes;
}

// The tma variant (kernels_cuda/tma.cu) has the tensor memory accelerator copy its tile as one box,
// whose rows TMA writes to shared memory in whole multiples of 16 bytes and whose sides hold at most 256
// elements (cuTensorMapEncodeTiled's boxDim). The box's corner must also lie on a 16-byte boundary in x
// (its innermost coordinate times the element size a multiple of 16 bytes): the H100 raised "illegal
// instruction" at the copy for every box at x = -1 and for none at x = 8 (docs/correctness.md,
// tools/probes/tma_probe.cu; Triton's Gluon TMA tutorial, python/tutorials/gluon/04-tma.py, states the
// rule). So the box starts at the tile's left edge rounded down to a 16-byte boundary, up to
// tma_tile_lead pixels before it, and its rows, padded to kTmaRowBytes, cover that lead plus the tile.
// The kernel computes the same lead and pitch from its block, and the tensor map's box and the bytes its
// barrier expects are this (backends/cuda/tensor_map.cpp): the three must agree, or the copy's barrier
// never completes. The barrier itself (an mbarrier, 8 bytes) lies after the box in the same dynamic
// shared memory, kTmaBarrierBytes so that the box starts the block's shared memory as the CUDA C++
// Programming Guide's TMA example has it (kernels_cuda/tma.cu says why).
inline constexpr std::size_t kTmaRowBytes = 16;
inline constexpr std::size_t kTmaMaxBoxSide = 256;
inline constexpr std::size_t kTmaBarrierBytes = 16;

// The most pixels a block's box starts before its tile (group_x * block - radius_x, rounded down to a
// multiple of kTmaRowBytes / pixel_bytes): the same for every block where the group's width is a whole
// number of 16-byte steps, else at most one step less a pixel.
inline std::size_t tma_tile_lead(int radius_x, std::size_t group_x, std::size_t pixel_bytes) {
  const std::size_t row_pixels = kTmaRowBytes / pixel_bytes;
  if (group_x % row_pixels != 0) return row_pixels - 1;
  const std::size_t over = static_cast<std::size_t>(radius_x) % row_pixels;
  return over == 0 ? 0 : row_pixels - over;
}

inline std::size_t tma_tile_pitch(int radius_x, std::size_t group_x, std::size_t pixel_bytes) {
  const std::size_t row_pixels = kTmaRowBytes / pixel_bytes;
  const std::size_t width =
      tma_tile_lead(radius_x, group_x, pixel_bytes) + group_x + 2 * static_cast<std::size_t>(radius_x);
  return (width + row_pixels - 1) / row_pixels * row_pixels;
}

// The box's bytes (what the barrier expects), then the barrier's: the block's dynamic shared memory.
inline std::size_t tma_box_bytes(int radius_x, int radius_y, std::size_t group_x, std::size_t group_y,
                                 std::size_t pixel_bytes) {
  return tma_tile_pitch(radius_x, group_x, pixel_bytes) * (group_y + 2 * static_cast<std::size_t>(radius_y)) *
         pixel_bytes;
}

inline std::size_t tma_tile_bytes(int radius_x, int radius_y, std::size_t group_x, std::size_t group_y,
                                  std::size_t pixel_bytes) {
  return tma_box_bytes(radius_x, radius_y, group_x, group_y, pixel_bytes) + kTmaBarrierBytes;
}

}  // namespace cc
