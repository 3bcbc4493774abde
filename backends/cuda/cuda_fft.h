// cuda_fft.h: the `fft` variant on CUDA: cuFFT's plans, its LTO callbacks and fft.cu's kernels under the one FftConvolver.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_resources.h"
#include "backends/fft_convolver.h"
#include "backends/launch_plan.h"
#include "common/geometry/fft_shape.h"
#include "common/geometry/conv_args.h"
#include "kernels_cuda/launchers.h"

namespace cc::cuda {

// Owns a cuFFT plan handle (cufftHandle is a plain int, so no unique_ptr).
class FftPlan {
 public:
  FftPlan() = default;
  explicit FftPlan(int handle) : handle_(handle) {}
  ~FftPlan();
  FftPlan(FftPlan&& other) noexcept : handle_(other.handle_) { other.handle_ = kNone; }
  FftPlan& operator=(FftPlan&& other) noexcept;
  FftPlan(const FftPlan&) = delete;
  FftPlan& operator=(const FftPlan&) = delete;
  int get() const { return handle_; }
  explicit operator bool() const { return handle_ != kNone; }

 private:
  static constexpr int kNone = -1;
  int handle_ = kNone;
};

// Whether a convolver tries to fuse the padding and the product into cuFFT's transforms (LTO callbacks)
// or runs them as passes of their own from the start (tests compare the two).
enum class FftFusion { Callbacks, Separate };

// The run's choice: Separate, unless CONVCOMPARE_CUDA_FFT_CALLBACKS=1. The callbacks plan and validate on
// the H100, but ran slower there than the separate passes at 8192^2, and the padded path's forward
// transform with its padding callback failed (CUFFT_INVALID_VALUE) on some frames (docs/performance.md,
// "fft: the product fused into the transforms"): they stay an experiment, measured side by side.
FftFusion default_fft_fusion();

// cuFFT's translation for FftConvolver (backends/fft_convolver.h). Fused (where cuFFT plans the LTO
// callbacks of kernels_cuda/fft_callbacks.cu): the product in the inverse transform's loads, and on the
// padded path the padding in the forward's, which then reads the input plane through the border rule,
// while the filter's spectrum goes through a plain plan of its own. Where cuFFT cannot plan a callback
// (cufftXtSetJITCallback or cufftMakePlanMany64 fails) plain plans run with fft_pad and fft_multiply as
// passes of their own (kernels_cuda/fft.cu), and not_fused() says why: a slower run, never a failed one
// (docs/performance.md, "fft: the product fused into the transforms"). Planning compiles the callbacks
// (NVRTC, once per device) and plans the transforms with one shared work area.
class CufftLibrary {
 public:
  using Buffer = DeviceBuffer;
  using Input = const float*;
  using Output = float*;
  using Queue = cudaStream_t;

  // `setup_stream`: where the filter's spectrum is computed.
  explicit CufftLibrary(cudaStream_t setup_stream, FftFusion fusion = default_fft_fusion())
      : setup_stream_(setup_stream), fusion_(fusion) {}
  // Neither copied nor moved: the fused plans hold the address of callback_info_address_.
  CufftLibrary(const CufftLibrary&) = delete;
  CufftLibrary& operator=(const CufftLibrary&) = delete;

  static float* data(const DeviceBuffer& buffer) { return buffer.get(); }
  DeviceBuffer allocate(std::size_t bytes) const { return DeviceBuffer(bytes / sizeof(float)); }
  DeviceBuffer constants(const std::vector<float>& values) const {
    DeviceBuffer buffer(values.size());
    write(buffer.get(), values);
    return buffer;
  }
  void write(float* target, const std::vector<float>& values) const {
    CC_CUDA_CHECK(cudaMemcpyAsync(target, values.data(), values.size() * sizeof(float), cudaMemcpyHostToDevice,
                                  setup_stream_));
  }
  FftProduct plan(const FftShape& shape, const ConvArgs& args, const float* filter_spectrum);
  void forward_filter(const float* real, float* spectrum) const;
  void finish();
  // cuFFT's work area and the callbacks' parameters.
  std::size_t bytes() const { return work_area_.bytes() + callback_info_.bytes(); }
  GroupShape band_group() const { return {cuda_kernels::kFftBandBlockX, cuda_kernels::kFftBandBlockY}; }

  // A plane's steps, queued on `stream`.
  void forward(const float* real, float* spectrum, cudaStream_t stream) const;
  void inverse(const float* spectrum, float* real, cudaStream_t stream) const;
  // The plans' callbacks make the product (and padding), reading the filter's spectrum from their parameters.
  void fused_transforms(const float* real, float* spectrum, const float*, float* result, cudaStream_t stream) const {
    forward(real, spectrum, stream);
    inverse(spectrum, result, stream);
  }
  void pad(const float* in, float* padded, const ConvArgs& args, int height, int pitch, cudaStream_t stream) const {
    CC_CUDA_CHECK(cuda_kernels::launch_fft_pad(in, padded, args, height, pitch, stream));
  }
  void multiply(float* spectrum, const float* filter_spectrum, int count, cudaStream_t stream) const {
    CC_CUDA_CHECK(cuda_kernels::launch_fft_multiply(reinterpret_cast<float2*>(spectrum),
                                                    reinterpret_cast<const float2*>(filter_spectrum), count, stream));
  }
  void crop(const float* padded, float* out, const ConvArgs& args, int pitch, cudaStream_t stream) const {
    CC_CUDA_CHECK(cuda_kernels::launch_fft_crop(padded, out, args, pitch, stream));
  }
  void bands(const float* in, float* out, const float* coefficients, int column_length, const ConvArgs& args,
             int blocks, cudaStream_t stream) const {
    CC_CUDA_CHECK(cuda_kernels::launch_fft_bands(in, out, coefficients, column_length, args, blocks, stream));
  }
  void mark(cudaStream_t) const {}  // a span's events are recorded on the stream itself

  // "" when fused; else why not: "CUFFT_INTERNAL_ERROR from cufftMakePlanMany64 (the product's callback)",
  // or "separate passes asked for" (FftFusion::Separate).
  const std::string& not_fused() const { return not_fused_; }

 private:
  bool fused() const { return not_fused_.empty(); }
  bool plan_fused(const float* filter_spectrum, std::size_t& work_bytes);
  void plan_separate(std::size_t& work_bytes);

  cudaStream_t setup_stream_;
  FftFusion fusion_;
  FftShape shape_;
  ConvArgs args_{};
  // filter_plan_: on the fused padded path, a plain forward plan for the filter (the forward reads the
  // image), until finish().
  FftPlan forward_, inverse_, filter_plan_;
  // callback_info_: the callbacks' FftCallbackInfo (fft_callbacks.cu), on the device; fused plans only.
  DeviceBuffer callback_info_, work_area_;
  void* callback_info_address_ = nullptr;  // callback_info_.get(), where the plans' callbacks were told to look
  std::string not_fused_;
};

// One problem's correlation through cuFFT, one plane at a time: made with (problem, stream[, fusion]),
// it computes the filter's spectrum on `stream` and waits for it.
using FftConvolver = cc::FftConvolver<CufftLibrary>;

// For the report's compile_time: how the last convolver made for `shape` (any device) ran the product:
// "the product (and padding) LTO callbacks", or "not fused: <why>; fft_pad and fft_multiply passes";
// "" before any was made.
std::string fft_fusion_text(const FftShape& shape);

}  // namespace cc::cuda
