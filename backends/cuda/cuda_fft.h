// cuda_fft.h: the `fft` variant on CUDA: cuFFT plans, the spectrum buffer and the filter's spectrum.
#pragma once

#include <cstddef>

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

// One problem's correlation through the frequency domain, one plane at a time, on the path
// common/geometry/fft_shape.h chooses, the product with the filter's spectrum fused into the inverse
// transform's loads (a cuFFT LTO callback, kernels_cuda/fft_callbacks.cu). Unpadded: forward
// real-to-complex transform from the input plane into the spectrum buffer, inverse transform with the
// product into the output plane, then the edge bands directly (borders other than wrap). Padded: the
// forward transform reads the input plane through a padding callback (the border rule) into the
// spectrum buffer, the inverse with the product runs in place, then the crop. Constructing it compiles
// the callbacks (NVRTC, once per device), plans the transforms with them (one shared work area),
// allocates the buffers and computes the filter's spectrum on `stream`, then waits for it.
class FftConvolver {
 public:
  FftConvolver(const Problem& problem, cudaStream_t stream);

  // One plane (problem.width x problem.height floats, rows packed), queued on `stream`, not waited for.
  // `in` is only read (cuFFT's out-of-place real-to-complex transform keeps its input).
  void convolve_plane(const float* in, float* out, cudaStream_t stream);

  // cuFFT's work area and the callbacks' parameters: the device memory it holds beyond what the plan
  // counted (the spectrum and filter-spectrum buffers and the edge bands' coefficients,
  // backends/launch_plan.cpp).
  std::size_t work_area_bytes() const { return work_area_.bytes() + callback_info_.bytes(); }

  const FftShape& shape() const { return shape_; }

 private:
  ConvArgs args_;
  FftShape shape_;
  FftPlan forward_, inverse_;
  // callback_info_: the callbacks' FftCallbackInfo (fft_callbacks.cu), on the device.
  DeviceBuffer spectrum_, filter_spectrum_, callback_info_, work_area_, band_coefficients_;
  void* callback_info_address_ = nullptr;  // callback_info_.get(), where the plans' callbacks were told to look
  int band_column_length_ = 0, band_blocks_ = 0;
};

}  // namespace cc::cuda
