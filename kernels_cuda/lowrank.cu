// lowrank.cu: a filter of numerical rank TERMS (its SVD's terms, common/domain/low_rank.h) as
// TERMS separable passes fused in one kernel, separable.cu's with each pass widened: a block stages its
// input tile and apron in shared memory once, the row pass filters each staged row with the TERMS row
// factors into TERMS shared planes (rows_done), and the column pass sums the TERMS column factors over
// them: TERMS x (2r+1 + 2r+1) taps per pixel instead of (2r+1)^2, and the image crosses DRAM once each
// way. The twin of kernels_cl/lowrank.cl. Borders stay exact as in separable.cu: only the staging folds
// coordinates (cc_border_index).
// A block owns a strip of CHUNKS tiles down the image and runs them top to bottom (CHUNKS = 1: one tile,
// as separable.cu). Its first tile's row pass covers TILE_H + 2r rows; each later one keeps the 2r
// apron rows of all TERMS planes on chip (keep_apron) and filters only its TILE_H new rows, so the row
// pass repeats 2r rows per strip instead of per tile: at r = 32 a 32-row tile alone would run the row
// pass on 3x its rows (common/geometry/lowrank_shape.h chooses the strip, docs/performance.md).
// Built with separable.cu's -D (RADIUS_X, RADIUS_Y, THREADS, TILE_W, TILE_H, ROW_OUT, COLUMN_OUT, BAND,
// BANDS, CC_PIXEL), TERMS and CHUNKS (1 when not given; > 1 only where BAND divides TILE_H);
// c_row_filter holds TERMS rows of FILTER_W, c_column_filter TERMS columns of FILTER_H, term by term.
// Two files, not separable.cu run as this one at TERMS = 1, although at TERMS = 1 and CHUNKS = 1 this
// file compiles to separable.cu's machine code byte for byte (nvcc 13.0 -arch=sm_90 -cubin, f32 and u8,
// r = 1, 3, 7, 16: 2144 to 5824 identical SASS instructions, the same registers): separable.cu stays the
// plain rank-1 text docs/memory-spaces.md teaches from, and its name keys the measured tables there and in
// docs/vendor-resources.md. So a change to a pass of one file is made to the other.
#include "common/geometry/pixel.h"

#ifndef CHUNKS
#define CHUNKS 1  // one tile per block, as separable.cu
#endif
#define FILTER_W (2 * RADIUS_X + 1)
#define FILTER_H (2 * RADIUS_Y + 1)
#define IN_W (TILE_W + 2 * RADIUS_X)  // staged columns: the tile's and the row pass's apron
#define IN_PITCH (IN_W | 1)           // odd, as DONE_PITCH: each row-pass thread has its own bank
#define DONE_ROWS (BAND * BANDS)      // >= TILE_H + 2 * RADIUS_Y: the rows the column pass needs
#define DONE_PITCH (TILE_W + 1)
#define DONE_PLANE (DONE_ROWS * DONE_PITCH)  // one term's row-pass results
#define STAGE_ROUNDS ((BAND * IN_W + THREADS - 1) / THREADS)
#define ROW_ITEMS (BAND * (TILE_W / ROW_OUT))  // per band: ROW_OUT outputs of one row each
#define ROW_ROUNDS ((ROW_ITEMS + THREADS - 1) / THREADS)
#define COLUMN_ITEMS (TILE_W * (TILE_H / COLUMN_OUT))  // COLUMN_OUT outputs of one column each
#define COLUMN_ROUNDS ((COLUMN_ITEMS + THREADS - 1) / THREADS)
#define KEPT_ROWS (2 * RADIUS_Y)        // a later tile's apron: the rows_done rows its predecessor made
#define NEXT_BANDS (TILE_H / BAND)      // a later tile's new rows (CHUNKS > 1: BAND divides TILE_H)
#define KEEP_ITEMS (TERMS * TILE_H * TILE_W)  // one step of keep_apron: up to TILE_H rows of each plane
#define KEEP_ROUNDS ((KEEP_ITEMS + THREADS - 1) / THREADS)

__constant__ float c_row_filter[TERMS * FILTER_W];  // filled by the host after loading the module
__constant__ float c_column_filter[TERMS * FILTER_H];

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

// The row pass of one band: ROW_OUT neighbouring outputs of each of the TERMS row filters per item from
// a window of ROW_OUT + 2 * RADIUS_X pixels, each loaded once and used TERMS x ROW_OUT times; term t's
// results go to plane t of rows_done.
__device__ __forceinline__ void row_pass(const float* band, float* rows_done)
{
    for (int round = 0; round < ROW_ROUNDS; ++round) {
        const int item = threadIdx.x + round * THREADS;
        if (item < ROW_ITEMS) {
            const int row = item % BAND, x = item / BAND * ROW_OUT;
            const float* pixels = band + row * IN_PITCH + x;
            float sum[TERMS][ROW_OUT];
            #pragma unroll
            for (int t = 0; t < TERMS; ++t)
                #pragma unroll
                for (int o = 0; o < ROW_OUT; ++o) sum[t][o] = 0.0f;
            // Pixel i feeds output o with tap i - o.
            #pragma unroll
            for (int i = 0; i < ROW_OUT + 2 * RADIUS_X; ++i) {
                const float pixel = pixels[i];
                #pragma unroll
                for (int t = 0; t < TERMS; ++t)
                    #pragma unroll
                    for (int o = 0; o < ROW_OUT; ++o)
                        if (i - o >= 0 && i - o < FILTER_W) sum[t][o] += pixel * c_row_filter[t * FILTER_W + i - o];
            }
            #pragma unroll
            for (int t = 0; t < TERMS; ++t)
                #pragma unroll
                for (int o = 0; o < ROW_OUT; ++o) rows_done[t * DONE_PLANE + row * DONE_PITCH + x + o] = sum[t][o];
        }
    }
}

// The column pass: COLUMN_OUT outputs down a column per item, summed over the TERMS planes of rows_done; a warp's threads take
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
            // Term by term, each plane read down the column once.
            #pragma unroll
            for (int t = 0; t < TERMS; ++t) {
                #pragma unroll
                for (int i = 0; i < COLUMN_OUT + 2 * RADIUS_Y; ++i) {
                    const float pixel = pixels[t * DONE_PLANE + i * DONE_PITCH];
                    #pragma unroll
                    for (int o = 0; o < COLUMN_OUT; ++o)
                        if (i - o >= 0 && i - o < FILTER_H) sum[o] += pixel * c_column_filter[t * FILTER_H + i - o];
                }
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

// Moves rows TILE_H .. TILE_H + 2r - 1 of each rows_done plane (the next tile's apron, which this tile's
// row pass made) to rows 0 .. 2r - 1, in steps of TILE_H rows: within a step source and destination are
// disjoint, and the barrier between steps lets a step read its rows before the next one overwrites them.
// Starts after a barrier (the column pass is done reading), ends before one (the next staging's).
__device__ __forceinline__ void keep_apron(float* rows_done)
{
    #pragma unroll 1
    for (int first = 0; first < KEPT_ROWS; first += TILE_H) {
        if (first > 0) __syncthreads();
        const int rows = min(TILE_H, KEPT_ROWS - first);
        for (int round = 0; round < KEEP_ROUNDS; ++round) {
            const int item = threadIdx.x + round * THREADS;
            const int t = item / (TILE_H * TILE_W), in_plane = item - t * (TILE_H * TILE_W);
            const int row = first + in_plane / TILE_W, x = in_plane % TILE_W;
            if (item < KEEP_ITEMS && row < first + rows) {
                float* plane = rows_done + t * DONE_PLANE;
                plane[row * DONE_PITCH + x] = plane[(row + TILE_H) * DONE_PITCH + x];
            }
        }
    }
}

// separable.cu's cap (64 registers, 1024 threads per SM); its TERMS x ROW_OUT accumulators may spill
// under it at TERMS = 4: not yet measured on a GPU (tools/gpu_check.sh runs it).
extern "C" __global__ void __launch_bounds__(THREADS, 1024 / THREADS)
convolve_lowrank(const cc_pixel* __restrict__ input,
                   cc_pixel* __restrict__ output,
                   const ConvArgs args)
{
    // Dynamic, so that large radii may opt in above 48 KB: BAND x IN_PITCH staged pixels, then
    // TERMS planes of DONE_ROWS x DONE_PITCH row-pass results.
    extern __shared__ float on_chip[];
    float* band = on_chip;
    float* rows_done = on_chip + BAND * IN_PITCH;

    const int x0 = blockIdx.x * TILE_W;  // the strip's first output column
    const int stage_x0 = x0 - RADIUS_X;

    const cc_channel* channels_in = reinterpret_cast<const cc_channel*>(input);
    cc_channel* channels_out = reinterpret_cast<cc_channel*>(output);
    // RGBA8: one channel at a time through the same arrays (CC_CHANNELS; f32 and 8-bit: once)
    #pragma unroll 1
    for (int channel = 0; channel < CC_CHANNELS; ++channel) {
        #pragma unroll 1
        for (int chunk = 0; chunk < CHUNKS; ++chunk) {
            const int y0 = (blockIdx.y * CHUNKS + chunk) * TILE_H;  // the tile's first output row
            if (CHUNKS > 1 && y0 >= args.height) break;  // the same for the whole block
            const int stage_y0 = y0 - RADIUS_Y;
            // the first tile stages all its rows, a later one the rows below the apron it keeps
            const int first_row = chunk == 0 ? 0 : KEPT_ROWS;
            const int bands = chunk == 0 ? BANDS : NEXT_BANDS;
            const bool inside = stage_x0 >= 0 && stage_x0 + IN_W <= args.width && stage_y0 + first_row >= 0 &&
                                stage_y0 + first_row + bands * BAND <= args.height;
            // the previous tile's (or channel's) column pass is done reading `rows_done`
            if (chunk > 0 || channel > 0) __syncthreads();
            if (chunk > 0) keep_apron(rows_done);
            for (int b = 0; b < bands; ++b) {
                // the previous band's row pass is done reading `band`
                if (b > 0) __syncthreads();
                const int row = first_row + b * BAND;
                if (inside)
                    stage_band(band, channels_in, args, stage_x0, stage_y0 + row, channel, false);
                else
                    stage_band(band, channels_in, args, stage_x0, stage_y0 + row, channel, true);
                __syncthreads();
                row_pass(band, rows_done + row * DONE_PITCH);
            }
            __syncthreads();
            column_pass(rows_done, channels_out, args, x0, y0, channel);
        }
    }
}
