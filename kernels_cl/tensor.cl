/* tensor.cl: the 2D convolution as matrix products on the tensor cores (mma.sync m16n8k8, TF32), each
   float split into a high and a low TF32 part so that three products keep FP32's accuracy (3xTF32).
   OpenCL C has no matrix type or instruction for this: NVIDIA's OpenCL compiles the same PTX as
   kernels_cuda/tensor.cu through inline `asm` (the variant's needs, Capability::TensorCores;
   docs/memory-spaces.md, "Tensor cores: fragments in registers", has the layout). The twin of
   kernels_cuda/tensor.cu, line for line.
   With -DCC_TENSOR_INTEL=W the products are Intel's instead (cl_intel_subgroup_matrix_multiply_accumulate,
   DPAS: sub-groups of W = 8 or 16 lanes, the device's smallest sub-group size, which the built-ins
   require): bf16 operands, each float split into three bf16 parts and six of their products kept
   (3xBF16). The tile, the apron and the Toeplitz blocks are the same; a product there is 8 rows by W
   columns by 16 deep rather than 16 by 8 by 8, so a block spans 16 input columns (docs/memory-spaces.md,
   "Tensor cores: fragments in registers"; docs/portability.md, "Vendor-only kernels"). It has run only
   under tests/opencl/matrix_emulation.cl, on devices without the extension (-DCC_TENSOR_EMULATED).
   Built with -D RADIUS_X, RADIUS_Y, WARPS (stacked in y), SLICES (8-column output slices per warp),
   BLOCKS (Toeplitz blocks per filter row), TILE_PITCH, FILTER_PITCH (common/geometry/tensor_shape.h's
   tensor_defines, which add CC_TENSOR_INTEL) and CC_PIXEL. */

#define FILTER_W (2 * RADIUS_X + 1)
#define FILTER_H (2 * RADIUS_Y + 1)
#define LANES 32
#if defined(CC_TENSOR_INTEL)
#define MMA_N CC_TENSOR_INTEL                     /* a product's output columns: one per lane */
#define MMA_K 16                                  /* its depth: the input columns of one Toeplitz block */
#else
#define MMA_N 8                                   /* m16n8k8 */
#define MMA_K 8
#endif
#define OUT_W (SLICES * 8)                        /* output columns per group */
#define OUT_H (WARPS * 16)                        /* output rows per group */
#define TILE_W (OUT_W - MMA_N + MMA_K * BLOCKS)   /* input columns the fragments read */
#define TILE_H (OUT_H + 2 * RADIUS_Y)

#if !defined(CC_TENSOR_INTEL)
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
#define CC_SUB_GROUP_SIZE
#else
/* Intel's matrix products: the built-ins need the sub-group size they are declared for, and sub-groups,
   which cl_intel_subgroups brings (docs/portability.md, "Vendor-only kernels"). */
#pragma clang diagnostic ignored "-Wignored-pragmas"
#if !defined(CC_TENSOR_EMULATED) /* tests/opencl/matrix_emulation.cl defines the sub-group functions and the product */
#pragma OPENCL EXTENSION cl_intel_subgroups : enable
#pragma OPENCL EXTENSION cl_intel_subgroup_matrix_multiply_accumulate : enable
#define cc_matrix_mad(a, b, acc) intel_sub_group_bf16_bf16_matrix_mad_k16(a, b, acc)
#define CC_SUB_GROUP_SIZE __attribute__((intel_reqd_sub_group_size(CC_TENSOR_INTEL)))
#endif

/* A's 8 rows as one lane holds them (component m: row m): 16 columns over 8 lanes, two bf16 in an int
   (columns 2n, 2n + 1 for lane n), or over 16 lanes, one bf16 in a short (column n). */
#if CC_TENSOR_INTEL == 8
typedef int8 cc_a_rows;
#elif CC_TENSOR_INTEL == 16
typedef short8 cc_a_rows;
#else
#error "CC_TENSOR_INTEL is the sub-group size: 8 or 16"
#endif
#if !defined(CC_TENSOR_EMULATED) && !defined(cl_intel_subgroup_matrix_multiply_accumulate)
/* The built-in's declaration, which Intel's compiler headers give only where the extension's macro is
   defined: ocloc 22.43 (Debian 12) leaves it undefined for acm-g10 and pvc, whose hardware has the
   instruction (tools/vendor_kernels.sh); a device's runtime defines it where it lists the extension. */
float8 __attribute__((overloadable)) intel_sub_group_bf16_bf16_matrix_mad_k16(cc_a_rows a, int8 b, float8 acc);
#endif
#define BANDS (OUT_H / 8)                          /* 8-row bands of output: a product's rows */
#define SUB_GROUPS (LANES * WARPS / MMA_N)
#define PIECES (BANDS * (OUT_W / MMA_N) / SUB_GROUPS) /* 8 x MMA_N pieces of output per sub-group */

/* x = part[0] + part[1] + part[2], bf16 each (8 significant bits, rounded to nearest even), as their 16
   bits. Exact for every finite x short of rounding past FLT_MAX: the remainder x - part[0] is exact in
   float and has at most 16 significant bits, the next remainder at most 8 (docs/correctness.md,
   "tensor"). */
CC_FN void split_bf16(float x, uint* part)
{
    #pragma unroll
    for (int i = 0; i < 3; ++i) {
        const uint bits = as_uint(x);
        const uint rounded = (bits + 0x7fffu + ((bits >> 16) & 1u)) & 0xffff0000u;
        part[i] = rounded >> 16;
        x -= as_float(rounded);
    }
}

/* Two bf16 in one 32-bit operand word: the first (B's row 2k, A's column 2n) in the low half, as the
   extension packs them (as_ushort2(word).x on these little-endian devices). */
CC_FN int pack_bf16(uint first, uint second) { return (int)(first | (second << 16)); }
#endif

__kernel __attribute__((reqd_work_group_size(LANES, WARPS, 1))) CC_SUB_GROUP_SIZE
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
       is a plain read at 8j + k - n + 7 (constant memory serves one address per warp at a time; Intel's
       blocks: w[fy][16j + k - n] at 16j + k - n + MMA_N - 1). */
    for (int i = thread; i < FILTER_H * FILTER_PITCH; i += LANES * WARPS) {
        const int fy = i / FILTER_PITCH, fx = i % FILTER_PITCH - (MMA_N - 1);
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

#if defined(CC_TENSOR_INTEL)
        /* Each sub-group computes PIECES pieces of 8 output rows (a band) by MMA_N columns (a slice), one
           at a time: a lane holds 8 rows of its column per accumulator, and three for every piece at once
           would not stay in registers. Sub-group ids rather than the work-item's place in the group: the
           products need only the tile and the filter, both on chip. */
        const int sub_group = (int)get_sub_group_id();
        const int n = (int)get_sub_group_local_id();  /* the column of B and of the result this lane holds */
        const int band = sub_group * PIECES / (OUT_W / MMA_N);
        #pragma unroll 1
        for (int piece = 0; piece < PIECES; ++piece) {
            const int slice = sub_group * PIECES % (OUT_W / MMA_N) + piece;
            /* The products of order 0 (high x high) are summed per filter row in a fresh accumulator, as
               above, those of order 1 and 2 (at most 2^-7 of them) across all rows in another: each
               addition then rounds at most half an ulp of its own sum (docs/correctness.md, "tensor"). */
            float8 sum_high = 0.0f, sum_low = 0.0f;
            #pragma unroll 1
            for (int fy = 0; fy < FILTER_H; ++fy) {
                float8 row_high = 0.0f;
                #pragma unroll
                for (int j = 0; j < BLOCKS; ++j) {
                    /* Toeplitz block j as B, in three parts: b.sk = T_j[2k][n], T_j[2k + 1][n] with
                       T_j[k][n] = w[fy][16j + k - n]. */
                    __local const float* at = filter + fy * FILTER_PITCH + MMA_K * j - n + MMA_N - 1;
                    int b_words[3][8];
                    #pragma unroll
                    for (int k = 0; k < 8; ++k) {
                        uint upper[3], lower[3];
                        split_bf16(at[2 * k], upper);
                        split_bf16(at[2 * k + 1], lower);
                        for (int part = 0; part < 3; ++part) b_words[part][k] = pack_bf16(upper[part], lower[part]);
                    }
                    const int8 b_high = vload8(0, b_words[0]), b_mid = vload8(0, b_words[1]), b_low = vload8(0, b_words[2]);
                    /* The band's 8 rows shifted down by fy, input columns slice * MMA_N + 16j .. + 15, as A. */
                    __local const float* rows = tile + (band * 8 + fy) * TILE_PITCH + slice * MMA_N + MMA_K * j;
#if CC_TENSOR_INTEL == 8
                    int a_words[3][8];
                    #pragma unroll
                    for (int m = 0; m < 8; ++m) {
                        uint left[3], right[3];
                        split_bf16(rows[m * TILE_PITCH + 2 * n], left);
                        split_bf16(rows[m * TILE_PITCH + 2 * n + 1], right);
                        for (int part = 0; part < 3; ++part) a_words[part][m] = pack_bf16(left[part], right[part]);
                    }
                    const cc_a_rows a_high = vload8(0, a_words[0]), a_mid = vload8(0, a_words[1]), a_low = vload8(0, a_words[2]);
#else
                    short a_words[3][8];
                    #pragma unroll
                    for (int m = 0; m < 8; ++m) {
                        uint parts[3];
                        split_bf16(rows[m * TILE_PITCH + n], parts);
                        for (int part = 0; part < 3; ++part) a_words[part][m] = (short)parts[part];
                    }
                    const cc_a_rows a_high = vload8(0, a_words[0]), a_mid = vload8(0, a_words[1]), a_low = vload8(0, a_words[2]);
#endif
                    row_high = cc_matrix_mad(a_high, b_high, row_high);
                    sum_low = cc_matrix_mad(a_high, b_mid, sum_low);
                    sum_low = cc_matrix_mad(a_mid, b_high, sum_low);
                    sum_low = cc_matrix_mad(a_high, b_low, sum_low);
                    sum_low = cc_matrix_mad(a_mid, b_mid, sum_low);
                    sum_low = cc_matrix_mad(a_low, b_high, sum_low);
                }
                sum_high += row_high;
            }
            float sum[8];
            vstore8(sum_high + sum_low, 0, sum);
            const int x = get_group_id(0) * OUT_W + slice * MMA_N + n;
            #pragma unroll
            for (int m = 0; m < 8; ++m) {
                const int row = get_group_id(1) * OUT_H + band * 8 + m;
                if (row < args.height && x < args.width)
                    cc_store_channel(channels_out, (row * args.pitch + x) * CC_CHANNELS + channel, sum[m]);
            }
        }
#else
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
                /* The small products first; each term over all slices in turn, so that consecutive mma are independent. */
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
#endif
    }
}
