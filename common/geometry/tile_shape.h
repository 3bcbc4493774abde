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
// elements (cuTensorMapEncodeTiled's boxDim). So its tile rows are padded to kTmaRowBytes, in pixels as
// stored; the kernel computes the same pitch from its block, and the tensor map's box and the bytes its
// barrier expects are this (backends/cuda/tensor_map.cpp): the three must agree, or the copy's barrier
// never completes. The barrier itself (an mbarrier, 8 bytes) lies after the box in the same dynamic
// shared memory, kTmaBarrierBytes so that the box starts the block's shared memory as the CUDA C++
// Programming Guide's TMA example has it (kernels_cuda/tma.cu says why).
inline constexpr std::size_t kTmaRowBytes = 16;
inline constexpr std::size_t kTmaMaxBoxSide = 256;
inline constexpr std::size_t kTmaBarrierBytes = 16;

inline std::size_t tma_tile_pitch(int radius_x, std::size_t group_x, std::size_t pixel_bytes) {
  const std::size_t row_pixels = kTmaRowBytes / pixel_bytes;
  const std::size_t width = group_x + 2 * static_cast<std::size_t>(radius_x);
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
