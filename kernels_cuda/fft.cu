// fft.cu: the `fft` variant's own kernels around cuFFT's transforms: pad a plane into the transform
// buffer by the border rule, multiply its spectrum by the filter's, crop the result back out.
#include "kernels_cuda/launchers.h"

namespace {

// Every float of the padded buffer (padded_pitch x padded_height): the image shifted by the radius,
// its apron read through the border rule as the direct kernels read it, zeros beyond (the room that
// keeps the transform's wrap-around from reaching the result) and in the row padding.
__global__ void fft_pad(const float* __restrict__ input,
                        float* __restrict__ padded,
                        const ConvArgs args,
                        const int padded_height,
                        const int padded_pitch)
{
    const int u = blockIdx.x * blockDim.x + threadIdx.x;
    const int v = blockIdx.y * blockDim.y + threadIdx.y;
    if (u >= padded_pitch || v >= padded_height) return;

    float value = 0.0f;
    if (u < args.width + 2 * args.radius_x && v < args.height + 2 * args.radius_y) {
        const int sx = cc_border_index(u - args.radius_x, args.width, args.border);
        const int sy = cc_border_index(v - args.radius_y, args.height, args.border);
        if (sx >= 0 && sy >= 0) value = input[sy * args.pitch + sx];
    }
    padded[(size_t)v * padded_pitch + u] = value;
}

// The plane's spectrum times the filter's (already reversed and scaled), one complex number each.
__global__ void fft_multiply(float2* __restrict__ spectrum,
                             const float2* __restrict__ filter_spectrum,
                             const int count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;

    const float2 a = spectrum[i];
    const float2 b = filter_spectrum[i];
    spectrum[i] = make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// Output pixel (x, y) is the correlation centred on padded (x + radius_x, y + radius_y).
__global__ void fft_crop(const float* __restrict__ padded,
                         float* __restrict__ output,
                         const ConvArgs args,
                         const int padded_pitch)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= args.width || y >= args.height) return;

    output[y * args.pitch + x] = padded[(size_t)(y + args.radius_y) * padded_pitch + x + args.radius_x];
}

}  // namespace

namespace cc::cuda_kernels {

cudaError_t launch_fft_pad(const float* input, float* padded, const ConvArgs& args, int padded_height,
                           int padded_pitch, cudaStream_t stream)
{
    const dim3 block(32, 8);
    const dim3 grid((padded_pitch + block.x - 1) / block.x, (padded_height + block.y - 1) / block.y);
    fft_pad<<<grid, block, 0, stream>>>(input, padded, args, padded_height, padded_pitch);
    return cudaGetLastError();
}

cudaError_t launch_fft_multiply(float2* spectrum, const float2* filter_spectrum, int count, cudaStream_t stream)
{
    const int block = 256;
    fft_multiply<<<(count + block - 1) / block, block, 0, stream>>>(spectrum, filter_spectrum, count);
    return cudaGetLastError();
}

cudaError_t launch_fft_crop(const float* padded, float* output, const ConvArgs& args, int padded_pitch,
                            cudaStream_t stream)
{
    const dim3 block(32, 8);
    fft_crop<<<grid_for(args, block), block, 0, stream>>>(padded, output, args, padded_pitch);
    return cudaGetLastError();
}

}  // namespace cc::cuda_kernels
