// cl_api.cpp: the OpenCL side of the device shim: spans from the commands' profiling events, pinned frames mapped.
#include "backends/opencl/cl_api.h"

#include <chrono>
#include <thread>
#include <memory>
#include <system_error>

#include "backends/device_completion.h"
#include "backends/device_watchdog.h"
#include "common/domain/error.h"

namespace cc::opencl {

namespace {

class EventSpan final : public Span {
 public:
  std::vector<cl::Event> events;
  // Profiling counters are nanoseconds. An empty span (no command inside) has no time.
  double elapsed_ms() const override {
    if (events.empty()) return 0;
    const cl_ulong start = CC_CL_OUT(events.front().getProfilingInfo<CL_PROFILING_COMMAND_START>(err));
    const cl_ulong end = CC_CL_OUT(events.back().getProfilingInfo<CL_PROFILING_COMMAND_END>(err));
    return end >= start ? static_cast<double>(end - start) * 1e-6 : 0;
  }
  bool brackets_nothing() const override { return events.empty(); }
};

// A CL_MEM_ALLOC_HOST_PTR buffer kept mapped while it lives: the driver's page-locked memory, which
// transfers from its mapped pointer can DMA directly (OpenCL's cudaMallocHost). One per unit, each
// within CL_DEVICE_MAX_MEM_ALLOC_SIZE.
class MappedBuffer {
 public:
  MappedBuffer(const cl::Context& context, const cl::CommandQueue& queue, std::size_t bytes)
      : queue_(queue),
        buffer_(CC_CL_OUT(cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, nullptr, err))) {
    data_ = static_cast<std::byte*>(CC_CL_OUT(
        queue_.enqueueMapBuffer(buffer_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes, nullptr, nullptr, err)));
  }
  ~MappedBuffer() {  // statuses ignored: a destructor must not throw, and the run is over
    if (device_stuck()) return;  // the queue would never reach the unmap
    queue_.enqueueUnmapMemObject(buffer_, data_);
    try {
      finish_queue(queue_);
    } catch (...) {
    }
  }
  MappedBuffer(const MappedBuffer&) = delete;
  MappedBuffer& operator=(const MappedBuffer&) = delete;
  std::byte* get() const { return data_; }

 private:
  cl::CommandQueue queue_;
  cl::Buffer buffer_;
  std::byte* data_ = nullptr;
};

}  // namespace

ClQueue::ClQueue(const cl::Context& context, const cl::Device& device)
    : queue_(CC_CL_OUT(cl::CommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, err))) {}

void ClQueue::keep(const cl::Event& event) {
  if (event() == nullptr) return;  // a command the runtime had nothing to do for (cl_svm.cpp)
  if (recording_) recording_->push_back(event);
  last_ = event;
}

std::unique_ptr<Span> ClQueue::make_span() { return std::make_unique<EventSpan>(); }

void ClQueue::begin(Span& span) {
  recording_ = &static_cast<EventSpan&>(span).events;
  recording_->clear();
}

void ClQueue::end(Span&) { recording_ = nullptr; }

void ClQueue::flush() { CC_CL(queue_.flush()); }

void ClQueue::finish() { finish_queue(queue_); }

void ClQueue::wait_for_last() {
  if (last_()) wait_for_event(last_, "waiting for the frame before");
}

namespace {

// The command's execution status: CL_COMPLETE (0), a negative error, or a positive "not yet" state.
cl_int execution_status(cl_event event) {
  cl_int execution = CL_COMPLETE;
  check(::clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof execution, &execution, nullptr),
        "clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS)", __FILE__, __LINE__);
  return execution;
}

}  // namespace

void wait_for_event(const cl::Event& event, std::string_view what) {
  if (device_stuck()) wait_for_device([] { return false; }, what);  // throws at once
  // A command is sure to reach the device only once its queue is flushed. A user event has no queue.
  cl_command_queue queue = nullptr;
  check(::clGetEventInfo(event(), CL_EVENT_COMMAND_QUEUE, sizeof queue, &queue, nullptr),
        "clGetEventInfo(event, CL_EVENT_COMMAND_QUEUE)", __FILE__, __LINE__);
  if (queue != nullptr) check(::clFlush(queue), "clFlush(the event's queue)", __FILE__, __LINE__);
  // The host-clock figures (host to host, reuse, a stream's frames) end at this wait, so it must see the
  // completion as soon as the driver records it. Polled first, as CUDA's cudaEventQuery is
  // (device_watchdog.cpp's schedule): NVIDIA's OpenCL ran its event callbacks milliseconds late, which
  // made a 0.38 ms stream frame take 6 ms (docs/performance.md, "Host to host, overlapped").
  using Clock = std::chrono::steady_clock;
  constexpr auto kPollFor = std::chrono::milliseconds(20);
  constexpr auto kSpinFor = std::chrono::milliseconds(2);
  const Clock::time_point start = Clock::now();
  for (;;) {
    const cl_int execution = execution_status(event());
    if (execution <= CL_COMPLETE) {
      if (execution < CL_COMPLETE) check(execution, "a queued command (its event's final status)", __FILE__, __LINE__);
      return;
    }
    const Clock::duration waited = Clock::now() - start;
    if (waited >= kPollFor) break;
    if (waited < kSpinFor)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  // Longer waits block in clWaitForEvents, on a thread so that --kernel-timeout still bounds them; some
  // runtimes run queued commands only inside a blocking wait (Oclgrind: a poll alone never ends). The
  // thread owns a share of the completion: after a timed-out wait it may still come, and a stuck wait
  // leaves the thread behind (device_watchdog.h).
  auto completion = std::make_shared<DeviceCompletion>();
  try {
    std::thread([completion, event] {
      cl_event waited = event();
      cl_int status = ::clWaitForEvents(1, &waited);
      if (status == CL_SUCCESS || status == CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST) {
        cl_int execution = CL_COMPLETE;
        status = ::clGetEventInfo(waited, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof execution, &execution, nullptr);
        if (status == CL_SUCCESS) status = execution;
      }
      completion->signal(status);
    }).detach();
  } catch (const std::system_error&) {
    // No thread to spare (EAGAIN under ulimit -v: "Resource temporarily unavailable", exit 1):
    // the status is polled on, within --kernel-timeout as ever.
    cl_int execution = CL_QUEUED;
    wait_for_device([&] { return (execution = execution_status(event())) <= CL_COMPLETE; }, what);
    if (execution < CL_COMPLETE) check(execution, "a queued command (its event's final status)", __FILE__, __LINE__);
    return;
  }
  wait_for_device(*completion, what);
  if (const long status = completion->status(); status < 0)
    check(static_cast<cl_int>(status), "a queued command (its event's final status)", __FILE__, __LINE__);
}

void finish_queue(const cl::CommandQueue& queue) {
  if (device_stuck()) wait_for_device([] { return false; }, "waiting for the queue to finish");  // throws at once
  cl::Event marker;  // an in-order queue's marker without a wait list completes after every command before it
  CC_CL(queue.enqueueMarkerWithWaitList(nullptr, &marker));
  CC_CL(queue.flush());
  wait_for_event(marker, "waiting for the queue to finish");
}

namespace {

class ClSession final : public DeviceSession {
 public:
  ClSession(cl::Context context, cl::Device device) : context_(std::move(context)), device_(std::move(device)) {}

  std::unique_ptr<DeviceQueue> make_queue() override { return std::make_unique<ClQueue>(context_, device_); }

  std::unique_ptr<HostFrame> make_pinned_frame(const FrameLayout& layout, DeviceQueue& queue) override {
    return std::make_unique<PinnedHostFrame<MappedBuffer>>(layout, [&](std::size_t bytes) {
      return std::make_unique<MappedBuffer>(context_, static_cast<ClQueue&>(queue).get(), bytes);
    });
  }

  bool out_of_memory(const ApiError& error) const override {
    return error.api() == "OpenCL" && (error.code() == CL_MEM_OBJECT_ALLOCATION_FAILURE ||
                                       error.code() == CL_OUT_OF_HOST_MEMORY || error.code() == CL_OUT_OF_RESOURCES);
  }

  std::size_t cache_bytes() const override {
    return static_cast<std::size_t>(CC_CL_OUT(device_.getInfo<CL_DEVICE_GLOBAL_MEM_CACHE_SIZE>(err)));
  }

  std::unique_ptr<CacheScratch> make_cache_scratch(std::size_t bytes) override {
    auto fill = [buffer = CC_CL_OUT(cl::Buffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, err)),
                 bytes](unsigned char byte, DeviceQueue& queue) {
      auto& cl_queue = static_cast<ClQueue&>(queue);
      const cl_uchar pattern = byte;
      CC_CL_ENQUEUE(cl_queue, enqueueFillBuffer(buffer, pattern, 0, bytes, nullptr, event));
    };
    return std::make_unique<FilledCacheScratch<decltype(fill)>>(std::move(fill));
  }

 private:
  cl::Context context_;
  cl::Device device_;
};

}  // namespace

std::unique_ptr<DeviceSession> make_session(cl::Context context, cl::Device device) {
  return std::make_unique<ClSession>(std::move(context), std::move(device));
}

}  // namespace cc::opencl
