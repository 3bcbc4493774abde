// cl_api.h: the device shim (backends/device_api.h) in OpenCL: a profiling queue whose commands' events make the spans.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include <CL/opencl.hpp>

#include "backends/device_api.h"
#include "backends/opencl/cl_check.h"

namespace cc::opencl {

// An in-order queue with profiling. Every command is enqueued through CC_CL_ENQUEUE, which gives it an
// event: the open span keeps it (a span runs from its first command's start to its last one's end),
// and the queue keeps the last one to wait on.
class ClQueue final : public DeviceQueue {
 public:
  ClQueue(const cl::Context& context, const cl::Device& device);
  const cl::CommandQueue& get() const { return queue_; }
  void keep(const cl::Event& event);

  std::unique_ptr<Span> make_span() override;
  void begin(Span& span) override;
  void end(Span& span) override;
  void flush() override;
  // A marker after everything queued, waited on (finish_queue): some runtimes' clFinish returns before
  // the queued commands complete (Rusticl 22.3: a stream's last frame came back NaN), their events do not.
  void finish() override;
  void wait_for_last() override;

 private:
  cl::CommandQueue queue_;
  std::vector<cl::Event>* recording_ = nullptr;
  cl::Event last_;
};

// Waits, within --kernel-timeout (backends/device_completion.h), until `event` completes: signalled by
// its CL_COMPLETE callback, never clWaitForEvents, which would block for good on a kernel that never returns.
void wait_for_event(const cl::Event& event, std::string_view what);

// Waits until everything queued on `queue` so far has completed: a marker after it, flushed and waited on.
void finish_queue(const cl::CommandQueue& queue);

// One device of a context as the protocol sees it (a ClQueue per queue, mapped pinned frames).
std::unique_ptr<DeviceSession> make_session(cl::Context context, cl::Device device);

// Runs one opencl.hpp enqueue call whose last argument is `cl::Event* event` and checks its status.
template <typename Enqueue>
cl::Event enqueued(Enqueue&& enqueue, const char* text, const char* file, int line) {
  cl::Event event;
  check(enqueue(&event), text, file, line);
  return event;
}

}  // namespace cc::opencl

// CC_CL_ENQUEUE(queue, enqueueWriteBuffer(buffer, CL_FALSE, 0, bytes, data, nullptr, event)): a command on
// a ClQueue, its status checked and its event kept (the call's last argument is spelled `event`).
#define CC_CL_ENQUEUE(queue, ...)                                                                        \
  (queue).keep(::cc::opencl::enqueued([&](cl::Event* event) { return (queue).get().__VA_ARGS__; }, #__VA_ARGS__, \
                                      __FILE__, __LINE__))
