// pixel_kernels.cu: one pixel format's table of the memory-space kernels' entry points (kernels_cuda/launchers.h),
// compiled with them once per format (CMakeLists.txt).
#include "kernels_cuda/launchers.h"

namespace cc::cuda_kernels {

// In PixelKernels' order (C++17 has no designated initializers).
const PixelKernels CC_PIXEL_ENTRY(pixel_kernels) = {
    CC_PIXEL_ENTRY(launch_global),
    CC_PIXEL_ENTRY(upload_constant_filter),
    CC_PIXEL_ENTRY(launch_constant),
    CC_PIXEL_ENTRY(upload_tiled_filter),
    CC_PIXEL_ENTRY(prepare_tiled),
    CC_PIXEL_ENTRY(launch_tiled),
    CC_PIXEL_ENTRY(upload_texture_filter),
    CC_PIXEL_ENTRY(launch_texture),
};

}  // namespace cc::cuda_kernels
