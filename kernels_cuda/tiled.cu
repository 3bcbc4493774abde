// tiled.cu: each block copies its output tile plus the apron around it into __shared__ memory, then
// every thread convolves from there: each input pixel is read from global memory about once per block
// instead of once per tap. The filter is in __constant__ memory. The tile holds the pixels as stored
// (cc_pixel: an 8-bit tile takes a quarter of the bytes of float channels) and converts as it reads them.
#include "common/geometry/pixel.h"
#include "kernels_cuda/filter_in_constant.cuh"

namespace {

__global__ void convolve_tiled(const cc_pixel* __restrict__ input,
                               cc_pixel* __restrict__ output,
                               const ConvArgs args)
{
    extern __shared__ cc_pixel tile[];  // (blockDim + 2 * radius) pixels per side, as stored; sized at launch

    const int tile_width = blockDim.x + 2 * args.radius_x;
    const int tile_height = blockDim.y + 2 * args.radius_y;
    const int tile_x0 = blockIdx.x * blockDim.x - args.radius_x;  // image position of tile[0]
    const int tile_y0 = blockIdx.y * blockDim.y - args.radius_y;
    const int lx = threadIdx.x;
    const int ly = threadIdx.y;

    // The threads walk the whole tile, apron corners included, as many rounds as it takes: with a
    // large radius each loads several pixels. Loading only tile-sized blocks per side is how the
    // lower-right apron corner goes missing.
    for (int i = ly * blockDim.x + lx; i < tile_width * tile_height;
         i += blockDim.x * blockDim.y) {
        const int sx = cc_border_index(tile_x0 + i % tile_width, args.width, args.border);
        const int sy = cc_border_index(tile_y0 + i / tile_width, args.height, args.border);
        tile[i] = (sx < 0 || sy < 0) ? cc_pixel_zero : input[sy * args.pitch + sx];
    }
    __syncthreads();

    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= args.width || y >= args.height) return;  // only after the barrier: every thread loads

    cc_value sum = cc_zero;
    for (int fy = 0; fy < args.filter_height; ++fy) {
        for (int fx = 0; fx < args.filter_width; ++fx) {
            sum += cc_load(tile, (ly + fy) * tile_width + lx + fx) * c_filter[fy * args.filter_width + fx];
        }
    }
    cc_store(output, y * args.pitch + x, sum);
}

}  // namespace

namespace cc::cuda_kernels {

// Launched by the CUDA backend with the plan's grid, block and shared bytes (kernels_cuda/launchers.h).
extern const OfflineKernel CC_PIXEL_ENTRY(tiled_kernel) =
    {"convolve_tiled", reinterpret_cast<const void*>(&convolve_tiled), &c_filter};

}  // namespace cc::cuda_kernels
