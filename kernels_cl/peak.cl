/* peak.cl: the two kernels that measure a device's ceilings (opencl_peaks.cpp): a float4 grid-stride
   copy for the memory bandwidth and independent FMA chains for the FP32 rate. */

__kernel void copy_float4(__global const float4* restrict source,
                          __global float4* restrict target,
                          const int count)
{
    for (int i = get_global_id(0); i < count; i += get_global_size(0))
        target[i] = source[i];
}

/* Eight independent chains hide the FMA latency; the inner loop has a constant trip count, so it is
   unrolled into 8 x 16 FMAs per iteration (kPeakFmasPerIteration) with no loop overhead between
   them. The sum is stored, so no chain is dead code; scale < 1 keeps every value finite. */
__kernel void fma_chains(__global float* restrict result,
                         const float scale,
                         const float offset,
                         const int iterations)
{
    const int i = get_global_id(0);
    float a0 = i, a1 = a0 + 1.0f, a2 = a0 + 2.0f, a3 = a0 + 3.0f;
    float a4 = a0 + 4.0f, a5 = a0 + 5.0f, a6 = a0 + 6.0f, a7 = a0 + 7.0f;
    for (int n = 0; n < iterations; ++n) {
#pragma unroll
        for (int step = 0; step < 16; ++step) {
            a0 = fma(a0, scale, offset);
            a1 = fma(a1, scale, offset);
            a2 = fma(a2, scale, offset);
            a3 = fma(a3, scale, offset);
            a4 = fma(a4, scale, offset);
            a5 = fma(a5, scale, offset);
            a6 = fma(a6, scale, offset);
            a7 = fma(a7, scale, offset);
        }
    }
    result[i] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
