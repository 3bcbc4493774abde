// fast.cu: the fastest direct convolution this project makes: the radius and the tile shape are known
// at compile time (-D, through NVRTC at run time, as clBuildProgram gets them), so every loop over the
// filter unrolls and each coefficient sits at a fixed offset of constant memory; each thread computes
// OUT_Y outputs down a column, keeping one filter-row window of the __shared__ tile in registers and
// using each loaded pixel for up to OUT_Y outputs.
// Built with -D RADIUS_X, RADIUS_Y, BLOCK_X, BLOCK_Y, OUT_Y (the host chooses them per radius).
#include "common/conv_args.h"

#define FILTER_W (2 * RADIUS_X + 1)
#define FILTER_H (2 * RADIUS_Y + 1)
#define TILE_W (BLOCK_X + 2 * RADIUS_X)
#define TILE_H (BLOCK_Y * OUT_Y + 2 * RADIUS_Y)

__constant__ float c_filter[FILTER_H * FILTER_W];  // filled by the host after loading the module

extern "C" __global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
convolve_fast(const float* __restrict__ input,
              float* __restrict__ output,
              const ConvArgs args)
{
    extern __shared__ float tile[];  // TILE_H * TILE_W floats: dynamic, so large radii can opt in above 48 KB

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tile_x0 = blockIdx.x * BLOCK_X - RADIUS_X;  // image position of tile[0]
    const int tile_y0 = blockIdx.y * BLOCK_Y * OUT_Y - RADIUS_Y;

    // The whole tile, apron corners included; the only place borders are handled.
    for (int i = ty * BLOCK_X + tx; i < TILE_W * TILE_H; i += BLOCK_X * BLOCK_Y) {
        const int sx = cc_border_index(tile_x0 + i % TILE_W, args.width, args.border);
        const int sy = cc_border_index(tile_y0 + i / TILE_W, args.height, args.border);
        tile[i] = (sx < 0 || sy < 0) ? 0.0f : input[sy * args.pitch + sx];
    }
    __syncthreads();

    float sum[OUT_Y];
    #pragma unroll
    for (int o = 0; o < OUT_Y; ++o) sum[o] = 0.0f;

    // Input row `row` of this thread's window feeds output o with filter row fy = row - o.
    #pragma unroll
    for (int row = 0; row < OUT_Y + 2 * RADIUS_Y; ++row) {
        float window[FILTER_W];
        #pragma unroll
        for (int fx = 0; fx < FILTER_W; ++fx) window[fx] = tile[(ty * OUT_Y + row) * TILE_W + tx + fx];
        #pragma unroll
        for (int o = 0; o < OUT_Y; ++o) {
            const int fy = row - o;
            if (fy >= 0 && fy < FILTER_H) {
                #pragma unroll
                for (int fx = 0; fx < FILTER_W; ++fx) sum[o] += window[fx] * c_filter[fy * FILTER_W + fx];
            }
        }
    }

    const int x = blockIdx.x * BLOCK_X + tx;
    const int y0 = blockIdx.y * BLOCK_Y * OUT_Y + ty * OUT_Y;
    if (x >= args.width) return;
    #pragma unroll
    for (int o = 0; o < OUT_Y; ++o)
        if (y0 + o < args.height) output[(y0 + o) * args.pitch + x] = sum[o];
}
