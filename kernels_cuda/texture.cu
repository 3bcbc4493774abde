// texture.cu: the image is read through the texture path, a texture object over a cudaArray; the
// filter is in __constant__ memory, so this differs from constant.cu only in how pixels are fetched.
// Zero and clamp borders come free from the address mode the host chose (cudaAddressModeBorder returns
// 0 outside, cudaAddressModeClamp the edge pixel), with unnormalized coordinates and point sampling.
// Mirror and wrap are folded in code instead: cudaAddressModeWrap and cudaAddressModeMirror need
// normalized coordinates (unnormalized, they silently clamp), and the hardware's mirror repeats the
// edge pixel (abcd|dcba) where ours, OpenCV's REFLECT_101, does not (abcd|cba).
// 8-bit images (a cudaArray of uchar1 or uchar4 with cudaReadModeNormalizedFloat) are read as normalized
// floats, 0..1 for 0..255: the hardware converts. The sum is scaled back by 255 once, after the loop
// (CC_TEXEL_SCALE, 1 for float images): one multiply per output rather than one per tap, and the filter
// stays the one every variant uploads. cudaAddressModeBorder returns 0 in every channel.
#include "common/geometry/pixel.h"
#include "kernels_cuda/filter_in_constant.cuh"

namespace {

__global__ void convolve_texture(cudaTextureObject_t input,
                                 cc_pixel* __restrict__ output,
                                 const ConvArgs args)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= args.width || y >= args.height) return;

    const bool fold = args.border == CC_BORDER_MIRROR || args.border == CC_BORDER_WRAP;
    cc_value sum = cc_zero;
    for (int fy = 0; fy < args.filter_height; ++fy) {
        int sy = y + fy - args.radius_y;
        if (fold) sy = cc_border_index(sy, args.height, args.border);
        for (int fx = 0; fx < args.filter_width; ++fx) {
            int sx = x + fx - args.radius_x;
            if (fold) sx = cc_border_index(sx, args.width, args.border);
            // +0.5: texel centres, so point sampling lands on texel (sx, sy) exactly
            sum += cc_texel(input, sx + 0.5f, sy + 0.5f) * c_filter[fy * args.filter_width + fx];
        }
    }
    cc_store(output, y * args.pitch + x, sum * CC_TEXEL_SCALE);
}

}  // namespace

namespace cc::cuda_kernels {

// Launched by the CUDA backend with the plan's grid, block and shared bytes (kernels_cuda/launchers.h).
extern const OfflineKernel CC_PIXEL_ENTRY(texture_kernel) =
    {"convolve_texture", reinterpret_cast<const void*>(&convolve_texture), &c_filter};

}  // namespace cc::cuda_kernels
