// separable.cu: a rank-1 filter (column x row) as a row pass and a column pass fused in one kernel: a
// block stages its input tile and apron in shared memory once, runs the row pass into a second shared
// array (rows_done), then the column pass from it to the output: 2r+1 + 2r+1 taps per pixel instead of
// (2r+1)^2, and the image crosses DRAM once each way, with no temporary image. The radius and the
// shape are known at compile time (-D, through NVRTC at run time, as clBuildProgram gets them; chosen
// by common/geometry/separable_shape.h), so every loop over the filter unrolls, and each thread computes
// ROW_OUT outputs of a row, then COLUMN_OUT of a column, using every pixel it loads for several FMAs.
// Borders stay exact: only the staging folds coordinates (cc_border_index), and a zero border stages
// zeros, which the row pass turns into zero rows.
// Built with -D RADIUS_X, RADIUS_Y, THREADS, TILE_W, TILE_H, ROW_OUT, COLUMN_OUT, BAND, BANDS, and
// CC_PIXEL for 8-bit frames (common/geometry/pixel.h): each pixel is converted to float once, as it is
// staged, and RGBA8 runs its four channels one after the other through the same on-chip arrays, so the
// passes are the float ones and the on-chip bytes those of f32 (docs/performance.md, "8-bit").
// The helpers take no __restrict__, as their OpenCL twins may not (common/geometry/conv_args.h's
// CC_FN); the kernels' own parameters keep it, and nvcc's PTX is the same with or without.
#include "common/geometry/pixel.h"

#define FILTER_W (2 * RADIUS_X + 1)
#define FILTER_H (2 * RADIUS_Y + 1)
#define IN_W (TILE_W + 2 * RADIUS_X)  // staged columns: the tile's and the row pass's apron
#define IN_PITCH (IN_W | 1)           // odd, as DONE_PITCH: each row-pass thread has its own bank
#define DONE_ROWS (BAND * BANDS)      // >= TILE_H + 2 * RADIUS_Y: the rows the column pass needs
#define DONE_PITCH (TILE_W + 1)
#define STAGE_ROUNDS ((BAND * IN_W + THREADS - 1) / THREADS)
#define ROW_ITEMS (BAND * (TILE_W / ROW_OUT))  // per band: ROW_OUT outputs of one row each
#define ROW_ROUNDS ((ROW_ITEMS + THREADS - 1) / THREADS)
#define COLUMN_ITEMS (TILE_W * (TILE_H / COLUMN_OUT))  // COLUMN_OUT outputs of one column each
#define COLUMN_ROUNDS ((COLUMN_ITEMS + THREADS - 1) / THREADS)

__constant__ float c_row_filter[FILTER_W];  // filled by the host after loading the module
__constant__ float c_column_filter[FILTER_H];

// BAND rows of IN_W pixels from image position (x0, y0) into `band`; `fold` is a literal at both call
// sites, so the copy for blocks wholly inside the image has no border arithmetic at all.
__device__ __forceinline__ void stage_band(float* band, const cc_channel* input, const ConvArgs& args,
                                           int x0, int y0, int channel, bool fold)
{
    #pragma unroll
    for (int round = 0; round < STAGE_ROUNDS; ++round) {
        const int i = threadIdx.x + round * THREADS;
        if (i < BAND * IN_W) {
            const int row = i / IN_W, col = i - row * IN_W;
            float pixel;
            if (fold) {
                const int sx = cc_border_index(x0 + col, args.width, args.border);
                const int sy = cc_border_index(y0 + row, args.height, args.border);
                pixel = (sx < 0 || sy < 0) ? 0.0f : cc_load_channel(input, (sy * args.pitch + sx) * CC_CHANNELS + channel);
            } else {
                pixel = cc_load_channel(input, ((y0 + row) * args.pitch + x0 + col) * CC_CHANNELS + channel);
            }
            band[row * IN_PITCH + col] = pixel;
        }
    }
}

// The row pass of one band: ROW_OUT neighbouring outputs per item from a window of ROW_OUT + 2 *
// RADIUS_X pixels, each loaded once. Neighbouring threads take neighbouring rows (odd pitches: no
// bank conflicts).
__device__ __forceinline__ void row_pass(const float* band, float* rows_done)
{
    for (int round = 0; round < ROW_ROUNDS; ++round) {
        const int item = threadIdx.x + round * THREADS;
        if (item < ROW_ITEMS) {
            const int row = item % BAND, x = item / BAND * ROW_OUT;
            const float* pixels = band + row * IN_PITCH + x;
            float sum[ROW_OUT];
            #pragma unroll
            for (int o = 0; o < ROW_OUT; ++o) sum[o] = 0.0f;
            // Pixel i feeds output o with tap i - o.
            #pragma unroll
            for (int i = 0; i < ROW_OUT + 2 * RADIUS_X; ++i) {
                const float pixel = pixels[i];
                #pragma unroll
                for (int o = 0; o < ROW_OUT; ++o)
                    if (i - o >= 0 && i - o < FILTER_W) sum[o] += pixel * c_row_filter[i - o];
            }
            #pragma unroll
            for (int o = 0; o < ROW_OUT; ++o) rows_done[row * DONE_PITCH + x + o] = sum[o];
        }
    }
}

// The column pass: COLUMN_OUT outputs down a column per item, from rows_done; a warp's threads take
// neighbouring columns, so its shared reads and its global stores are each one contiguous row.
__device__ __forceinline__ void column_pass(const float* rows_done, cc_channel* output, const ConvArgs& args,
                                            int x0, int y0, int channel)
{
    for (int round = 0; round < COLUMN_ROUNDS; ++round) {
        const int item = threadIdx.x + round * THREADS;
        if (item < COLUMN_ITEMS) {
            const int x = item % TILE_W, y = item / TILE_W * COLUMN_OUT;
            const float* pixels = rows_done + y * DONE_PITCH + x;
            float sum[COLUMN_OUT];
            #pragma unroll
            for (int o = 0; o < COLUMN_OUT; ++o) sum[o] = 0.0f;
            #pragma unroll
            for (int i = 0; i < COLUMN_OUT + 2 * RADIUS_Y; ++i) {
                const float pixel = pixels[i * DONE_PITCH];
                #pragma unroll
                for (int o = 0; o < COLUMN_OUT; ++o)
                    if (i - o >= 0 && i - o < FILTER_H) sum[o] += pixel * c_column_filter[i - o];
            }
            if (x0 + x < args.width) {
                #pragma unroll
                for (int o = 0; o < COLUMN_OUT; ++o)
                    if (y0 + y + o < args.height)
                        cc_store_channel(output, ((y0 + y + o) * args.pitch + x0 + x) * CC_CHANNELS + channel, sum[o]);
            }
        }
    }
}

// At least 1024 threads per SM: caps registers at 64 (unbounded, ptxas took 142 at r = 16, which
// would leave 3 blocks of 128 threads per SM); nvcc reports no spills at that cap up to r = 64.
extern "C" __global__ void __launch_bounds__(THREADS, 1024 / THREADS)
convolve_separable(const cc_pixel* __restrict__ input,
                   cc_pixel* __restrict__ output,
                   const ConvArgs args)
{
    // Dynamic, so that large radii may opt in above 48 KB: BAND x IN_PITCH staged pixels, then
    // DONE_ROWS x DONE_PITCH row-pass results.
    extern __shared__ float on_chip[];
    float* band = on_chip;
    float* rows_done = on_chip + BAND * IN_PITCH;

    const int x0 = blockIdx.x * TILE_W;  // the tile's first output
    const int y0 = blockIdx.y * TILE_H;
    const int stage_x0 = x0 - RADIUS_X, stage_y0 = y0 - RADIUS_Y;
    const bool inside = stage_x0 >= 0 && stage_x0 + IN_W <= args.width && stage_y0 >= 0 &&
                        stage_y0 + DONE_ROWS <= args.height;

    const cc_channel* channels_in = reinterpret_cast<const cc_channel*>(input);
    cc_channel* channels_out = reinterpret_cast<cc_channel*>(output);
    // RGBA8: one channel at a time through the same arrays (CC_CHANNELS; f32 and 8-bit: once)
    #pragma unroll 1
    for (int channel = 0; channel < CC_CHANNELS; ++channel) {
        for (int b = 0; b < BANDS; ++b) {
            // the previous band's row pass is done reading `band`, the previous channel's column pass `rows_done`
            if (b > 0 || channel > 0) __syncthreads();
            if (inside)
                stage_band(band, channels_in, args, stage_x0, stage_y0 + b * BAND, channel, false);
            else
                stage_band(band, channels_in, args, stage_x0, stage_y0 + b * BAND, channel, true);
            __syncthreads();
            row_pass(band, rows_done + b * BAND * DONE_PITCH);
        }
        __syncthreads();
        column_pass(rows_done, channels_out, args, x0, y0, channel);
    }
}
