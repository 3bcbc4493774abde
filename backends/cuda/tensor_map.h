// tensor_map.h: the tma variant's host side: a CUtensorMap of one frame unit whose box is one group's tile, and what the tensor memory accelerator cannot copy, as a skip reason.
#pragma once

#include <string>

#include <cuda.h>  // CUtensorMap and its enums only: the encoder comes through the runtime's entry point, no -lcuda

#include "backends/api_variant.h"
#include "backends/launch_plan.h"
#include "common/domain/problem.h"

namespace cc::cuda {

// Why the tma variant cannot run this plan here, or "": its kernel built below compute_90
// (CMAKE_CUDA_ARCHITECTURES), a driver without cuTensorMapEncodeTiled, or an image TMA cannot describe
// (a row pitch that is no multiple of 16 bytes, a plane that starts off a 16-byte boundary, a tile
  // over 256 pixels a side). The device's compute capability is the plan's
  // (DeviceLimits::missing[Capability::TensorMaps]).
  std::string tensor_map_declines(const ApiVariant& variant, const LaunchPlan& plan, const Problem& problem);

// The map of the frame unit at `unit` (the plan's image in pixel format `format`, common/geometry/pixel.h)
// whose box is one group's tile as kernels_cuda/tma.cu lays it out: its rows padded to kTmaRowBytes
// (common/geometry/tile_shape.h), zeros outside the image. Pure host work (no device call), made per launch.
CUtensorMap tile_tensor_map(const void* unit, const LaunchPlan& plan, int format);

}  // namespace cc::cuda
