// cuda_api.h: the device shim (backends/device_api.h) in CUDA: a stream as the queue, event pairs as spans, cudaMallocHost frames.
#pragma once

#include <memory>
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

 private:
  Stream stream_;
  Event last_;  // recorded by wait_for_last(): a marker without timestamps, cheaper to wait on
};

class CudaSession final : public DeviceSession {
 public:
  explicit CudaSession(int ordinal) : ordinal_(ordinal) {}
  std::unique_ptr<DeviceQueue> make_queue() override;
  std::unique_ptr<HostFrame> make_pinned_frame(const FrameLayout& layout, DeviceQueue& queue) override;
  bool out_of_memory(const ApiError& error) const override;
  std::size_t cache_bytes() const override;
  std::unique_ptr<CacheScratch> make_cache_scratch(std::size_t bytes) override;

 private:
  int ordinal_;
};

}  // namespace cc::cuda
