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
    return std::make_unique<PinnedHostFrame<PinnedBuffer>>(layout, [](std::size_t bytes) {
      return std::make_unique<PinnedBuffer>(bytes);
    });
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
    auto fill = [buffer = std::make_shared<DeviceBuffer>((bytes + sizeof(float) - 1) / sizeof(float)),
                 bytes](unsigned char byte, DeviceQueue& queue) {
      CC_CUDA_CHECK(cudaMemsetAsync(buffer->get(), byte, bytes, static_cast<CudaQueue&>(queue).stream()));
    };
    return std::make_unique<FilledCacheScratch<decltype(fill)>>(std::move(fill));
  }

 private:
  int ordinal_;
};

}  // namespace

std::unique_ptr<DeviceSession> make_session(int ordinal) { return std::make_unique<CudaSession>(ordinal); }

}  // namespace cc::cuda
