// async.cu: tiled's tile + apron in __shared__ memory, brought in by asynchronous copies (cp.async, LDGSTS on sm_80+): DRAM to shared memory without passing through registers.
// The part of the tile the image covers (its rows folded by the border rule) is copied asynchronously;
// the apron columns outside the image, and the zero border's rows, are filled by the threads through the
// border rule while those copies fly (docs/memory-spaces.md, "Asynchronous copies"). One tile per block,
// as tiled: the launch is tiled's plan (Geometry::Tile), so the overlap is between the copies and the
// apron fill within a block, and between resident blocks on an SM; a double-buffered walk down a column
// of tiles needs a plan of its own (two tiles of shared memory, fewer blocks), not done yet.
// 8-bit, one channel: cp.async moves 4, 8 or 16 aligned bytes and a 1-byte pixel's source and tile
// addresses fall on different byte offsets row by row, so that format copies each pixel through a
// register as tiled does (the measurement tells whether an aligned-word scheme is worth its code).
#include <cuda_pipeline.h>

#include "common/geometry/pixel.h"
#include "kernels_cuda/filter_in_constant.cuh"

namespace {

// One pixel from global to shared memory: a 4-byte cp.async for f32 and RGBA8, a plain copy for 8-bit.
__device__ __forceinline__ void copy_pixel_async(cc_pixel* tile_cell, const cc_pixel* image_cell)
{
#if CC_PIXEL == CC_PIXEL_U8
    *tile_cell = *image_cell;
#else
    static_assert(sizeof(cc_pixel) == 4, "cp.async moves 4, 8 or 16 bytes");
    __pipeline_memcpy_async(tile_cell, image_cell, sizeof(cc_pixel));
#endif
}

__global__ void convolve_async(const cc_pixel* __restrict__ input,
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
    const int thread = ly * blockDim.x + lx;
    const int threads = blockDim.x * blockDim.y;

    // The columns of the tile inside the image: never empty, the block's own outputs lie there.
    const int copy_x0 = max(tile_x0, 0);
    const int copy_width = min(tile_x0 + tile_width, args.width) - copy_x0;

    // Each tile row's in-image columns, from the image row the border rule folds it to (a zero border's
    // rows above and below the image have none): raw memory, so asynchronous. The threads share all the
    // rows' pixels at once, consecutive threads on consecutive pixels, as async_work_group_copy shares
    // one row among the work-items in async.cl.
    for (int i = thread; i < tile_height * copy_width; i += threads) {
        const int row = i / copy_width;
        const int sy = cc_border_index(tile_y0 + row, args.height, args.border);
        if (sy < 0) continue;
        const int column = copy_x0 + i % copy_width;
        copy_pixel_async(&tile[row * tile_width + column - tile_x0], &input[sy * args.pitch + column]);
    }
    __pipeline_commit();

    // Meanwhile every cell the copies do not reach: the apron columns outside the image (clamped,
    // mirrored, wrapped or zero) and the zero border's rows, as tiled fills them.
    for (int i = thread; i < tile_width * tile_height; i += threads) {
        const int gx = tile_x0 + i % tile_width;
        const int sy = cc_border_index(tile_y0 + i / tile_width, args.height, args.border);
        if (sy >= 0 && gx >= copy_x0 && gx < copy_x0 + copy_width) continue;  // copied above
        const int sx = cc_border_index(gx, args.width, args.border);
        tile[i] = (sx < 0 || sy < 0) ? cc_pixel_zero : input[sy * args.pitch + sx];
    }
    __pipeline_wait_prior(0);  // this thread's copies have landed ...
    __syncthreads();           // ... and everyone's, before any thread reads a neighbour's cell

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
extern const OfflineKernel CC_PIXEL_ENTRY(async_kernel) =
    {"convolve_async", reinterpret_cast<const void*>(&convolve_async), &c_filter};

}  // namespace cc::cuda_kernels
