/* fast.cl: the fastest direct convolution this project makes: the radius and the tile shape are known
   at compile time (-D, as NVRTC gets them on the CUDA side), so the loops over the filter unroll and
   each coefficient sits at a known offset of constant memory. Two schemes, chosen per radius by the
   host (common/fast_shape.h): columns (OUT_X == 1) for small radii, rows (OUT_X > 1) for large ones.
   Built with -D RADIUS_X, RADIUS_Y, BLOCK_X, BLOCK_Y, OUT_X, OUT_Y. */

#define FILTER_W (2 * RADIUS_X + 1)
#define FILTER_H (2 * RADIUS_Y + 1)
#define TILE_H (BLOCK_Y * OUT_Y + 2 * RADIUS_Y)

#if OUT_X == 1
/* Columns: each work-item computes OUT_Y outputs down a column, keeping one filter-row window of the
   tile in registers and using each loaded pixel for up to OUT_Y outputs. Everything unrolls. */
#define TILE_W (BLOCK_X + 2 * RADIUS_X)

__kernel __attribute__((reqd_work_group_size(BLOCK_X, BLOCK_Y, 1)))
void convolve_fast(__global const float* restrict input,
                   __global float* restrict output,
                   __constant float* filter,
                   const ConvArgs args)
{
    __local float tile[TILE_H * TILE_W];

    const int tx = get_local_id(0);
    const int ty = get_local_id(1);
    const int tile_x0 = get_group_id(0) * BLOCK_X - RADIUS_X;  /* image position of tile[0] */
    const int tile_y0 = get_group_id(1) * BLOCK_Y * OUT_Y - RADIUS_Y;

    /* The whole tile, apron corners included; the only place borders are handled. */
    for (int i = ty * BLOCK_X + tx; i < TILE_W * TILE_H; i += BLOCK_X * BLOCK_Y) {
        const int sx = cc_border_index(tile_x0 + i % TILE_W, args.width, args.border);
        const int sy = cc_border_index(tile_y0 + i / TILE_W, args.height, args.border);
        tile[i] = (sx < 0 || sy < 0) ? 0.0f : input[sy * args.pitch + sx];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    float sum[OUT_Y];
    #pragma unroll
    for (int o = 0; o < OUT_Y; ++o) sum[o] = 0.0f;

    /* Input row `row` of this work-item's window feeds output o with filter row fy = row - o. */
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
                for (int fx = 0; fx < FILTER_W; ++fx) sum[o] += window[fx] * filter[fy * FILTER_W + fx];
            }
        }
    }

    const int x = get_group_id(0) * BLOCK_X + tx;
    const int y0 = get_group_id(1) * BLOCK_Y * OUT_Y + ty * OUT_Y;
    if (x >= args.width) return;
    #pragma unroll
    for (int o = 0; o < OUT_Y; ++o)
        if (y0 + o < args.height) output[(y0 + o) * args.pitch + x] = sum[o];
}

#else
/* Rows: each work-item computes OUT_X neighbouring outputs of one row. Per filter row it reads one
   segment of OUT_X + 2 * RADIUS_X pixels as float4s and uses each coefficient for OUT_X FMAs; the loop
   over filter rows stays rolled so that the body (about OUT_X * FILTER_W FMAs) fits the instruction cache. */
#define TILE_W (BLOCK_X * OUT_X + (2 * RADIUS_X + OUT_X - 1) / OUT_X * OUT_X)  /* common/fast_shape.h's width */
#define SEGMENT (OUT_X + (2 * RADIUS_X + 3) / 4 * 4)
#define GROUPS_PER_THREAD (OUT_X / 4)

/* A work-item's float4 reads are GROUPS_PER_THREAD groups apart, so eight work-items of a quarter warp
   would share banks; flipping the low bits of a group by its higher bits spreads them over all 32. */
inline int swizzle(int group) { return group ^ ((group >> 3) & (GROUPS_PER_THREAD - 1)); }

__kernel __attribute__((reqd_work_group_size(BLOCK_X, BLOCK_Y, 1)))
void convolve_fast(__global const float* restrict input,
                   __global float* restrict output,
                   __constant float* filter,
                   const ConvArgs args)
{
    __local float4 tile[TILE_H * TILE_W / 4];  /* TILE_H rows of TILE_W / 4 float4 groups, each row swizzled */

    const int tx = get_local_id(0);
    const int ty = get_local_id(1);
    const int tile_x0 = get_group_id(0) * BLOCK_X * OUT_X - RADIUS_X;  /* image position of the tile's corner */
    const int tile_y0 = get_group_id(1) * BLOCK_Y - RADIUS_Y;

    /* The whole tile, apron corners included; the only place borders are handled. */
    __local float* tile_floats = (__local float*)tile;
    for (int i = ty * BLOCK_X + tx; i < TILE_W * TILE_H; i += BLOCK_X * BLOCK_Y) {
        const int col = i % TILE_W, row = i / TILE_W;
        const int sx = cc_border_index(tile_x0 + col, args.width, args.border);
        const int sy = cc_border_index(tile_y0 + row, args.height, args.border);
        tile_floats[row * TILE_W + swizzle(col / 4) * 4 + col % 4] = (sx < 0 || sy < 0) ? 0.0f : input[sy * args.pitch + sx];
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    float sum[OUT_X];
    #pragma unroll
    for (int o = 0; o < OUT_X; ++o) sum[o] = 0.0f;

    #pragma unroll 1
    for (int fy = 0; fy < FILTER_H; ++fy) {
        __local const float4* row = tile + (ty + fy) * (TILE_W / 4);
        float segment[SEGMENT];
        #pragma unroll
        for (int g = 0; g < SEGMENT / 4; ++g) {
            const float4 pixels = row[swizzle(tx * GROUPS_PER_THREAD + g)];
            segment[4 * g] = pixels.x;
            segment[4 * g + 1] = pixels.y;
            segment[4 * g + 2] = pixels.z;
            segment[4 * g + 3] = pixels.w;
        }
        #pragma unroll
        for (int fx = 0; fx < FILTER_W; ++fx) {
            const float weight = filter[fy * FILTER_W + fx];
            #pragma unroll
            for (int o = 0; o < OUT_X; ++o) sum[o] += segment[o + fx] * weight;
        }
    }

    const int x0 = (get_group_id(0) * BLOCK_X + tx) * OUT_X;
    const int y = get_group_id(1) * BLOCK_Y + ty;
    if (y >= args.height) return;
    #pragma unroll
    for (int o = 0; o < OUT_X; ++o)
        if (x0 + o < args.width) output[y * args.pitch + x0 + o] = sum[o];
}
#endif
