// constant.cu: as global.cu, but the filter lives in a __constant__ array: every thread of a warp
// reads the same coefficient at once, which the constant cache broadcasts.
#include "kernels_cuda/filter_in_constant.cuh"

namespace {

__global__ void convolve_constant(const float* __restrict__ input,
                                  float* __restrict__ output,
                                  const ConvArgs args)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= args.width || y >= args.height) return;

    float sum = 0.0f;
    for (int fy = 0; fy < args.filter_height; ++fy) {
        const int sy = cc_border_index(y + fy - args.radius_y, args.height, args.border);
        for (int fx = 0; fx < args.filter_width; ++fx) {
            const int sx = cc_border_index(x + fx - args.radius_x, args.width, args.border);
            const float pixel = (sx < 0 || sy < 0) ? 0.0f : input[sy * args.pitch + sx];
            sum += pixel * c_filter[fy * args.filter_width + fx];
        }
    }
    output[y * args.pitch + x] = sum;
}

}  // namespace

namespace cc::cuda_kernels {

cudaError_t upload_constant_filter(const float* filter, int taps, cudaStream_t stream)
{
    return upload_filter_to_constant(filter, taps, stream);
}

cudaError_t launch_constant(const float* input, float* output, const ConvArgs& args, dim3 block,
                            cudaStream_t stream)
{
    convolve_constant<<<grid_for(args, block), block, 0, stream>>>(input, output, args);
    return cudaGetLastError();
}

}  // namespace cc::cuda_kernels
