// cuda_peaks.cpp: times peak.cu's copy and FMA kernels the way opencl_peaks.cpp times peak.cl's.
#include "backends/cuda/cuda_peaks.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_resources.h"
#include "common/geometry/peak_shape.h"
#include "kernels_cuda/launchers.h"

namespace cc::cuda {

namespace {

// One untimed launch (first-touch and clock ramp-up stay out), then the fastest of the timed ones:
// the ceiling is what the device can do, not what it does on average.
double best_launch_ms(cudaStream_t stream, const std::function<void()>& launch) {
  launch();
  const EventPair events = make_event_pair();
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < kPeakTimedLaunches; ++i) {
    events.record_start(stream);
    launch();
    events.record_stop(stream);
    CC_CUDA_CHECK(cudaStreamSynchronize(stream));
    best = std::min(best, events.elapsed_ms());
  }
  return best;
}

}  // namespace

DevicePeaks measure_peaks(int ordinal) {
  CC_CUDA_CHECK(cudaSetDevice(ordinal));
  int multiprocessors = 0;
  CC_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, ordinal));
  std::size_t free_bytes = 0, total_bytes = 0;
  CC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const PeakShape shape = peak_shape(true, multiprocessors, total_bytes, total_bytes, 256);

  const Stream stream_owner = make_stream();
  const cudaStream_t stream = stream_owner.get();
  DevicePeaks peaks;
  {
    const std::size_t floats = shape.copy_bytes / sizeof(float);
    const DeviceBuffer source(floats), target(floats);
    CC_CUDA_CHECK(cudaMemsetAsync(source.get(), 0, source.bytes(), stream));
    const int float4_count = static_cast<int>(shape.copy_bytes / 16);
    const double ms = best_launch_ms(stream, [&] {
      CC_CUDA_CHECK(cuda_kernels::launch_copy_float4(source.get(), target.get(), float4_count, shape.copy_groups,
                                                     shape.group_size, stream));
    });
    peaks.copy_gb_per_s = copy_gb_per_s(shape, ms);
  }
  const DeviceBuffer result(static_cast<std::size_t>(shape.fma_groups) * shape.group_size);
  const double ms = best_launch_ms(stream, [&] {
    CC_CUDA_CHECK(cuda_kernels::launch_fma_chains(result.get(), kPeakScale, kPeakOffset, shape.fma_iterations,
                                                  shape.fma_groups, shape.group_size, stream));
  });
  peaks.fma_gflop_per_s = fma_gflop_per_s(shape, ms);
  return peaks;
}

}  // namespace cc::cuda
