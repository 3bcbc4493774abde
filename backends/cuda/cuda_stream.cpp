// cuda_stream.cpp: --stream on CUDA: frames pushed through upload, filter and download on three
// streams, so that one frame's upload, another's kernel and a third's download overlap.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "backends/cuda/cuda_check.h"
#include "backends/cuda/cuda_variant.h"
#include "backends/host_copy.h"
#include "common/domain/error.h"

namespace cc::cuda {

namespace {

// One frame uploading, one filtering, one downloading: with a copy engine each way, the steady
// state runs at the slower of the two transfers.
constexpr int kSlots = 3;

// A completion marker without timestamps, which are cheaper to record and wait on.
Event make_marker() {
  cudaEvent_t event = nullptr;
  CC_CUDA_CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  return Event(event);
}

// A slot's host side of the transfers: page-locked, or ordinary memory for the pageable figure.
class HostBuffer {
 public:
  HostBuffer(std::size_t count, bool pinned) {
    if (pinned) pinned_ = PinnedBuffer(count);
    else pageable_.resize(count);
  }
  float* get() { return pinned_.get() ? pinned_.get() : pageable_.data(); }

 private:
  PinnedBuffer pinned_;
  std::vector<float> pageable_;
};

// One frame in flight: its stream, its own host and device buffers, and the marker of its download.
struct Slot {
  Stream stream;
  HostBuffer input, output;
  FrameBuffers frame;
  Event done;
};

}  // namespace

StreamRun stream_planned(const Plan& plan, const Problem& problem, const Image& input, int ordinal, int frames,
                         const RunOptions& options) {
  CC_CUDA_CHECK(cudaSetDevice(ordinal));
  StreamRun run;
  const std::size_t count = input.data.size();
  if (frames < 1) throw InputError(fmt::format("--stream needs at least 1 frame, got {}", frames));
  const std::size_t needed = filter_bytes(plan, problem) + kSlots * frame_bytes(plan, problem);
  if (const std::size_t free_bytes = free_device_memory(); needed > free_bytes) {
    run.reason = fmt::format("needs {:.1f} MB, device has {:.1f} MB free", megabytes(needed), megabytes(free_bytes));
    return run;
  }
  const Stream setup_stream = make_stream();
  const PreparedVariant variant(plan, problem, ordinal, setup_stream.get());

  std::vector<Slot> slots;
  for (int k = 0; k < kSlots; ++k)
    slots.push_back(Slot{make_stream(), HostBuffer(count, options.pinned), HostBuffer(count, options.pinned),
                         variant.make_frame(), make_marker()});
  CC_CUDA_CHECK(cudaStreamSynchronize(setup_stream.get()));  // the filter, and what make_frame() queued there
  const auto fill = [&](Slot& slot) {  // a frame delivered into the slot, before the clock
    copy_rows(input.data.data(), slot.input.get(), input.height * input.channels, input.width);
  };
  const auto issue_frame = [&](Slot& slot) {
    variant.upload(slot.frame, slot.input.get(), slot.stream.get());
    variant.launch(slot.frame, slot.stream.get());
    variant.download(slot.frame, slot.output.get(), slot.stream.get());
    CC_CUDA_CHECK(cudaEventRecord(slot.done.get(), slot.stream.get()));
  };

  // Warm-up, one frame per slot: first touch of every buffer and stream stays out of the figures.
  for (Slot& slot : slots) {
    fill(slot);
    issue_frame(slot);
  }
  CC_CUDA_CHECK(cudaDeviceSynchronize());

  // One frame alone on slot 0, in device events: each transfer, then the whole frame without overlap.
  Slot& first = slots.front();
  const cudaStream_t first_stream = first.stream.get();
  const EventPair events = make_event_pair();
  const auto time_alone = [&](const auto& work) {
    events.record_start(first_stream);
    work();
    events.record_stop(first_stream);
    CC_CUDA_CHECK(cudaStreamSynchronize(first_stream));
    return events.elapsed_ms();
  };
  run.h2d_ms_per_frame = time_alone([&] { variant.upload(first.frame, first.input.get(), first_stream); });
  run.d2h_ms_per_frame = time_alone([&] { variant.download(first.frame, first.output.get(), first_stream); });
  run.serial_ms_per_frame = time_alone([&] {
    variant.upload(first.frame, first.input.get(), first_stream);
    variant.launch(first.frame, first_stream);
    variant.download(first.frame, first.output.get(), first_stream);
  });

  // NaN everywhere a result could come from, so the last frame's output is its own.
  for (Slot& slot : slots) {
    std::fill_n(slot.output.get(), count, std::numeric_limits<float>::quiet_NaN());
    CC_CUDA_CHECK(cudaMemsetAsync(slot.frame.output.get(), 0xFF, slot.frame.output.bytes(), slot.stream.get()));
  }
  CC_CUDA_CHECK(cudaDeviceSynchronize());

  // Frame i on slot i % 3: wait for that slot's previous frame, queue the next. Each frame is taken to
  // arrive in its slot's host buffer, as a decoder or capture API writing into it would deliver it (the
  // warm-up filled them): a copy into the buffer would time the host's memcpy, not the pipeline.
  // The clock starts as the first upload is queued.
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < frames; ++i) {
    Slot& slot = slots[i % kSlots];
    if (i >= kSlots) CC_CUDA_CHECK(cudaEventSynchronize(slot.done.get()));
    issue_frame(slot);
  }
  for (Slot& slot : slots) CC_CUDA_CHECK(cudaStreamSynchronize(slot.stream.get()));
  run.total_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

  run.last_output = Image(input.width, input.height, input.channels, input.eight_bit);
  const float* last = slots[(frames - 1) % kSlots].output.get();
  std::copy(last, last + count, run.last_output.data.begin());
  run.queues = kSlots;
  run.status = Status::Ok;
  return run;
}

}  // namespace cc::cuda
