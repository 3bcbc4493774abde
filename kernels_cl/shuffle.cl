/* shuffle.cl: the image read from __global memory straight into registers, horizontal neighbours exchanged between the lanes of a sub-group by sub-group shuffles; no __local memory.
   Each sub-group of W lanes computes row segments of W outputs (docs/memory-spaces.md, "Warp and sub-group
   shuffles"). For one filter row, the segment's inputs are x0 - r .. x0 + W - 1 + r, read W at a time:
   chunk k holds input x0 - r + k * W + lane in each lane. Output lane L's tap t (0 .. 2r) is input
   L + t of those, held by lane (L + t) mod W in chunk (L + t) / W; since each lane is read by exactly
   one other for a given t (a rotation), the holder picks the chunk (lanes below t mod W give the next
   one) and one shuffle a tap delivers it. Two chunks are live at a time, each read once per row.
   W is the sub-group size the device gives this kernel, read at run time (get_max_sub_group_size):
   1 (a CPU's scalar sub-groups), 8, 16, 32, 64, any other, or the whole work-group all work, laid along x
   or in linear order. The backend picks the extension by the device's CL_DEVICE_EXTENSIONS with a -D
   (backends/opencl/cl_devices.cpp) and skips the variant, with that reason, on a device that has neither.
   Every work-item of a work-group makes the same shuffles in the same order, not only those of one
   sub-group as the specification asks: PoCL runs a sub-group function as a barrier over the whole
   work-group, and a sub-group that left early or skipped a row made the others' shuffles read another
   round's values, or PoCL's own memory (docs/portability.md, "Sub-groups"). tests/opencl/test_sub_groups.cpp
   runs this file under an emulation of those behaviours. */

/* Newer clang-based compilers (PoCL 5.0's clang 16) declare these extensions' functions without the
   pragmas and warn that they ignore them, a warning PoCL prints on stderr at every cold build; older
   compilers may still want them, so they stay, the warning off where clang reads them. */
#pragma clang diagnostic ignored "-Wignored-pragmas"
#if defined(CC_SHUFFLE_INTEL)
#pragma OPENCL EXTENSION cl_intel_subgroups : enable
#define cc_lane_shuffle(word, lane) intel_sub_group_shuffle(word, lane)
#elif defined(CC_SHUFFLE_KHR)
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#pragma OPENCL EXTENSION cl_khr_subgroup_shuffle : enable
#define cc_lane_shuffle(word, lane) sub_group_shuffle(word, lane)
#elif !defined(CC_SHUFFLE_EMULATED) /* tests/opencl/sub_group_emulation.cl defines the sub-group functions */
#error "shuffle.cl needs -DCC_SHUFFLE_KHR (cl_khr_subgroup_shuffle) or -DCC_SHUFFLE_INTEL (cl_intel_subgroups)"
#endif

/* A pixel crosses lanes as one 32-bit word (float, or uint): both extensions shuffle those, where
   8-bit scalars and uchar4 need further extensions (cl_intel_subgroups_char). */
#if CC_PIXEL == CC_PIXEL_F32
typedef float cc_word;
#define cc_word_of(pixel) (pixel)
#define cc_value_of_word(word) (word)
#elif CC_PIXEL == CC_PIXEL_U8
typedef uint cc_word;
#define cc_word_of(pixel) convert_uint(pixel)
#define cc_value_of_word(word) convert_float(word)
#else
typedef uint cc_word;
#define cc_word_of(pixel) as_uint(pixel)
#define cc_value_of_word(word) convert_float4(as_uchar4(word))
#endif

/* Input pixel x of row sy (already folded) under the border rule, as a word; the zero border's outside,
   a row (sy < 0) or a column, reads 0. */
CC_FN cc_word cc_row_word(__global const cc_pixel* input, int sy, int x, const ConvArgs args)
{
    const int sx = cc_border_index(x, args.width, args.border);
    return cc_word_of(sx < 0 || sy < 0 ? cc_pixel_zero : input[sy * args.pitch + sx]);
}

__kernel void convolve_shuffle(__global const cc_pixel* restrict input,
                               __global cc_pixel* restrict output,
                               __constant float* filter,
                               const ConvArgs args)
{
    /* Every full sub-group takes segments in turn across the whole grid, so any group shape and sub-group
       size cover the image. All sub-groups of a work-group make the same rounds: one that has no segment
       left in the last round, or a sub-group smaller than the others (the last of a work-group whose size
       is no multiple of W, as the specification allows: its lanes could not be told apart from a full
       one's), computes the last segment again and stores nothing. */
    const int lanes = (int)get_max_sub_group_size();  /* W */
    const int lane = (int)get_sub_group_local_id();
    const int full_per_group = (int)(get_local_size(0) * get_local_size(1)) / lanes;
    const int sub_group = (int)get_sub_group_id();
    const int group = (int)(get_group_id(1) * get_num_groups(0) + get_group_id(0));
    const int stride = (int)(get_num_groups(0) * get_num_groups(1)) * full_per_group;
    const int per_row = (args.width + lanes - 1) / lanes;
    const int segments = per_row * args.height;

    for (int first = group * full_per_group; first < segments; first += stride) {  /* the same rounds for all */
        const int taken = first + sub_group;
        const bool stores = sub_group < full_per_group && taken < segments;
        const int segment = min(taken, segments - 1);
        const int y = segment / per_row;
        const int x0 = (segment % per_row) * lanes;
        const int left = x0 - args.radius_x;  /* input of chunk 0, lane 0 */

        cc_value sum = cc_zero;
        for (int fy = 0; fy < args.filter_height; ++fy) {
            /* A zero border's row outside (sy < 0) reads zeros: a sub-group may not skip it alone. */
            const int sy = cc_border_index(y + fy - args.radius_y, args.height, args.border);
            cc_word chunk = cc_row_word(input, sy, left + lane, args);
            cc_word next = cc_row_word(input, sy, left + lanes + lane, args);
            int shift = 0;  /* t mod W */
            for (int t = 0; t < args.filter_width; ++t) {
                if (shift == lanes) {  /* tap t starts the next chunk: read the one after it */
                    shift = 0;
                    chunk = next;
                    next = cc_row_word(input, sy, left + (t / lanes + 1) * lanes + lane, args);
                }
                const cc_word held = lane >= shift ? chunk : next;
                const int from = lane + shift < lanes ? lane + shift : lane + shift - lanes;
                const cc_word word = cc_lane_shuffle(held, (uint)from);
                sum += cc_value_of_word(word) * filter[fy * args.filter_width + t];
                ++shift;
            }
        }
        if (stores && x0 + lane < args.width) cc_store(output, y * args.pitch + x0 + lane, sum);
    }
}
