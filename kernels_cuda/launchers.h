// launchers.h: the CUDA kernels as C++ reaches them: each pixel format's table of offline kernels, and the launch_* entry points of the peak and fft kernels.
#pragma once

#include <cstddef>
#include <string_view>

#include <cuda_runtime_api.h>

#include "common/geometry/conv_args.h"
#include "common/geometry/pixel.h"

namespace cc::cuda_kernels {

// One 64 KB constant bank of floats: the largest filter the constant-memory variants can hold.
inline constexpr int kMaxConstantTaps = 16384;

// Every offline kernel file (each kernels_cuda/*.cu that backends/cuda/backend.cmake does not name as NVRTC's
// or as compiled once) is compiled once per pixel format (-DCC_PIXEL=..., common/geometry/pixel.h), so each
// of their kernels exists once per format. Each file
// exports its kernel for the format it is compiled for as an OfflineKernel (named by CC_PIXEL_ENTRY
// below: global_kernel_f32, global_kernel_u8, ...), and pixel_kernels.cu gathers them in that format's
// table, which the CUDA backend searches by entry point (common/domain/variants.h) and launches
// through cudaLaunchKernel with the plan's grid, block and shared bytes, as it launches NVRTC's. A
// frame unit crosses as a pointer: a float plane, or the interleaved 8-bit image, read as the format.
// Each format's files have their own __constant__ filter (filter_in_constant.cuh), which the backend
// fills through the exported symbol of the kernel it launches.
struct OfflineKernel {
    const char* entry;          // the __global__ function's name, as the description names it
    const void* function;       // that function, for cudaLaunchKernel and cudaFuncSetAttribute
    const void* filter_symbol;  // its file's c_filter, for cudaGetSymbolAddress; null where the filter is an argument
};

// Each format's table: a pointer per offline kernel file (every kernels_cuda/*.cu that
// backends/cuda/backend.cmake does not name as NVRTC's or as compiled once), then null.
extern const OfflineKernel* const offline_kernels_f32[];
extern const OfflineKernel* const offline_kernels_u8[];
extern const OfflineKernel* const offline_kernels_u8x4[];

// The kernel named `entry` compiled for CC_PIXEL_F32, CC_PIXEL_U8 or CC_PIXEL_U8X4
// (common/geometry/pixel_format.h's pixel_format), or null when no offline file has it.
inline const OfflineKernel* find_offline_kernel(int format, std::string_view entry)
{
    const OfflineKernel* const* table = format == CC_PIXEL_U8     ? offline_kernels_u8
                                        : format == CC_PIXEL_U8X4 ? offline_kernels_u8x4
                                                                  : offline_kernels_f32;
    for (; *table; ++table)
        if (entry == (*table)->entry) return *table;
    return nullptr;
}

#ifdef __CUDACC__
// In a kernel file <file>.cu: its exported kernel for the format it is being compiled for,
// `extern const OfflineKernel CC_PIXEL_ENTRY(<file>_kernel) = {...};`.
#if CC_PIXEL == CC_PIXEL_U8
#define CC_PIXEL_ENTRY(name) name##_u8
#elif CC_PIXEL == CC_PIXEL_U8X4
#define CC_PIXEL_ENTRY(name) name##_u8x4
#else
#define CC_PIXEL_ENTRY(name) name##_f32
#endif
#endif

// peak.cu: the device's ceilings (backends/cuda/cuda_peaks.cpp), one-dimensional launches
cudaError_t launch_copy_float4(const float* source, float* target, int float4_count, int blocks, int threads,
                               cudaStream_t stream);
cudaError_t launch_fma_chains(float* result, float scale, float offset, int iterations, int blocks, int threads,
                              cudaStream_t stream);

// fft.cu: the kernels around cuFFT's transforms (backends/cuda/cuda_fft.h runs them)
cudaError_t launch_fft_pad(const float* input, float* padded, const ConvArgs& args, int padded_height,
                           int padded_pitch, cudaStream_t stream);
cudaError_t launch_fft_multiply(float2* spectrum, const float2* filter_spectrum, int count, cudaStream_t stream);
cudaError_t launch_fft_crop(const float* padded, float* output, const ConvArgs& args, int padded_pitch,
                            cudaStream_t stream);
// The unpadded path's edge bands: `blocks` of kFftBandBlockX x kFftBandBlockY threads, as
// common/geometry/fft_shape.h's fft_band_blocks counts them; `coefficients` as fft_band_coefficients lays them out.
inline constexpr int kFftBandBlockX = 32, kFftBandBlockY = 4;
cudaError_t launch_fft_bands(const float* input, float* output, const float* coefficients, int column_length,
                             const ConvArgs& args, int blocks, cudaStream_t stream);

}  // namespace cc::cuda_kernels
