// cuda_peaks.cpp: times peak.cu's copy and FMA kernels the way opencl_peaks.cpp times peak.cl's.
#include "backends/cuda/cuda_peaks.h"

#include "backends/cuda/cuda_api.h"
#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_resources.h"
#include "backends/measure.h"
#include "common/geometry/peak_shape.h"
#include "kernels_cuda/launchers.h"

namespace cc::cuda {

DevicePeaks measure_peaks(int ordinal) {
  const std::unique_ptr<DeviceSession> session = make_session(ordinal);
  const std::unique_ptr<DeviceQueue> queue = session->make_queue();  // after cudaSetDevice
  const cudaStream_t stream = static_cast<CudaQueue&>(*queue).stream();
  int multiprocessors = 0;
  CC_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, ordinal));
  std::size_t free_bytes = 0, total_bytes = 0;
  CC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const PeakShape shape = peak_shape(true, multiprocessors, total_bytes, total_bytes, 256);

  double copy_ms = 0;
  {
    const std::size_t floats = shape.copy_bytes / sizeof(float);
    const DeviceBuffer source(floats), target(floats);
    CC_CUDA_CHECK(cudaMemsetAsync(source.get(), 0, source.bytes(), stream));
    const int float4_count = static_cast<int>(shape.copy_bytes / 16);
    copy_ms = best_span_ms(*queue, [&] {
      CC_CUDA_CHECK(cuda_kernels::launch_copy_float4(source.get(), target.get(), float4_count, shape.copy_groups,
                                                     shape.group_size, stream));
    }, kPeakTimedLaunches);
  }
  const DeviceBuffer result(static_cast<std::size_t>(shape.fma_groups) * shape.group_size);
  const double fma_ms = best_span_ms(*queue, [&] {
    CC_CUDA_CHECK(cuda_kernels::launch_fma_chains(result.get(), kPeakScale, kPeakOffset, shape.fma_iterations,
                                                  shape.fma_groups, shape.group_size, stream));
  }, kPeakTimedLaunches);
  return peaks_from_spans(shape, copy_ms, fma_ms);
}

}  // namespace cc::cuda
