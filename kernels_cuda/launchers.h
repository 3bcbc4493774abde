// launchers.h: host entry points to the CUDA kernels, one small set per kernel file, callable from C++.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

#include "common/geometry/conv_args.h"
#include "common/geometry/tile_shape.h"

namespace cc::cuda_kernels {

// One 64 KB constant bank of floats: the largest filter the constant-memory variants can hold.
inline constexpr int kMaxConstantTaps = 16384;

inline dim3 grid_for(const ConvArgs& args, dim3 block)
{
    return dim3((args.width + block.x - 1) / block.x, (args.height + block.y - 1) / block.y);
}

// Shared memory of one tiled block: its output tile plus the apron on every side.
inline std::size_t tiled_shared_bytes(const ConvArgs& args, dim3 block)
{
    return tile_bytes(args.radius_x, args.radius_y, block.x, block.y);
}

// global.cu
cudaError_t launch_global(const float* input, float* output, const float* filter, const ConvArgs& args,
                          dim3 block, cudaStream_t stream);

// constant.cu
cudaError_t upload_constant_filter(const float* filter, int taps, cudaStream_t stream);
cudaError_t launch_constant(const float* input, float* output, const ConvArgs& args, dim3 block,
                            cudaStream_t stream);

// tiled.cu
cudaError_t upload_tiled_filter(const float* filter, int taps, cudaStream_t stream);
cudaError_t prepare_tiled(std::size_t shared_bytes);  // opts in above 48 KB of dynamic shared memory
cudaError_t launch_tiled(const float* input, float* output, const ConvArgs& args, dim3 block,
                         cudaStream_t stream);

// texture.cu
cudaError_t upload_texture_filter(const float* filter, int taps, cudaStream_t stream);
cudaError_t launch_texture(cudaTextureObject_t input, float* output, const ConvArgs& args, dim3 block,
                           cudaStream_t stream);

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
