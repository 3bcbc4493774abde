// opencl_stream.cpp: --stream on OpenCL: frames pushed through upload, filter and download on three
// in-order queues of one context, so that one frame's upload, another's kernel and a third's download
// overlap (the twin of cuda_stream.cpp).
#include <chrono>
#include <deque>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "backends/opencl/cl_check.h"
#include "backends/opencl/opencl_backend_impl.h"
#include "common/domain/error.h"

namespace cc::opencl {

namespace {

// One frame uploading, one filtering, one downloading: with a copy engine each way, the steady
// state runs at the slower of the two transfers.
constexpr int kSlots = 3;

// One frame in flight: its own in-order queue, host and device buffers, and its commands' events.
struct Slot {
  Slot(const cl::Context& context, const cl::Device& device, const Image& shape, bool pinned,
       const PreparedVariant& variant)
      : queue(CC_CL_OUT(cl::CommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, err))),
        input(context, queue, shape, pinned),
        output(context, queue, shape, pinned),
        frame(variant.make_frame()) {}
  ~Slot() { queue.finish(); }  // no transfer outlives the host memory it reads or writes
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;

  cl::CommandQueue queue;
  HostFrame input, output;
  FrameBuffers frame;
  std::vector<cl::Event> events;  // of the frame in flight; the last one (its download) ends it
};

}  // namespace

StreamRun OpenClBackend::stream(const Problem& problem, const Image& input, std::string_view variant,
                                int device_index, int frames, const RunOptions& options) {
  if (frames < 1) throw InputError(fmt::format("--stream needs at least 1 frame, got {}", frames));
  StreamRun run;
  Plan plan;
  if (std::string reason = prepare(plan, problem, variant, device_index, options, kSlots); !reason.empty()) {
    run.reason = std::move(reason);
    return run;
  }
  DeviceQueue& device_queue = queue_for(device_index);
  const PreparedVariant prepared(plan, problem, device_queue.context, device_queue.queue);

  std::deque<Slot> slots;  // a deque: slots never move, their mapped buffers stay where they are
  for (int k = 0; k < kSlots; ++k)
    slots.emplace_back(device_queue.context, discovery_.devices[device_index].device, input, options.pinned, prepared);
  CC_CL(device_queue.queue.finish());  // the filter, and what make_frame() queued there
  const auto issue_frame = [&](Slot& slot) {
    slot.events.clear();
    prepared.upload(slot.frame, slot.input, slot.queue, &slot.events);
    prepared.launch(slot.frame, slot.queue, &slot.events);
    prepared.download(slot.frame, slot.output, slot.queue, &slot.events);
    CC_CL(slot.queue.flush());  // submitted now: a driver may hold an unflushed queue's commands back
  };
  const auto finish_all = [&] {
    for (Slot& slot : slots) CC_CL(slot.queue.finish());
  };

  // Warm-up, one frame per slot: first touch of every buffer and queue stays out of the figures.
  for (Slot& slot : slots) {
    slot.input.fill(input);
    issue_frame(slot);
  }
  finish_all();

  // One frame alone on slot 0, in profiling events: each transfer, then the whole frame without overlap.
  Slot& first = slots.front();
  const auto time_alone = [&](const auto& work) {
    std::vector<cl::Event> events;
    work(&events);
    CC_CL(first.queue.finish());
    return event_span_ms(events.front(), events.back());
  };
  run.h2d_ms_per_frame = time_alone([&](auto* events) { prepared.upload(first.frame, first.input, first.queue, events); });
  run.d2h_ms_per_frame =
      time_alone([&](auto* events) { prepared.download(first.frame, first.output, first.queue, events); });
  run.serial_ms_per_frame = time_alone([&](auto* events) {
    prepared.upload(first.frame, first.input, first.queue, events);
    prepared.launch(first.frame, first.queue, events);
    prepared.download(first.frame, first.output, first.queue, events);
  });

  // NaN everywhere a result could come from, so the last frame's output is its own.
  Image poison(input.width, input.height, input.channels);
  std::fill(poison.data.begin(), poison.data.end(), std::numeric_limits<float>::quiet_NaN());
  for (Slot& slot : slots) {
    slot.output.fill(poison);
    for (const cl::Buffer& output : slot.frame.outputs)
      CC_CL(slot.queue.enqueueFillBuffer(output, std::numeric_limits<float>::quiet_NaN(), 0,
                                         input.plane_size() * sizeof(float)));
  }
  finish_all();

  // Frame i on slot i % 3: wait for that slot's previous frame, queue the next. Each frame is taken to
  // arrive in its slot's host buffer, as a decoder or capture API writing into it would deliver it (the
  // warm-up filled them): a copy into the buffer would time the host's memcpy, not the pipeline.
  // The clock starts as the first upload is queued.
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < frames; ++i) {
    Slot& slot = slots[i % kSlots];
    if (i >= kSlots) CC_CL(slot.events.back().wait());
    issue_frame(slot);
  }
  finish_all();
  run.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  run.last_output = Image(input.width, input.height, input.channels, input.eight_bit);
  slots[(frames - 1) % kSlots].output.copy_to(run.last_output);
  run.queues = kSlots;
  run.status = Status::Ok;
  return run;
}

}  // namespace cc::opencl
