// measure_stream.cpp: the one stream protocol (--stream), frames overlapped over kStreamSlots queues per device, written once over the device shim.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "backends/measure.h"
#include "backends/measure_spans.h"
#include "common/domain/error.h"

namespace cc {

using measure_spans::bracket;
using measure_spans::Clock;
using measure_spans::ms_since;
using measure_spans::span_bytes;

namespace {

// One frame in flight: its device, its own queue, host and device buffers (the queue outlives them:
// members go in reverse order).
struct Slot {
  int device = 0;  // index into measure_stream's devices
  std::unique_ptr<DeviceQueue> queue;
  std::unique_ptr<HostFrame> input, output;
  std::unique_ptr<DeviceFrame> frame;
};

// Every queue finished before any slot's memory goes, on the way out whatever happens.
struct FinishAll {
  std::vector<Slot>& slots;
  ~FinishAll() {
    for (Slot& slot : slots)
      try {
        if (slot.queue) {
          slot.queue->make_current();
          slot.queue->finish();
        }
      } catch (...) {  // already failing: the first error is the one reported
      }
  }
};

// One frame alone, timed in spans: each transfer, then the whole frame without overlap.
struct SerialFigures {
  double h2d_ms = kNotMeasured, d2h_ms = kNotMeasured, serial_ms = kNotMeasured;
};

// measure_stream's protocol (measure.h), one method a step, as measure.cpp's RunMeasurement.
class StreamMeasurement {
 public:
  StreamMeasurement(std::span<StreamDevice> devices, const Problem& problem, const Image& input,
                    const RunOptions& options)
      : devices_(devices), input_(input), options_(options), layout_(FrameLayout::for_problem(problem)) {}

  StreamRun operator()(int frames) {
    set_up_slots();
    warm_up();
    const SerialFigures serial = time_one_frame_alone();
    poison_outputs();
    stream(frames);
    return summarise(serial, frames);
  }

 private:
  const PreparedVariant& variant_of(const Slot& slot) const {
    return *variants_[static_cast<std::size_t>(slot.device)];
  }

  // Per device: a setup queue and the variant set up there; then kStreamSlots slots per device, slot s on
  // device s % devices, so that frame i goes to device i % devices.
  void set_up_slots() {
    const int count = static_cast<int>(devices_.size());
    for (StreamDevice& device : devices_) {
      setup_queues_.push_back(device.session.make_queue());
      variants_.push_back(device.prepare(*setup_queues_.back()));
    }
    slots_.resize(static_cast<std::size_t>(kStreamSlots * count));
    const bool copies = copies_frames(options_.memory);
    timed_transfers_ = variants_.front()->transfers_are_commands();
    for (std::size_t s = 0; s < slots_.size(); ++s) {
      Slot& slot = slots_[s];
      slot.device = static_cast<int>(s) % count;
      DeviceSession& session = devices_[static_cast<std::size_t>(slot.device)].session;
      const PreparedVariant& variant = variant_of(slot);
      slot.queue = session.make_queue();  // its device current from here (CUDA: make_queue sets it)
      slot.frame = variant.make_frame();
      slot.input = copies ? session.make_host_frame(layout_, options_.memory == HostMemory::Pinned, *slot.queue)
                          : variant.host_view(*slot.frame, false);
      slot.output = copies ? session.make_host_frame(layout_, options_.memory == HostMemory::Pinned, *slot.queue)
                           : variant.host_view(*slot.frame, true);
    }
    for (const auto& queue : setup_queues_) {  // the filter, and what make_frame() queued there
      queue->make_current();
      queue->finish();
    }
  }

  void issue_frame(Slot& slot) const {
    const PreparedVariant& variant = variant_of(slot);
    slot.queue->make_current();
    variant.upload(*slot.frame, *slot.input, *slot.queue);
    variant.launch(*slot.frame, *slot.queue);
    variant.download(*slot.frame, *slot.output, *slot.queue);
    slot.queue->flush();  // submitted now: a driver may hold an unflushed queue's commands back
  }

  void finish_all() {
    for (Slot& slot : slots_) {
      slot.queue->make_current();
      slot.queue->finish();
    }
  }

  // One frame per slot: first touch of every buffer and queue stays out of the figures.
  void warm_up() {
    for (Slot& slot : slots_) {
      layout_.pack(input_, slot.input->units());
      issue_frame(slot);
    }
    finish_all();
  }

  // One frame alone on the first device's first slot, in spans.
  SerialFigures time_one_frame_alone() {
    Slot& first = slots_.front();
    const PreparedVariant& variant = variant_of(first);
    first.queue->make_current();
    const auto time_alone = [&](const auto& work) {
      const std::unique_ptr<Span> span = bracket(*first.queue, work);
      first.queue->finish();
      return span->brackets_nothing() ? kNotMeasured : span->elapsed_ms();
    };
    SerialFigures figures;
    // CUDA's mapped frames have no upload or download to time: the kernel's span holds the host-link traffic.
    if (timed_transfers_)
      figures.h2d_ms = time_alone([&] { variant.upload(*first.frame, *first.input, *first.queue); });
    if (timed_transfers_)
      figures.d2h_ms = time_alone([&] { variant.download(*first.frame, *first.output, *first.queue); });
    figures.serial_ms = time_alone([&] {
      variant.upload(*first.frame, *first.input, *first.queue);
      variant.launch(*first.frame, *first.queue);
      variant.download(*first.frame, *first.output, *first.queue);
    });
    return figures;
  }

  // NaN everywhere a result could come from, so the last frame's output is its own.
  void poison_outputs() {
    Image poison(input_.width, input_.height, input_.channels);
    std::fill(poison.data.begin(), poison.data.end(), kNotMeasured);
    for (Slot& slot : slots_) {
      layout_.pack(poison, slot.output->units());
      slot.queue->make_current();
      variant_of(slot).poison(*slot.frame, *slot.queue, 0xFF);
    }
    finish_all();
  }

  // Frame i on slot i % slots (device i % devices): wait for that slot's previous frame, queue the next.
  // Each frame is taken to arrive in its slot's host buffer, as a decoder or capture API writing into it
  // would deliver it (the warm-up filled them): a copy into the buffer would time the host's memcpy, not
  // the pipeline. The clock starts as the first upload is queued.
  void stream(int frames) {
    run_.frames_per_device.assign(devices_.size(), 0);
    const Clock::time_point start = Clock::now();
    for (int i = 0; i < frames; ++i) {
      Slot& slot = slots_[static_cast<std::size_t>(i) % slots_.size()];
      if (i >= static_cast<int>(slots_.size())) {
        slot.queue->make_current();
        slot.queue->wait_for_last();
      }
      issue_frame(slot);
      ++run_.frames_per_device[static_cast<std::size_t>(slot.device)];
    }
    finish_all();
    run_.total_ms = ms_since(start);
  }

  // The serial figures, unless one span of them cannot be real, and the last frame's output.
  StreamRun summarise(const SerialFigures& serial, int frames) {
    const std::size_t transfer_bytes = span_bytes(options_.memory, layout_);
    if (timed_transfers_ && !std::isnan(serial.h2d_ms))
      run_.untimed = implausible_span_reason(serial.h2d_ms, transfer_bytes);
    if (run_.untimed.empty() && timed_transfers_ && !std::isnan(serial.d2h_ms))
      run_.untimed = implausible_span_reason(serial.d2h_ms, transfer_bytes);
    if (run_.untimed.empty()) run_.untimed = implausible_span_reason(serial.serial_ms, 0);
    if (run_.untimed.empty()) {
      run_.h2d_ms_per_frame = serial.h2d_ms;
      run_.d2h_ms_per_frame = serial.d2h_ms;
      run_.serial_ms_per_frame = serial.serial_ms;
    }
    run_.last_output = Image(input_.width, input_.height, input_.channels, input_.eight_bit);
    layout_.unpack(slots_[static_cast<std::size_t>(frames - 1) % slots_.size()].output->const_units(),
                   run_.last_output);
    run_.queues = static_cast<int>(slots_.size());
    run_.status = Status::Ok;
    return std::move(run_);
  }

  std::span<StreamDevice> devices_;
  const Image& input_;
  const RunOptions& options_;
  const FrameLayout layout_;
  StreamRun run_;
  bool timed_transfers_ = true;
  // Setup queues before the slots, so that they outlive them; the drain, last, finishes the slots' queues first.
  std::vector<std::unique_ptr<DeviceQueue>> setup_queues_;
  std::vector<std::unique_ptr<PreparedVariant>> variants_;
  std::vector<Slot> slots_;
  FinishAll drain_{slots_};
};

}  // namespace

StreamRun measure_stream(DeviceSession& session, const PrepareVariant& prepare, const Problem& problem,
                         const Image& input, int frames, const RunOptions& options) {
  StreamDevice device{session, prepare};
  return measure_stream(std::span<StreamDevice>(&device, 1), problem, input, frames, options);
}

StreamRun measure_stream(std::span<StreamDevice> devices, const Problem& problem, const Image& input, int frames,
                         const RunOptions& options) {
  if (frames < 1) throw InputError(fmt::format("--stream needs at least 1 frame, got {}", frames));
  if (devices.empty()) throw std::logic_error("measure_stream needs a device");
  return StreamMeasurement(devices, problem, input, options)(frames);
}

}  // namespace cc
