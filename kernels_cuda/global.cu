// global.cu: one output pixel per thread; image and filter both read from global memory.
#include "common/geometry/pixel.h"
#include "kernels_cuda/launchers.h"

namespace {

__global__ void convolve_global(const cc_pixel* __restrict__ input,
                                cc_pixel* __restrict__ output,
                                const float* __restrict__ filter,
                                const ConvArgs args)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= args.width || y >= args.height) return;  // the grid is rounded up to whole blocks

    cc_value sum = cc_zero;
    for (int fy = 0; fy < args.filter_height; ++fy) {
        const int sy = cc_border_index(y + fy - args.radius_y, args.height, args.border);
        for (int fx = 0; fx < args.filter_width; ++fx) {
            const int sx = cc_border_index(x + fx - args.radius_x, args.width, args.border);
            const cc_value pixel = (sx < 0 || sy < 0) ? cc_zero : cc_load(input, sy * args.pitch + sx);
            sum += pixel * filter[fy * args.filter_width + fx];
        }
    }
    cc_store(output, y * args.pitch + x, sum);
}

}  // namespace

namespace cc::cuda_kernels {

// Launched by the CUDA backend with the plan's grid, block and shared bytes (kernels_cuda/launchers.h).
extern const OfflineKernel CC_PIXEL_ENTRY(global_kernel) =
    {"convolve_global", reinterpret_cast<const void*>(&convolve_global), nullptr};

}  // namespace cc::cuda_kernels
