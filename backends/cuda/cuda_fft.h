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
// common/geometry/fft_shape.h chooses. Unpadded: forward real-to-complex transform from the input plane into
// the spectrum buffer, multiply by the filter's spectrum, inverse transform into the output plane, then
// the edge bands directly (borders other than wrap). Padded: pad by the border rule, transform in
// place, multiply, transform back in place, crop. Constructing it plans both transforms (one shared
// work area), allocates the buffers and computes the filter's spectrum on `stream`, then waits for it.
class FftConvolver {
 public:
  FftConvolver(const Problem& problem, cudaStream_t stream);

  // One plane (problem.width x problem.height floats, rows packed), queued on `stream`, not waited for.
  // `in` is only read (cuFFT's out-of-place real-to-complex transform keeps its input).
  void convolve_plane(const float* in, float* out, cudaStream_t stream);

  // cuFFT's work area: the device memory it holds beyond what the plan counted (the spectrum and
  // filter-spectrum buffers and the edge bands' coefficients, backends/launch_plan.cpp).
  std::size_t work_area_bytes() const { return work_area_.bytes(); }

  const FftShape& shape() const { return shape_; }

 private:
  ConvArgs args_;
  FftShape shape_;
  FftPlan forward_, inverse_;
  DeviceBuffer spectrum_, filter_spectrum_, work_area_, band_coefficients_;
  int band_column_length_ = 0, band_blocks_ = 0;
};

}  // namespace cc::cuda
