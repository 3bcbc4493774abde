// launchers.h: host entry points to the CUDA kernels, one small set per kernel file, callable from C++.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

#include "common/geometry/conv_args.h"
#include "common/geometry/pixel.h"
#include "common/geometry/tile_shape.h"

namespace cc::cuda_kernels {

// One 64 KB constant bank of floats: the largest filter the constant-memory variants can hold.
inline constexpr int kMaxConstantTaps = 16384;

inline dim3 grid_for(const ConvArgs& args, dim3 block)
{
    return dim3((args.width + block.x - 1) / block.x, (args.height + block.y - 1) / block.y);
}

// Shared memory of one tiled block: its output tile plus the apron on every side, in pixels of the
// frame's format (a float, or 1 or 4 bytes of 8-bit: common/geometry/pixel.h).
inline std::size_t tiled_shared_bytes(const ConvArgs& args, dim3 block, std::size_t pixel_bytes)
{
    return tile_bytes(args.radius_x, args.radius_y, block.x, block.y, pixel_bytes);
}

// global.cu, constant.cu, tiled.cu and texture.cu are compiled once per pixel format (CMakeLists.txt:
// -DCC_PIXEL=..., common/geometry/pixel.h), so each of their entry points exists once per format, named
// for it (launch_global_f32, launch_global_u8, launch_global_u8x4: CC_PIXEL_ENTRY below) and gathered in
// that format's table by pixel_kernels.cu. A frame unit crosses as void*: a float plane, or the
// interleaved 8-bit image, read as the table's format. Each format's files have their own __constant__
// filter (filter_in_constant.cuh), so a filter is uploaded through the table it is launched through.
struct PixelKernels {
    cudaError_t (*launch_global)(const void* input, void* output, const float* filter, const ConvArgs& args,
                                 dim3 block, cudaStream_t stream);
    cudaError_t (*upload_constant_filter)(const float* filter, int taps, cudaStream_t stream);
    cudaError_t (*launch_constant)(const void* input, void* output, const ConvArgs& args, dim3 block,
                                   cudaStream_t stream);
    cudaError_t (*upload_tiled_filter)(const float* filter, int taps, cudaStream_t stream);
    cudaError_t (*prepare_tiled)(std::size_t shared_bytes);  // opts in above 48 KB of dynamic shared memory
    cudaError_t (*launch_tiled)(const void* input, void* output, const ConvArgs& args, dim3 block,
                                cudaStream_t stream);
    cudaError_t (*upload_texture_filter)(const float* filter, int taps, cudaStream_t stream);
    cudaError_t (*launch_texture)(cudaTextureObject_t input, void* output, const ConvArgs& args, dim3 block,
                                  cudaStream_t stream);
};
extern const PixelKernels pixel_kernels_f32, pixel_kernels_u8, pixel_kernels_u8x4;

// The table for CC_PIXEL_F32, CC_PIXEL_U8 or CC_PIXEL_U8X4 (common/geometry/pixel_format.h's pixel_format).
inline const PixelKernels& pixel_kernels(int format)
{
    if (format == CC_PIXEL_U8) return pixel_kernels_u8;
    if (format == CC_PIXEL_U8X4) return pixel_kernels_u8x4;
    return pixel_kernels_f32;
}

#ifdef __CUDACC__
// In a kernel file: its entry points for the format it is being compiled for, as the table lists them.
#if CC_PIXEL == CC_PIXEL_U8
#define CC_PIXEL_ENTRY(name) name##_u8
#elif CC_PIXEL == CC_PIXEL_U8X4
#define CC_PIXEL_ENTRY(name) name##_u8x4
#else
#define CC_PIXEL_ENTRY(name) name##_f32
#endif
cudaError_t CC_PIXEL_ENTRY(launch_global)(const void* input, void* output, const float* filter,
                                          const ConvArgs& args, dim3 block, cudaStream_t stream);
cudaError_t CC_PIXEL_ENTRY(upload_constant_filter)(const float* filter, int taps, cudaStream_t stream);
cudaError_t CC_PIXEL_ENTRY(launch_constant)(const void* input, void* output, const ConvArgs& args, dim3 block,
                                            cudaStream_t stream);
cudaError_t CC_PIXEL_ENTRY(upload_tiled_filter)(const float* filter, int taps, cudaStream_t stream);
cudaError_t CC_PIXEL_ENTRY(prepare_tiled)(std::size_t shared_bytes);
cudaError_t CC_PIXEL_ENTRY(launch_tiled)(const void* input, void* output, const ConvArgs& args, dim3 block,
                                         cudaStream_t stream);
cudaError_t CC_PIXEL_ENTRY(upload_texture_filter)(const float* filter, int taps, cudaStream_t stream);
cudaError_t CC_PIXEL_ENTRY(launch_texture)(cudaTextureObject_t input, void* output, const ConvArgs& args,
                                           dim3 block, cudaStream_t stream);
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
