// cuda_fft.h: the `fft` variant on CUDA: cuFFT plans, the spectrum buffer and the filter's spectrum.
#pragma once

#include <cstddef>
#include <string>

#include <cuda_runtime_api.h>

#include "backends/cuda/cuda_resources.h"
#include "common/geometry/fft_shape.h"
#include "common/domain/problem.h"

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

// One problem's correlation through the frequency domain, one plane at a time, on the path
// common/geometry/fft_shape.h chooses. Fused (where cuFFT plans the LTO callbacks of
// kernels_cuda/fft_callbacks.cu): unpadded, the forward real-to-complex transform from the input plane
// into the spectrum buffer, the inverse with the product in its loads into the output plane, then the
// edge bands directly (borders other than wrap); padded, the forward transform reads the input plane
// through a padding callback (the border rule), the inverse with the product runs in place, then the
// crop. Where cuFFT cannot plan a callback (cufftXtSetJITCallback or cufftMakePlanMany64 fails) the
// same steps run with fft_pad and fft_multiply as passes of their own (kernels_cuda/fft.cu), and
// not_fused() says why: a slower run, never a failed one (docs/performance.md, "fft: the product fused
// into the transforms"). Constructing it compiles the callbacks (NVRTC, once per device), plans the transforms
// (one shared work area), allocates the buffers and computes the filter's spectrum on `stream`, then
// waits for it.
class FftConvolver {
 public:
  FftConvolver(const Problem& problem, cudaStream_t stream, FftFusion fusion = default_fft_fusion());

  // One plane (problem.width x problem.height floats, rows packed), queued on `stream`, not waited for.
  // `in` is only read (cuFFT's out-of-place real-to-complex transform keeps its input).
  void convolve_plane(const float* in, float* out, cudaStream_t stream);

  // cuFFT's work area and the callbacks' parameters: the device memory it holds beyond what the plan
  // counted (the spectrum and filter-spectrum buffers and the edge bands' coefficients,
  // backends/launch_plan.cpp).
  std::size_t work_area_bytes() const { return work_area_.bytes() + callback_info_.bytes(); }

  const FftShape& shape() const { return shape_; }
  bool fused() const { return not_fused_.empty(); }
  // "" when fused; else why not: "CUFFT_INTERNAL_ERROR from cufftMakePlanMany64 (the product's callback)",
  // or "separate passes asked for" (FftFusion::Separate).
  const std::string& not_fused() const { return not_fused_; }

 private:
  bool plan_fused(cudaStream_t stream, std::size_t& work_bytes, FftPlan& filter_plan);
  void plan_separate(std::size_t& work_bytes);

  ConvArgs args_;
  FftShape shape_;
  FftPlan forward_, inverse_;
  // callback_info_: the callbacks' FftCallbackInfo (fft_callbacks.cu), on the device; fused plans only.
  DeviceBuffer spectrum_, filter_spectrum_, callback_info_, work_area_, band_coefficients_;
  void* callback_info_address_ = nullptr;  // callback_info_.get(), where the plans' callbacks were told to look
  int band_column_length_ = 0, band_blocks_ = 0;
  std::string not_fused_;
};

// For the report's compile_time: how the last convolver made for `shape` (any device) ran the product:
// "the product (and padding) LTO callbacks", or "not fused: <why>; fft_pad and fft_multiply passes";
// "" before any was made.
std::string fft_fusion_text(const FftShape& shape);

}  // namespace cc::cuda
