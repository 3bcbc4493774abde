// fft_callbacks.cu: the `fft` variant's cuFFT LTO callbacks (backends/cuda/cuda_fft.cpp compiles them with
// NVRTC to LTO-IR, cuFFT links them into its own kernels when it plans): the product with the filter's
// spectrum as the inverse transform loads its input, and the padding as the forward transform loads its.
#include "common/geometry/conv_args.h"

// C++ linkage, not extern "C": cuFFT links a callback through a wrapper it compiles with NVRTC when it
// plans, which declares `extern __device__ float2 NAME(void*, unsigned long long, void*, void*)` (float
// for a real load) as C++, so it refers to the mangled name; an extern "C" definition leaves that
// reference unresolved, nvJitLink fails and cufftMakePlanMany64 returns CUFFT_INTERNAL_ERROR (session
// 26's failure on the H100; docs/performance.md, "fft: the product fused into the transforms"). The
// parameter lists must stay cuFFT's LTO callback signatures (cufftXt.h's cufftJITCallbackLoadC, ...R).

// What both callbacks read (cuFFT passes its device address as callerInfo, fixed when the plan is
// made): backends/cuda/cuda_fft.cpp's FftCallbackInfo, field for field.
struct FftCallbackInfo {
    const float2* filter_spectrum;  // the filter's half spectrum, laid out as the plane's
    ConvArgs args;                  // the image's size, pitch, radius and border
    int padded_pitch;               // floats per row of the padded transform (FftShape::real_pitch)
};

// CUFFT_CB_LD_COMPLEX on the inverse (complex-to-real) plan: element `offset` of the plane's spectrum
// times the filter's, which is laid out alike. cuFFT may load an element more than once; this reads
// and never writes, so each load gives the same product.
__device__ float2 cc_fft_multiply_load(void* spectrum, unsigned long long offset, void* info, void*)
{
    const float2 a = static_cast<const float2*>(spectrum)[offset];
    const float2 b = static_cast<const FftCallbackInfo*>(info)->filter_spectrum[offset];
    float2 product;
    product.x = a.x * b.x - a.y * b.y;
    product.y = a.x * b.y + a.y * b.x;
    return product;
}

// CUFFT_CB_LD_REAL on the forward (real-to-complex) plan of the padded path, which cuFFT runs out of
// place from the image plane: element `offset` of the padded layout (rows of padded_pitch floats),
// kernels_cl/fft.cl's fft_pad (the OpenCL path's pass) computed where the transform reads it.
__device__ float cc_fft_pad_load(void* image, unsigned long long offset, void* info, void*)
{
    const FftCallbackInfo* callback = static_cast<const FftCallbackInfo*>(info);
    const ConvArgs& args = callback->args;
    const int u = static_cast<int>(offset % static_cast<unsigned long long>(callback->padded_pitch));
    const int v = static_cast<int>(offset / static_cast<unsigned long long>(callback->padded_pitch));
    if (u >= args.width + 2 * args.radius_x || v >= args.height + 2 * args.radius_y) return 0.0f;
    const int sx = cc_border_index(u - args.radius_x, args.width, args.border);
    const int sy = cc_border_index(v - args.radius_y, args.height, args.border);
    if (sx < 0 || sy < 0) return 0.0f;
    return static_cast<const float*>(image)[sy * args.pitch + sx];
}
