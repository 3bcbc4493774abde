// constant.cu: as global.cu, but the filter lives in a __constant__ array: every thread of a warp
// reads the same coefficient at once, which the constant cache broadcasts.
#include "common/geometry/pixel.h"
#include "kernels_cuda/filter_in_constant.cuh"

namespace {

__global__ void convolve_constant(const cc_pixel* __restrict__ input,
                                  cc_pixel* __restrict__ output,
                                  const ConvArgs args)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= args.width || y >= args.height) return;

    cc_value sum = cc_zero;
    for (int fy = 0; fy < args.filter_height; ++fy) {
        const int sy = cc_border_index(y + fy - args.radius_y, args.height, args.border);
        for (int fx = 0; fx < args.filter_width; ++fx) {
            const int sx = cc_border_index(x + fx - args.radius_x, args.width, args.border);
            const cc_value pixel = (sx < 0 || sy < 0) ? cc_zero : cc_load(input, sy * args.pitch + sx);
            sum += pixel * c_filter[fy * args.filter_width + fx];
        }
    }
    cc_store(output, y * args.pitch + x, sum);
}

}  // namespace

namespace cc::cuda_kernels {

// Launched by the CUDA backend with the plan's grid, block and shared bytes (kernels_cuda/launchers.h).
extern const OfflineKernel CC_PIXEL_ENTRY(constant_kernel) =
    {"convolve_constant", reinterpret_cast<const void*>(&convolve_constant), &c_filter};

}  // namespace cc::cuda_kernels
