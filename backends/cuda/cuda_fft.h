// cuda_fft.h: the `fft` variant on CUDA: cuFFT plans, the padded buffer and the filter's spectrum.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

#include "backends/cuda/cuda_resources.h"
#include "common/fft_shape.h"
#include "common/problem.h"

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

// One problem's correlation through the frequency domain, one plane at a time: pad by the border
// rule, forward real-to-complex transform in place, multiply by the filter's spectrum, inverse
// transform in place, crop. Constructing it plans both transforms (one shared work area), allocates
// the padded buffer and computes the filter's spectrum on `stream`, then waits for it.
class FftConvolver {
 public:
  FftConvolver(const Problem& problem, cudaStream_t stream);

  // One plane (problem.width x problem.height floats, rows packed), queued on `stream`, not waited for.
  void convolve_plane(const float* in, float* out, cudaStream_t stream);

  // Device memory held: the padded buffer, the filter's spectrum and cuFFT's work area.
  std::size_t device_bytes() const { return padded_.bytes() + filter_spectrum_.bytes() + work_area_.bytes(); }

  const FftShape& shape() const { return shape_; }

 private:
  ConvArgs args_;
  FftShape shape_;
  FftPlan forward_, inverse_;
  DeviceBuffer padded_, filter_spectrum_, work_area_;
};

// Device memory an FftConvolver for this problem allocates besides cuFFT's work area (known only
// once planned): for the check before allocating.
std::size_t fft_buffer_bytes(const Problem& problem);

}  // namespace cc::cuda
