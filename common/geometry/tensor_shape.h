// tensor_shape.h: the shape of the `tensor` variant (tensor-core TF32 matrix products), the same in both APIs.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace cc {

// A block / work-group is kTensorWarps warps stacked in y, 32 lanes each. A warp computes 16 output rows
// by kTensorTilesPerWarp x 8 output columns, each 16 x 8 piece one accumulator fragment of the
// m16n8k8 TF32 matrix product (kernels_cuda/tensor.cu explains the Toeplitz layout). So a block covers
// kTensorTilesPerWarp x 8 columns by kTensorWarps x 16 rows.
inline constexpr int kTensorLanes = 32;
inline constexpr int kTensorWarps = 4;
inline constexpr int kTensorTilesPerWarp = 8;
inline constexpr int kTensorBlockWidth = kTensorTilesPerWarp * 8;  // output columns per block
inline constexpr int kTensorBlockHeight = kTensorWarps * 16;       // output rows per block

// Beyond this radius the unrolled product over a filter row (its Toeplitz blocks) grows past what
// compiles in reasonable time, and the tile and split filter past a block's shared memory.
inline constexpr int kTensorMaxRadius = 32;

// One matrix product's output columns (n) and depth (k): mma.sync m16n8k8's 8 and 8, or Intel's bf16
// products (cl_intel_subgroup_matrix_multiply_accumulate, kernels_cl/tensor.cl's CC_TENSOR_INTEL): as
// many columns as the sub-group has lanes (8 or 16), 16 deep. The group's outputs, rows and work-items
// are the same for both; the blocks, and so the tile's width and the filter's pitch, follow the product.
struct TensorProduct {
  int columns = 8;
  int depth = 8;
  int intel_sub_group = 0;  // Intel's products with this sub-group size, or 0 (mma.sync)
};
inline constexpr TensorProduct kTensorMma{};
constexpr TensorProduct tensor_intel_product(int sub_group) { return {sub_group, 16, sub_group}; }

// Toeplitz blocks (product depth k columns each) one filter row spans for n outputs: the n + 2r inputs
// they read, in whole k-column slices (the kernels' BLOCKS).
constexpr int tensor_toeplitz_blocks(int radius_x, TensorProduct product = kTensorMma) {
  return (2 * radius_x + product.columns + product.depth - 1) / product.depth;
}

// The staged tile: every column a warp's fragments read (its outputs' 8-column slices and their
// Toeplitz blocks') by the block's rows and apron. The width is a multiple of 8, so its pitch is 4 mod 8:
// one fragment load's 8 rows start 4 banks apart (mod 32) and its 8 rows x 4 columns fall in 32
// different banks.
constexpr int tensor_tile_width(int radius_x, TensorProduct product = kTensorMma) {
  return kTensorBlockWidth - product.columns + product.depth * tensor_toeplitz_blocks(radius_x, product);
}
constexpr int tensor_tile_pitch(int radius_x, TensorProduct product = kTensorMma) {
  return tensor_tile_width(radius_x, product) + 4;
}
constexpr int tensor_tile_height(int radius_y) { return kTensorBlockHeight + 2 * radius_y; }
// Each filter row with n - 1 zeros before it and the rest of its Toeplitz blocks' span after it (the
// kernels' FILTER_PITCH).
constexpr int tensor_filter_pitch(int radius_x, TensorProduct product = kTensorMma) {
  return product.depth * tensor_toeplitz_blocks(radius_x, product) + product.columns;
}

inline std::size_t tensor_on_chip_bytes(int radius_x, int radius_y, TensorProduct product = kTensorMma) {
  const std::size_t tile =
      static_cast<std::size_t>(tensor_tile_pitch(radius_x, product)) * tensor_tile_height(radius_y);
  const std::size_t filter = static_cast<std::size_t>(tensor_filter_pitch(radius_x, product)) * (2 * radius_y + 1);
  return (tile + filter) * sizeof(float);
}

// Why the tensor variant cannot take this radius, or "" when it can.
inline std::string tensor_radius_limit_reason(int radius_x, int radius_y) {
  if (radius_x <= kTensorMaxRadius && radius_y <= kTensorMaxRadius) return "";
  return fmt::format("radius {}x{} is over the tensor variant's compile-time limit of {}", radius_x, radius_y,
                     kTensorMaxRadius);
}

// The -D options both compilers get (clBuildProgram and NVRTC): the shape above, written here only;
// Intel's products add their sub-group size (OpenCL only).
inline std::vector<std::string> tensor_defines(int radius_x, int radius_y, TensorProduct product = kTensorMma) {
  std::vector<std::string> defines{fmt::format("-DRADIUS_X={}", radius_x),
                                   fmt::format("-DRADIUS_Y={}", radius_y),
                                   fmt::format("-DWARPS={}", kTensorWarps),
                                   fmt::format("-DSLICES={}", kTensorTilesPerWarp),
                                   fmt::format("-DBLOCKS={}", tensor_toeplitz_blocks(radius_x, product)),
                                   fmt::format("-DTILE_PITCH={}", tensor_tile_pitch(radius_x, product)),
                                   fmt::format("-DFILTER_PITCH={}", tensor_filter_pitch(radius_x, product))};
  if (product.intel_sub_group != 0) defines.push_back(fmt::format("-DCC_TENSOR_INTEL={}", product.intel_sub_group));
  return defines;
}

}  // namespace cc
