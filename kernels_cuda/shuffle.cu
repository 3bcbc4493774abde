// shuffle.cu: the image read from global memory straight into registers, horizontal neighbours exchanged between the lanes of a warp by warp shuffles (__shfl_sync, SHFL); no shared memory.
// Each warp of W lanes computes row segments of W outputs (docs/memory-spaces.md, "Warp and sub-group
// shuffles"). For one filter row, the segment's inputs are x0 - r .. x0 + W - 1 + r, read W at a time:
// chunk k holds input x0 - r + k * W + lane in each lane. Output lane L's tap t (0 .. 2r) is input
// L + t of those, held by lane (L + t) mod W in chunk (L + t) / W; since each lane is read by exactly
// one other for a given t (a rotation), the holder picks the chunk (lanes below t mod W give the next
// one) and one shuffle a tap delivers it. Two chunks are live at a time, each read once per row.
// W is the warp's width, 32, or the whole block where a block is smaller (as shuffle.cl reads its
// sub-group size at run time). Every warp of a block makes the same rounds and rows, as in shuffle.cl,
// where an OpenCL implementation may run a sub-group's shuffle as a barrier over the whole work-group;
// CUDA runs warps apart, so only the short warp, whose mask could not name its missing lanes, leaves.
#include "common/geometry/pixel.h"
#include "kernels_cuda/filter_in_constant.cuh"

namespace {

// A pixel crosses lanes as one 32-bit word (float, or unsigned int), as in shuffle.cl.
#if CC_PIXEL == CC_PIXEL_F32
typedef float cc_word;
__device__ __forceinline__ cc_word cc_word_of(cc_pixel pixel) { return pixel; }
__device__ __forceinline__ cc_value cc_value_of_word(cc_word word) { return word; }
#elif CC_PIXEL == CC_PIXEL_U8
typedef unsigned int cc_word;
__device__ __forceinline__ cc_word cc_word_of(cc_pixel pixel) { return pixel; }
__device__ __forceinline__ cc_value cc_value_of_word(cc_word word) { return (float)word; }
#else
typedef unsigned int cc_word;
__device__ __forceinline__ cc_word cc_word_of(cc_pixel pixel)
{
    return (unsigned int)pixel.x | ((unsigned int)pixel.y << 8) | ((unsigned int)pixel.z << 16) |
           ((unsigned int)pixel.w << 24);
}
__device__ __forceinline__ cc_value cc_value_of_word(cc_word word) { return cc_unpack_rgba8(word); }
#endif

// Input pixel x of row sy (already folded) under the border rule, as a word; the zero border's outside,
// a row (sy < 0) or a column, reads 0.
__device__ __forceinline__ cc_word cc_row_word(const cc_pixel* input, int sy, int x, const ConvArgs& args)
{
    const int sx = cc_border_index(x, args.width, args.border);
    return cc_word_of(sx < 0 || sy < 0 ? cc_pixel_zero : input[sy * args.pitch + sx]);
}

__global__ void convolve_shuffle(const cc_pixel* __restrict__ input,
                                 cc_pixel* __restrict__ output,
                                 const ConvArgs args)
{
    // Every full warp takes segments in turn across the whole grid, so any block shape covers the
    // image. All warps of a block make the same rounds: one that has no segment left in the last round
    // computes the last segment again and stores nothing. A warp smaller than the others (the last of a
    // block whose size is no multiple of W) takes none: its lanes could not be told apart from a full one's.
    const int threads = blockDim.x * blockDim.y;
    const int lanes = min(warpSize, threads);  // W
    const unsigned int members = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
    const int thread = threadIdx.y * blockDim.x + threadIdx.x;
    const int lane = thread % lanes;
    const int full_per_block = threads / lanes;
    const int warp = thread / lanes;
    if (warp >= full_per_block) return;  // the whole warp alike
    const int block = blockIdx.y * gridDim.x + blockIdx.x;
    const int stride = gridDim.x * gridDim.y * full_per_block;
    const int per_row = (args.width + lanes - 1) / lanes;
    const int segments = per_row * args.height;

    for (int first = block * full_per_block; first < segments; first += stride) {  // the same rounds for all
        const int taken = first + warp;
        const bool stores = taken < segments;
        const int segment = min(taken, segments - 1);
        const int y = segment / per_row;
        const int x0 = (segment % per_row) * lanes;
        const int left = x0 - args.radius_x;  // input of chunk 0, lane 0

        cc_value sum = cc_zero;
        for (int fy = 0; fy < args.filter_height; ++fy) {
            // A zero border's row outside (sy < 0) reads zeros, as in shuffle.cl.
            const int sy = cc_border_index(y + fy - args.radius_y, args.height, args.border);
            cc_word chunk = cc_row_word(input, sy, left + lane, args);
            cc_word next = cc_row_word(input, sy, left + lanes + lane, args);
            int shift = 0;  // t mod W
            for (int t = 0; t < args.filter_width; ++t) {
                if (shift == lanes) {  // tap t starts the next chunk: read the one after it
                    shift = 0;
                    chunk = next;
                    next = cc_row_word(input, sy, left + (t / lanes + 1) * lanes + lane, args);
                }
                const cc_word held = lane >= shift ? chunk : next;
                const int from = lane + shift < lanes ? lane + shift : lane + shift - lanes;
                const cc_word word = __shfl_sync(members, held, from);
                sum += cc_value_of_word(word) * c_filter[fy * args.filter_width + t];
                ++shift;
            }
        }
        if (stores && x0 + lane < args.width) cc_store(output, y * args.pitch + x0 + lane, sum);
    }
}

}  // namespace

namespace cc::cuda_kernels {

// Launched by the CUDA backend with the plan's grid, block and shared bytes (kernels_cuda/launchers.h).
extern const OfflineKernel CC_PIXEL_ENTRY(shuffle_kernel) =
    {"convolve_shuffle", reinterpret_cast<const void*>(&convolve_shuffle), &c_filter};

}  // namespace cc::cuda_kernels
