// tensor_map.cpp: the tma variant's tensor maps (cuTensorMapEncodeTiled through the runtime's driver entry point) and its reasoned skips where TMA cannot describe the image.
#include "backends/cuda/tensor_map.h"

#include <cstdint>
#include <stdexcept>

#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_variants.h"
#include "common/domain/error.h"
#include "common/geometry/pixel_format.h"
#include "common/geometry/tile_shape.h"
#include "kernels_cuda/launchers.h"

namespace cc::cuda {

namespace {

// The driver's encoder, asked of the runtime once (null where the driver lacks it, before CUDA 12.0):
// a driver API function without linking libcuda, which the rest of the backend never needs.
PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 encoder = [] {
    void* function = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
    // The ABI of 12.0, when the function appeared: a later driver keeps it under that version.
    CC_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &function, 12000, cudaEnableDefault, &found));
#else
    CC_CUDA_CHECK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &function, cudaEnableDefault, &found));
#endif
    return found == cudaDriverEntryPointSuccess ? reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(function)
                                                : nullptr;
  }();
  return encoder;
}

// The box: one group's tile and the lead before it that puts the box's corner on a 16-byte boundary
// (tile_shape.h's tma_tile_pitch), x first, as kernels_cuda/tma.cu computes it from its block.
struct Box {
  std::size_t width = 0, height = 0;
};
Box tile_box(const LaunchPlan& plan) {
  return {tma_tile_pitch(plan.args.radius_x, plan.group.x, plan.pixel_bytes),
          plan.group.y + 2 * static_cast<std::size_t>(plan.args.radius_y)};
}

// The bytes from one row to the next, as the map gives them. A one-row image never steps to a second
// row, so its stride is only rounded up to what the encoder accepts (a multiple of 16 bytes).
std::uint64_t row_stride_bytes(const LaunchPlan& plan) {
  const std::uint64_t bytes = static_cast<std::uint64_t>(plan.args.pitch) * plan.pixel_bytes;
  if (plan.args.height > 1) return bytes;
  return (bytes + kTmaRowBytes - 1) / kTmaRowBytes * kTmaRowBytes;
}

}  // namespace

std::string tensor_map_declines(const ApiVariant& variant, const LaunchPlan& plan, const Problem& problem) {
  if (std::string reason =
          lacks_compute_90(offline_kernel_of(*variant.description, problem), "the tensor memory accelerator needs");
      !reason.empty())
    return reason;
  if (!tensor_map_encoder())
    return "the tensor memory accelerator needs a driver with cuTensorMapEncodeTiled (CUDA 12.0 or later)";

  const std::uint64_t row_bytes = static_cast<std::uint64_t>(plan.args.pitch) * plan.pixel_bytes;
  if (row_stride_bytes(plan) % kTmaRowBytes != 0)
    return fmt::format("the tensor memory accelerator steps between rows in multiples of {} bytes "
                       "(cuTensorMapEncodeTiled's globalStrides); this image's rows are {} bytes ({} pixels of {} "
                       "bytes): the async and tiled variants take any width", kTmaRowBytes, row_bytes,
                       plan.args.pitch, plan.pixel_bytes);
  // Float planes lie one after the other in one buffer (FrameLayout), each a map's base address.
  const std::uint64_t unit_bytes = row_bytes * static_cast<std::uint64_t>(plan.args.height);
  if (problem.format.units > 1 && unit_bytes % kTmaRowBytes != 0)
    return fmt::format("the tensor memory accelerator reads from {}-byte aligned addresses (cuTensorMapEncodeTiled's "
                       "globalAddress); this image's float planes are {} bytes each, so the second starts off one",
                       kTmaRowBytes, unit_bytes);
  const Box box = tile_box(plan);
  if (box.width > kTmaMaxBoxSide || box.height > kTmaMaxBoxSide)
    return fmt::format("a tensor memory accelerator box is at most {} pixels a side (cuTensorMapEncodeTiled's boxDim); "
                       "this tile is {}x{} (a {}x{} group with radius {}x{})", kTmaMaxBoxSide, box.width, box.height,
                       plan.group.x, plan.group.y, plan.args.radius_x, plan.args.radius_y);
  return "";
}

CUtensorMap tile_tensor_map(const void* unit, const LaunchPlan& plan, int format) {
  // Only the element size matters to a copy (no arithmetic, zeros for a fill): RGBA8 moves as one
  // 32-bit element per pixel, since a box's innermost side must hold 16 bytes and 4 channels do not.
  const CUtensorMapDataType type = format == CC_PIXEL_F32   ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                   : format == CC_PIXEL_U8X4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                                             : CU_TENSOR_MAP_DATA_TYPE_UINT8;
  const cuuint64_t size[2] = {static_cast<cuuint64_t>(plan.args.width), static_cast<cuuint64_t>(plan.args.height)};
  const cuuint64_t stride[1] = {row_stride_bytes(plan)};  // rows only: a pixel's step is its element size
  const Box box = tile_box(plan);
  const cuuint32_t box_size[2] = {static_cast<cuuint32_t>(box.width), static_cast<cuuint32_t>(box.height)};
  const cuuint32_t element_step[2] = {1, 1};  // every pixel of the box, none skipped
  if (reinterpret_cast<std::uintptr_t>(unit) % kTmaRowBytes != 0)  // tensor_map_declines refused such planes
    throw std::logic_error(fmt::format("tma: a frame unit at {} is not {}-byte aligned", unit, kTmaRowBytes));
  CUtensorMap map{};
  // No interleave or swizzle: the kernel reads the tile as tiled reads its own, row by row. L2 promotion
  // of 128 bytes: a tile row is often shorter than a line and the neighbouring block reads the rest
  // (a first choice, not measured). The fill for cells outside the image is zero: the zero border.
  const CUresult result = tensor_map_encoder()(&map, type, 2, const_cast<void*>(unit), size, stride, box_size,
                                               element_step, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                               CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS)
    throw ApiError("CUDA", static_cast<long>(result), "CUresult", "cuTensorMapEncodeTiled", __FILE__, __LINE__,
                   fmt::format("a {}x{} image, rows of {} bytes, a {}x{} box", plan.args.width, plan.args.height,
                               stride[0], box.width, box.height));
  return map;
}

}  // namespace cc::cuda
