// fast.cu: the fastest direct convolution this project makes: the radius and the tile shape are known
// at compile time (-D, through NVRTC at run time, as clBuildProgram gets them), so the loops over the
// filter unroll and each coefficient sits at a known offset of constant memory. Three schemes, chosen
// per radius by the host (common/geometry/fast_shape.h): quads (OUT_X == 4) for small radii, rows (OUT_X >= 8)
// for large ones, columns (OUT_X == 1) where the rows tile does not fit on chip.
// Built with -D RADIUS_X, RADIUS_Y, BLOCK_X, BLOCK_Y, OUT_X, OUT_Y, and CC_PIXEL for 8-bit frames
// (common/geometry/pixel.h). 8-bit: quads load and store four pixels at a time (4 bytes of 8-bit, 16 of
// RGBA8) and compute in float; rows and columns convert each pixel to float once, as they stage it, and
// RGBA8 stages its channels one after the other, so their inner loops are the float ones: at the radii
// they serve the FMAs bound, not the bytes (docs/performance.md, "8-bit").
// The helpers take no __restrict__, as their OpenCL twins may not (common/geometry/conv_args.h's
// CC_FN); the kernels' own parameters keep it, and nvcc's PTX is the same with or without.
#include "common/geometry/pixel.h"

#define FILTER_W (2 * RADIUS_X + 1)
#define FILTER_H (2 * RADIUS_Y + 1)
#define TILE_H (BLOCK_Y * OUT_Y + 2 * RADIUS_Y)

__constant__ float c_filter[FILTER_H * FILTER_W];  // filled by the host after loading the module

// --- the tile both on-chip schemes stage: its width, its layout, and its one load ---------------------
#if OUT_X >= 8
#define TILE_W (BLOCK_X * OUT_X + (2 * RADIUS_X + OUT_X - 1) / OUT_X * OUT_X)  // common/geometry/fast_shape.h's width
#define SEGMENT (OUT_X + (2 * RADIUS_X + 3) / 4 * 4)
#define GROUPS_PER_THREAD (OUT_X / 4)

// A thread's float4 reads are GROUPS_PER_THREAD groups apart, so eight threads of a quarter warp
// would share banks; flipping the low bits of a group by its higher bits spreads them over all 32.
__device__ __forceinline__ int swizzle(int group) { return group ^ ((group >> 3) & (GROUPS_PER_THREAD - 1)); }
__device__ __forceinline__ int tile_index(int row, int col) { return row * TILE_W + swizzle(col / 4) * 4 + col % 4; }

// One output row's segment at tile row `row`: the OUT_X + 2 * RADIUS_X pixels (rounded up to whole
// float4s) that this thread's outputs read from that row.
__device__ __forceinline__ void load_segment(float* segment, const float4* tile, int row, int tx)
{
    const float4* pixels = tile + row * (TILE_W / 4);
    #pragma unroll
    for (int g = 0; g < SEGMENT / 4; ++g) {
        const float4 group = pixels[swizzle(tx * GROUPS_PER_THREAD + g)];
        segment[4 * g] = group.x;
        segment[4 * g + 1] = group.y;
        segment[4 * g + 2] = group.z;
        segment[4 * g + 3] = group.w;
    }
}
#else
#define TILE_W (BLOCK_X + 2 * RADIUS_X)
__device__ __forceinline__ int tile_index(int row, int col) { return row * TILE_W + col; }
#endif

// The whole tile of one channel, apron corners included, as float: the only place borders are handled.
// Blocks whose tile lies inside the image read it with compile-time strides (independent loads, no
// division, no fold).
__device__ __forceinline__ void load_tile(float* tile, const cc_channel* input, const ConvArgs& args,
                                          int tile_x0, int tile_y0, int channel)
{
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    if (tile_x0 >= 0 && tile_y0 >= 0 && tile_x0 + TILE_W <= args.width && tile_y0 + TILE_H <= args.height) {
        #pragma unroll
        for (int row0 = 0; row0 < TILE_H; row0 += BLOCK_Y) {
            #pragma unroll
            for (int col0 = 0; col0 < TILE_W; col0 += BLOCK_X) {
                const int row = row0 + ty, col = col0 + tx;
                if (row < TILE_H && col < TILE_W)
                    tile[tile_index(row, col)] =
                        cc_load_channel(input, ((tile_y0 + row) * args.pitch + tile_x0 + col) * CC_CHANNELS + channel);
            }
        }
        return;
    }
    for (int i = ty * BLOCK_X + tx; i < TILE_W * TILE_H; i += BLOCK_X * BLOCK_Y) {
        const int col = i % TILE_W, row = i / TILE_W;
        const int sx = cc_border_index(tile_x0 + col, args.width, args.border);
        const int sy = cc_border_index(tile_y0 + row, args.height, args.border);
        tile[tile_index(row, col)] =
            (sx < 0 || sy < 0) ? 0.0f : cc_load_channel(input, (sy * args.pitch + sx) * CC_CHANNELS + channel);
    }
}

#if OUT_X == 4
// Quads: for small radii, where DRAM bounds. Each thread computes a 4 x OUT_Y block of outputs straight
// from global memory, each row's four pixels in one load and one store (16 bytes of f32 or RGBA8, 4 of
// 8-bit: cc_quad; the neighbours' overlapping reads hit in L1, so the image still crosses DRAM about
// once). Blocks whose reads stay inside the image skip the border fold.
#define QUAD_HALO 4  // one quad either side covers radii up to 4

// Four pixels x..x+3 of row y into pixel[0..3]: one load inside the image, else four folded reads.
__device__ __forceinline__ void load_quad(cc_value* pixel, const cc_pixel* input, int x, int y,
                                          const ConvArgs& args, bool inside)
{
    if (inside) {
        cc_quad_values(*reinterpret_cast<const cc_quad*>(input + y * args.pitch + x), pixel);
        return;
    }
    const int sy = cc_border_index(y, args.height, args.border);
    #pragma unroll
    for (int i = 0; i < 4; ++i) {
        const int sx = cc_border_index(x + i, args.width, args.border);
        pixel[i] = (sx < 0 || sy < 0) ? cc_zero : cc_load(input, sy * args.pitch + sx);
    }
}

// `inside` is uniform per block and a literal at both call sites, so each copy compiles without the other's branches.
__device__ __forceinline__ void convolve_quads(const cc_pixel* input, cc_pixel* output,
                                               const ConvArgs& args, bool inside)
{
    const int x0 = (blockIdx.x * BLOCK_X + threadIdx.x) * 4;
    const int y0 = (blockIdx.y * BLOCK_Y + threadIdx.y) * OUT_Y;

    cc_value sum[OUT_Y][4];
    #pragma unroll
    for (int o = 0; o < OUT_Y; ++o)
        #pragma unroll
        for (int q = 0; q < 4; ++q) sum[o][q] = cc_zero;

    // Input row `row` of this thread's window feeds output row o with filter row fy = row - o.
    #pragma unroll
    for (int row = 0; row < OUT_Y + 2 * RADIUS_Y; ++row) {
        const int y = y0 + row - RADIUS_Y;
        cc_value window[12];  // the quads left of, at and right of x0
        load_quad(window, input, x0 - 4, y, args, inside);
        load_quad(window + 4, input, x0, y, args, inside);
        load_quad(window + 8, input, x0 + 4, y, args, inside);
        #pragma unroll
        for (int o = 0; o < OUT_Y; ++o) {
            const int fy = row - o;
            if (fy >= 0 && fy < FILTER_H) {
                #pragma unroll
                for (int fx = 0; fx < FILTER_W; ++fx)
                    #pragma unroll
                    for (int q = 0; q < 4; ++q)
                        sum[o][q] += window[QUAD_HALO - RADIUS_X + q + fx] * c_filter[fy * FILTER_W + fx];
            }
        }
    }

    #pragma unroll
    for (int o = 0; o < OUT_Y; ++o) {
        const int y = y0 + o;
        if (inside) {
            *reinterpret_cast<cc_quad*>(output + y * args.pitch + x0) = cc_quad_of(sum[o][0], sum[o][1], sum[o][2], sum[o][3]);
        } else if (y < args.height) {
            #pragma unroll
            for (int q = 0; q < 4; ++q)
                if (x0 + q < args.width) cc_store(output, y * args.pitch + x0 + q, sum[o][q]);
        }
    }
}

extern "C" __global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
convolve_fast(const cc_pixel* __restrict__ input,
              cc_pixel* __restrict__ output,
              const ConvArgs args)
{
    const int block_x0 = blockIdx.x * BLOCK_X * 4;
    const int block_y0 = blockIdx.y * BLOCK_Y * OUT_Y;
    const bool aligned = (args.pitch % 4 == 0) && ((size_t)input % sizeof(cc_quad) == 0) &&
                         ((size_t)output % sizeof(cc_quad) == 0);
    const bool inside = aligned && block_x0 >= QUAD_HALO && block_x0 + BLOCK_X * 4 + QUAD_HALO <= args.width &&
                        block_y0 >= RADIUS_Y && block_y0 + BLOCK_Y * OUT_Y + RADIUS_Y <= args.height;
    if (inside)
        convolve_quads(input, output, args, true);
    else
        convolve_quads(input, output, args, false);
}

#elif OUT_X == 1
// Columns: each thread computes OUT_Y outputs down a column, keeping one filter-row window of the
// tile in registers and using each loaded pixel for up to OUT_Y outputs. Everything unrolls.

extern "C" __global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
convolve_fast(const cc_pixel* __restrict__ input,
              cc_pixel* __restrict__ output,
              const ConvArgs args)
{
    extern __shared__ float tile[];  // TILE_H * TILE_W floats: dynamic, so large radii can opt in above 48 KB

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tile_x0 = blockIdx.x * BLOCK_X - RADIUS_X;  // image position of tile[0]
    const int tile_y0 = blockIdx.y * BLOCK_Y * OUT_Y - RADIUS_Y;

    const cc_channel* channels_in = reinterpret_cast<const cc_channel*>(input);
    cc_channel* channels_out = reinterpret_cast<cc_channel*>(output);
    const int x = blockIdx.x * BLOCK_X + tx;
    const int y0 = blockIdx.y * BLOCK_Y * OUT_Y + ty * OUT_Y;
    // RGBA8: one channel at a time through the float tile (CC_CHANNELS; f32 and 8-bit: once)
    #pragma unroll 1
    for (int channel = 0; channel < CC_CHANNELS; ++channel) {
        if (channel > 0) __syncthreads();  // every thread is done reading the previous channel's tile
        load_tile(tile, channels_in, args, tile_x0, tile_y0, channel);
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

        if (x < args.width) {  // no return: the next channel's barrier needs every thread
            #pragma unroll
            for (int o = 0; o < OUT_Y; ++o)
                if (y0 + o < args.height) cc_store_channel(channels_out, ((y0 + o) * args.pitch + x) * CC_CHANNELS + channel, sum[o]);
        }
    }
}

#else
// Rows: each thread computes OUT_X neighbouring outputs in each of OUT_Y rows. Per filter row it reads
// one segment of OUT_X + 2 * RADIUS_X pixels per output row as float4s and uses each coefficient for
// OUT_X * OUT_Y FMAs; the loop over filter rows stays rolled so that the body (about OUT_X * OUT_Y *
// FILTER_W FMAs) fits the instruction cache.

extern "C" __global__ void __launch_bounds__(BLOCK_X * BLOCK_Y)
convolve_fast(const cc_pixel* __restrict__ input,
              cc_pixel* __restrict__ output,
              const ConvArgs args)
{
    extern __shared__ float4 tile[];  // TILE_H rows of TILE_W / 4 float4 groups, each row swizzled

    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int tile_x0 = blockIdx.x * BLOCK_X * OUT_X - RADIUS_X;  // image position of the tile's corner
    const int tile_y0 = blockIdx.y * BLOCK_Y * OUT_Y - RADIUS_Y;

    const cc_channel* channels_in = reinterpret_cast<const cc_channel*>(input);
    cc_channel* channels_out = reinterpret_cast<cc_channel*>(output);
    const int x0 = (blockIdx.x * BLOCK_X + tx) * OUT_X;
    const int y0 = (blockIdx.y * BLOCK_Y + ty) * OUT_Y;
    // RGBA8: one channel at a time through the float tile (CC_CHANNELS; f32 and 8-bit: once)
    #pragma unroll 1
    for (int channel = 0; channel < CC_CHANNELS; ++channel) {
        if (channel > 0) __syncthreads();  // every thread is done reading the previous channel's tile
        load_tile((float*)tile, channels_in, args, tile_x0, tile_y0, channel);
        __syncthreads();

        float sum[OUT_Y][OUT_X];
        #pragma unroll
        for (int o = 0; o < OUT_Y; ++o)
            #pragma unroll
            for (int x = 0; x < OUT_X; ++x) sum[o][x] = 0.0f;

        #pragma unroll 1
        for (int fy = 0; fy < FILTER_H; ++fy) {
#if OUT_Y >= 4
            // Four output rows of a short filter row: its coefficients stay in registers, read once per
            // filter row, while each output row's segment streams past them.
            float weight[FILTER_W];
            #pragma unroll
            for (int fx = 0; fx < FILTER_W; ++fx) weight[fx] = c_filter[fy * FILTER_W + fx];
            #pragma unroll
            for (int o = 0; o < OUT_Y; ++o) {
                float segment[SEGMENT];
                load_segment(segment, tile, ty * OUT_Y + o + fy, tx);
                #pragma unroll
                for (int fx = 0; fx < FILTER_W; ++fx)
                    #pragma unroll
                    for (int x = 0; x < OUT_X; ++x) sum[o][x] += segment[x + fx] * weight[fx];
            }
#else
            // Two output rows of a long filter row: both segments stream past each coefficient, read where it
            // is used (65 coefficients would not fit in registers beside the sums).
            float segment[OUT_Y][SEGMENT];
            #pragma unroll
            for (int o = 0; o < OUT_Y; ++o) load_segment(segment[o], tile, ty * OUT_Y + o + fy, tx);
            #pragma unroll
            for (int fx = 0; fx < FILTER_W; ++fx) {
                const float weight = c_filter[fy * FILTER_W + fx];
                #pragma unroll
                for (int o = 0; o < OUT_Y; ++o)
                    #pragma unroll
                    for (int x = 0; x < OUT_X; ++x) sum[o][x] += segment[o][x + fx] * weight;
            }
#endif
        }

        #pragma unroll
        for (int o = 0; o < OUT_Y; ++o) {
            if (y0 + o >= args.height) break;  // no return: the next channel's barrier needs every thread
            #pragma unroll
            for (int x = 0; x < OUT_X; ++x)
                if (x0 + x < args.width)
                    cc_store_channel(channels_out, ((y0 + o) * args.pitch + x0 + x) * CC_CHANNELS + channel, sum[o][x]);
        }
    }
}
#endif
