// cuda_api.h: the device shim (backends/device_api.h) in CUDA: a stream as the queue, event pairs as spans, cudaMallocHost frames.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

#include "backends/cuda/cuda_resources.h"
#include "backends/device_api.h"

namespace cc::cuda {

class CudaQueue final : public DeviceQueue {
 public:
  CudaQueue();
  cudaStream_t stream() const { return stream_.get(); }

  std::unique_ptr<Span> make_span() override;
  void begin(Span& span) override;
  void end(Span& span) override;
  void flush() override {}  // a stream starts its work as it is queued
  void finish() override;
  void wait_for_last() override;
  void make_current() override;

 private:
  int ordinal_ = 0;  // the device the stream was made on (the current one then)
  Stream stream_;
  Event last_;  // recorded by wait_for_last(): a marker without timestamps, cheaper to wait on
};

// Waits, within --kernel-timeout (backends/device_watchdog.h), until `event` has completed: polled with
// cudaEventQuery, never cudaEventSynchronize, which would block for good on a kernel that never returns.
void wait_for_event(cudaEvent_t event, std::string_view what);

// Waits until everything queued on `stream` so far has completed (`marker` recorded after it; a fresh
// one when none is given).
void finish_stream(cudaStream_t stream, cudaEvent_t marker = nullptr);

// Device `ordinal` as the protocol sees it (a CudaQueue per stream, cudaMallocHost frames).
std::unique_ptr<DeviceSession> make_session(int ordinal);

}  // namespace cc::cuda
