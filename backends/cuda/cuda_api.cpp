// cuda_api.cpp: the CUDA side of the device shim: spans are event pairs on the stream, pinned frames cudaMallocHost.
#include "backends/cuda/cuda_api.h"

#include "backends/cuda/cuda_check.h"
#include "backends/device_watchdog.h"
#include "common/domain/error.h"

namespace cc::cuda {

namespace {

class EventSpan final : public Span {
 public:
  EventPair events = make_event_pair();
  double elapsed_ms() const override { return events.elapsed_ms(); }
};

class PinnedHostFrame final : public HostFrame {
 public:
  explicit PinnedHostFrame(const FrameLayout& layout) {
    for (int unit = 0; unit < layout.units; ++unit) {
      buffers_.emplace_back(layout.unit_bytes);
      pointers_.push_back(buffers_.back().get());
    }
  }
  std::span<std::byte* const> units() const override { return pointers_; }

 private:
  std::vector<PinnedBuffer> buffers_;
  std::vector<std::byte*> pointers_;
};

// --cold's scratch: cudaMemsetAsync over a buffer larger than L2.
class CudaCacheScratch final : public CacheScratch {
 public:
  explicit CudaCacheScratch(std::size_t bytes) : buffer_((bytes + sizeof(float) - 1) / sizeof(float)), bytes_(bytes) {}
  void overwrite(DeviceQueue& queue) override {
    value_ = (value_ + 1) & 0xFF;  // a new value each time, as a write of the same bytes might be elided
    CC_CUDA_CHECK(cudaMemsetAsync(buffer_.get(), value_, bytes_, static_cast<CudaQueue&>(queue).stream()));
  }

 private:
  DeviceBuffer buffer_;
  std::size_t bytes_;
  int value_ = 0;
};

}  // namespace

CudaQueue::CudaQueue() : stream_(make_stream()) {
  CC_CUDA_CHECK(cudaGetDevice(&ordinal_));
  cudaEvent_t event = nullptr;
  CC_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  last_.reset(event);
}

void CudaQueue::make_current() { CC_CUDA_CHECK(cudaSetDevice(ordinal_)); }

std::unique_ptr<Span> CudaQueue::make_span() { return std::make_unique<EventSpan>(); }
void CudaQueue::begin(Span& span) { static_cast<EventSpan&>(span).events.record_start(stream()); }
void CudaQueue::end(Span& span) { static_cast<EventSpan&>(span).events.record_stop(stream()); }
void CudaQueue::finish() { finish_stream(stream(), last_.get()); }

void CudaQueue::wait_for_last() { finish_stream(stream(), last_.get()); }

void wait_for_event(cudaEvent_t event, std::string_view what) {
  wait_for_device([&] {
    const cudaError_t status = cudaEventQuery(event);
    if (status == cudaErrorNotReady) return false;
    CC_CUDA_CHECK(status);
    return true;
  }, what);
}

void finish_stream(cudaStream_t stream, cudaEvent_t marker) {
  if (device_stuck()) wait_for_device([] { return false; }, "waiting for the stream to finish");  // throws at once
  Event fresh;
  if (!marker) {
    CC_CUDA_CHECK(cudaEventCreateWithFlags(&marker, cudaEventDisableTiming));
    fresh.reset(marker);
  }
  CC_CUDA_CHECK(cudaEventRecord(marker, stream));
  wait_for_event(marker, "waiting for the stream to finish");
}

namespace {

class CudaSession final : public DeviceSession {
 public:
  explicit CudaSession(int ordinal) : ordinal_(ordinal) {}

  std::unique_ptr<DeviceQueue> make_queue() override {
    CC_CUDA_CHECK(cudaSetDevice(ordinal_));
    return std::make_unique<CudaQueue>();
  }

  std::unique_ptr<HostFrame> make_pinned_frame(const FrameLayout& layout, DeviceQueue&) override {
    return std::make_unique<PinnedHostFrame>(layout);
  }

  bool out_of_memory(const ApiError& error) const override {
    return error.api() == "CUDA" && error.code() == cudaErrorMemoryAllocation;
  }

  std::size_t cache_bytes() const override {
    int bytes = 0;
    CC_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrL2CacheSize, ordinal_));
    return bytes > 0 ? static_cast<std::size_t>(bytes) : 0;
  }

  std::unique_ptr<CacheScratch> make_cache_scratch(std::size_t bytes) override {
    CC_CUDA_CHECK(cudaSetDevice(ordinal_));
    return std::make_unique<CudaCacheScratch>(bytes);
  }

 private:
  int ordinal_;
};

}  // namespace

std::unique_ptr<DeviceSession> make_session(int ordinal) { return std::make_unique<CudaSession>(ordinal); }

}  // namespace cc::cuda
