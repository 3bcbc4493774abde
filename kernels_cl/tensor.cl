/* tensor.cl: the 2D convolution as matrix products on the tensor cores (mma.sync m16n8k8, TF32), each
   float split into a high and a low TF32 part so that three products keep FP32's accuracy (3xTF32).
   OpenCL C has no matrix type or instruction for this: NVIDIA's OpenCL compiles the same PTX as
   kernels_cuda/tensor.cu through inline `asm`, so this file builds there only (the variant's needs,
   Capability::TensorCores; docs/memory-spaces.md, "Tensor cores: fragments in registers", has the
   layout and what other vendors offer in its place). The twin of kernels_cuda/tensor.cu, line for line.
   Built with -D RADIUS_X, RADIUS_Y, WARPS (stacked in y), SLICES (8-column output slices per warp),
   BLOCKS (Toeplitz blocks per filter row), TILE_PITCH, FILTER_PITCH (common/geometry/tensor_shape.h's
   tensor_defines) and CC_PIXEL. */

#define FILTER_W (2 * RADIUS_X + 1)
#define FILTER_H (2 * RADIUS_Y + 1)
#define LANES 32
#define OUT_W (SLICES * 8)                        /* output columns per group */
#define OUT_H (WARPS * 16)                        /* output rows per group */
#define TILE_W (8 * (SLICES + BLOCKS - 1))        /* input columns the fragments read */
#define TILE_H (OUT_H + 2 * RADIUS_Y)

/* x as TF32 (10-bit mantissa, rounded to nearest), in a 32-bit register as mma takes it. */
CC_FN uint to_tf32(float x)
{
    uint bits;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(bits) : "f"(x));
    return bits;
}

/* x = high + low, both TF32: high carries 11 significant bits, low the next 11, so the products
   high*high + high*low + low*high miss only low*low (2^-22 of x*y) and TF32's rounding of low. */
CC_FN void split_tf32(float x, uint* high, uint* low)
{
    *high = to_tf32(x);
    *low = to_tf32(x - as_float(*high));
}

/* sum += a x b on the tensor cores: a 16 x 8 (rows g, g + 8; columns t, t + 4), b 8 x 8 (rows t, t + 4;
   column g), sum 16 x 8 (rows g, g + 8; columns 2t, 2t + 1), for lane = 4g + t. */
CC_FN void mma_tf32(float* sum, const uint* a, const uint* b)
{
    asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
        "{%8, %9}, {%0, %1, %2, %3};"
        : "+f"(sum[0]), "+f"(sum[1]), "+f"(sum[2]), "+f"(sum[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__kernel __attribute__((reqd_work_group_size(LANES, WARPS, 1)))
void convolve_tensor(__global const cc_pixel* restrict input,
                     __global cc_pixel* restrict output,
                     __constant float* filter_weights,
                     const ConvArgs args)
{
    __local float on_chip[TILE_H * TILE_PITCH + FILTER_H * FILTER_PITCH];
    __local float* tile = on_chip;                          /* TILE_H rows of TILE_PITCH */
    __local float* filter = tile + TILE_H * TILE_PITCH;     /* FILTER_H rows of FILTER_PITCH */

    const int lane = get_local_id(0);
    const int warp = get_local_id(1);
    const int thread = warp * LANES + lane;
    const int g = lane / 4;  /* the fragments' row group */
    const int t = lane % 4;  /* and the lane's place in it */
    const int tile_x0 = get_group_id(0) * OUT_W - RADIUS_X;  /* image position of tile[0] */
    const int tile_y0 = get_group_id(1) * OUT_H - RADIUS_Y;

    /* The filter on chip, each row padded with zeros, so that every Toeplitz element w[fy][8j + k - n]
       is a plain read at 8j + k - n + 7 (constant memory serves one address per warp at a time). */
    for (int i = thread; i < FILTER_H * FILTER_PITCH; i += LANES * WARPS) {
        const int fy = i / FILTER_PITCH, fx = i % FILTER_PITCH - 7;
        filter[i] = (fx >= 0 && fx < FILTER_W) ? filter_weights[fy * FILTER_W + fx] : 0.0f;
    }

    __global const cc_channel* channels_in = (__global const cc_channel*)input;
    __global cc_channel* channels_out = (__global cc_channel*)output;
    /* RGBA8: one channel at a time through the float tile (CC_CHANNELS; f32 and 8-bit: once) */
    #pragma unroll 1
    for (int channel = 0; channel < CC_CHANNELS; ++channel) {
        if (channel > 0) barrier(CLK_LOCAL_MEM_FENCE);  /* every warp is done reading the previous channel's tile */
        /* The whole tile, apron and the last block's spare columns included, as float: the only place
           borders are handled. The spare columns meet zero weights only, but are read, so they hold pixels. */
        for (int i = thread; i < TILE_H * TILE_W; i += LANES * WARPS) {
            const int row = i / TILE_W, col = i % TILE_W;
            const int sx = cc_border_index(tile_x0 + col, args.width, args.border);
            const int sy = cc_border_index(tile_y0 + row, args.height, args.border);
            tile[row * TILE_PITCH + col] =
                (sx < 0 || sy < 0) ? 0.0f : cc_load_channel(channels_in, (sy * args.pitch + sx) * CC_CHANNELS + channel);
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        float sum[SLICES][4];
        #pragma unroll
        for (int s = 0; s < SLICES; ++s) sum[s][0] = sum[s][1] = sum[s][2] = sum[s][3] = 0.0f;

        #pragma unroll 1
        for (int fy = 0; fy < FILTER_H; ++fy) {
            /* One filter row's products are summed on the tensor cores, whose additions truncate (Fasi et al.,
               "Numerical behavior of NVIDIA tensor cores", 2021), then added to the sum in FP32, which rounds:
               the truncations stay a short chain per row (docs/correctness.md, "tensor"). */
            float row_sum[SLICES][4];
            #pragma unroll
            for (int s = 0; s < SLICES; ++s) row_sum[s][0] = row_sum[s][1] = row_sum[s][2] = row_sum[s][3] = 0.0f;
            /* This filter row's Toeplitz blocks as B fragments: b0 = T_j[t][g], b1 = T_j[t + 4][g]. */
            uint b_high[BLOCKS][2], b_low[BLOCKS][2];
            #pragma unroll
            for (int j = 0; j < BLOCKS; ++j) {
                __local const float* at = filter + fy * FILTER_PITCH + 8 * j + t - g + 7;
                split_tf32(at[0], &b_high[j][0], &b_low[j][0]);
                split_tf32(at[4], &b_high[j][1], &b_low[j][1]);
            }
            /* Input slice c (tile columns 8c ..) of the warp's 16 rows, shifted down by fy, feeds output
               slice s through block j = c - s. */
            __local const float* rows = tile + (warp * 16 + fy + g) * TILE_PITCH + t;
            #pragma unroll
            for (int c = 0; c < SLICES + BLOCKS - 1; ++c) {
                uint a_high[4], a_low[4];
                split_tf32(rows[8 * c], &a_high[0], &a_low[0]);
                split_tf32(rows[8 * TILE_PITCH + 8 * c], &a_high[1], &a_low[1]);
                split_tf32(rows[8 * c + 4], &a_high[2], &a_low[2]);
                split_tf32(rows[8 * TILE_PITCH + 8 * c + 4], &a_high[3], &a_low[3]);
                // The three products of each slice in turn, so that consecutive mma are independent.
                #pragma unroll
                for (int term = 0; term < 3; ++term) {
                    #pragma unroll
                    for (int s = 0; s < SLICES; ++s) {
                        const int j = c - s;
                        if (j >= 0 && j < BLOCKS)  /* known when unrolled */
                            mma_tf32(row_sum[s], term == 0 ? a_low : a_high, term == 1 ? b_low[j] : b_high[j]);
                    }
                }
            }
            #pragma unroll
            for (int s = 0; s < SLICES; ++s)
                for (int i = 0; i < 4; ++i) sum[s][i] += row_sum[s][i];
        }

        const int y = get_group_id(1) * OUT_H + warp * 16 + g;
        #pragma unroll
        for (int s = 0; s < SLICES; ++s) {
            const int x = get_group_id(0) * OUT_W + 8 * s + 2 * t;
            #pragma unroll
            for (int lower = 0; lower < 2; ++lower) {  /* rows g and g + 8 */
                const int row = y + 8 * lower;
                if (row < args.height) {
                    if (x < args.width) cc_store_channel(channels_out, (row * args.pitch + x) * CC_CHANNELS + channel, sum[s][2 * lower]);
                    if (x + 1 < args.width)
                        cc_store_channel(channels_out, (row * args.pitch + x + 1) * CC_CHANNELS + channel, sum[s][2 * lower + 1]);
                }
            }
        }
    }
}
