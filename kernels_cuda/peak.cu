// peak.cu: the two kernels that measure a device's ceilings (cuda_peaks.cpp): a float4 grid-stride
// copy for the memory bandwidth and independent FMA chains for the FP32 rate.
#include "kernels_cuda/launchers.h"

namespace {

__global__ void copy_float4(const float4* __restrict__ source,
                            float4* __restrict__ target,
                            const int count)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
        target[i] = source[i];
}

// Eight independent chains hide the FMA latency; the inner loop has a constant trip count, so it is
// unrolled into 8 x 16 FMAs per iteration (kPeakFmasPerIteration) with no loop overhead between
// them. The sum is stored, so no chain is dead code; scale < 1 keeps every value finite.
__global__ void fma_chains(float* __restrict__ result,
                           const float scale,
                           const float offset,
                           const int iterations)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float a0 = i, a1 = a0 + 1.0f, a2 = a0 + 2.0f, a3 = a0 + 3.0f;
    float a4 = a0 + 4.0f, a5 = a0 + 5.0f, a6 = a0 + 6.0f, a7 = a0 + 7.0f;
    for (int n = 0; n < iterations; ++n) {
#pragma unroll
        for (int step = 0; step < 16; ++step) {
            a0 = fmaf(a0, scale, offset);
            a1 = fmaf(a1, scale, offset);
            a2 = fmaf(a2, scale, offset);
            a3 = fmaf(a3, scale, offset);
            a4 = fmaf(a4, scale, offset);
            a5 = fmaf(a5, scale, offset);
            a6 = fmaf(a6, scale, offset);
            a7 = fmaf(a7, scale, offset);
        }
    }
    result[i] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

}  // namespace

namespace cc::cuda_kernels {

cudaError_t launch_copy_float4(const float* source, float* target, int float4_count, int blocks, int threads,
                               cudaStream_t stream)
{
    copy_float4<<<blocks, threads, 0, stream>>>(reinterpret_cast<const float4*>(source),
                                                reinterpret_cast<float4*>(target), float4_count);
    return cudaGetLastError();
}

cudaError_t launch_fma_chains(float* result, float scale, float offset, int iterations, int blocks, int threads,
                              cudaStream_t stream)
{
    fma_chains<<<blocks, threads, 0, stream>>>(result, scale, offset, iterations);
    return cudaGetLastError();
}

}  // namespace cc::cuda_kernels
