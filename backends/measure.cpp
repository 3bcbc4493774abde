// measure.cpp: the one measurement protocol and the one stream protocol, written once over the device shim.
#include "backends/measure.h"

#include <chrono>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "common/domain/error.h"

namespace cc {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double megabytes(std::size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

// The shortest span any device command can take: launching a kernel or starting a copy costs
// microseconds on every GPU runtime we know, and a CPU runtime's (PoCL's) copy of a few bytes a few
// hundred nanoseconds; ten nanoseconds is no measurement (Rusticl on llvmpipe reports one).
constexpr double kShortestPlausibleMs = 1e-5;
// The fastest host link there is (NVLink-C2C: 450 GB/s each way) with room to spare: a transfer
// faster than this was not timed.
constexpr double kFastestPlausibleTransferGbPerS = 1000;

// A span that brackets `work` on `queue`, read once the queue has finished.
template <typename Work>
std::unique_ptr<Span> bracket(DeviceQueue& queue, const Work& work) {
  std::unique_ptr<Span> span = queue.make_span();
  queue.begin(*span);
  work();
  queue.end(*span);
  return span;
}

// Device figures of a run, checked together: one implausible span voids them all.
struct DeviceFigures {
  std::vector<double> launches;
  double batch_ms = kNotMeasured, h2d_ms = kNotMeasured, d2h_ms = kNotMeasured;
};

// The bytes an upload or download span of `memory` moves for the plausibility check: a copy moves the
// frame; a managed prefetch or an SVM unmap may move none (pages already where asked), so only its
// time is checked. Where the hand-over is no command (CUDA mapped memory) there is no span to check.
std::size_t span_bytes(HostMemory memory, const FrameLayout& layout) {
  return copies_frames(memory) ? layout.bytes() : 0;
}

std::string implausible_figures(const DeviceFigures& figures, int batch_size, std::size_t transfer_bytes,
                                bool transfers_timed) {
  // A transfer not measured (no command, or a span with nothing in it) is no figure to doubt.
  std::string reason =
      transfers_timed && !std::isnan(figures.h2d_ms) ? implausible_span_reason(figures.h2d_ms, transfer_bytes) : "";
  if (reason.empty() && transfers_timed && !std::isnan(figures.d2h_ms))
    reason = implausible_span_reason(figures.d2h_ms, transfer_bytes);
  if (reason.empty() && batch_size > 0) reason = implausible_span_reason(figures.batch_ms * batch_size, 0);
  for (const double ms : figures.launches)
    if (reason.empty()) reason = implausible_span_reason(ms, 0);
  return reason;
}

}  // namespace

std::size_t cold_scratch_bytes(std::size_t cache_bytes) { return std::max(2 * cache_bytes, kLeastColdScratchBytes); }

std::string implausible_span_reason(double ms, std::size_t bytes) {
  if (!(ms >= kShortestPlausibleMs))
    return fmt::format("the device reported a span of {:.3g} ms, under the {:.0g} ms any command takes: its "
                       "profiling timestamps are not real", ms, kShortestPlausibleMs);
  const double gb_per_s = static_cast<double>(bytes) / (ms * 1e6);
  if (bytes > 0 && gb_per_s > kFastestPlausibleTransferGbPerS)
    return fmt::format("the device reported a transfer at {:.3g} GB/s, faster than any host link: its profiling "
                       "timestamps are not real", gb_per_s);
  return "";
}

DevicePeaks peaks_from_spans(const PeakShape& shape, double copy_ms, double fma_ms) {
  DevicePeaks peaks;
  peaks.untimed = implausible_span_reason(copy_ms, 0);
  if (peaks.untimed.empty()) peaks.untimed = implausible_span_reason(fma_ms, 0);
  if (!peaks.untimed.empty()) return peaks;
  peaks.copy_gb_per_s = copy_gb_per_s(shape, copy_ms);
  peaks.fma_gflop_per_s = fma_gflop_per_s(shape, fma_ms);
  return peaks;
}

double best_span_ms(DeviceQueue& queue, const std::function<void()>& launch, int timed) {
  launch();
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < timed; ++i) {
    const std::unique_ptr<Span> span = bracket(queue, launch);
    queue.finish();
    best = std::min(best, span->elapsed_ms());
  }
  return best;
}

BackendRun measure_run(DeviceSession& session, const PrepareVariant& prepare, const Problem& problem,
                       const Image& input, std::size_t planned_bytes, const RunOptions& options) {
  const FrameLayout layout = FrameLayout::for_problem(problem);
  RunBudget budget(options.time_budget_s);
  BackendRun run;
  run.memory = to_string(options.memory);
  const bool copies = copies_frames(options.memory);
  bool timed_transfers = true;  // the variant says, once prepared
  run.device_bytes = planned_bytes;

  // Untimed: the queue. Declared before everything its commands touch, so that it is destroyed last and
  // (OpenCL) finishes its commands before the host memory they read or write is freed.
  std::unique_ptr<DeviceQueue> queue = session.make_queue();
  struct FinishOnExit {
    DeviceQueue& queue;
    ~FinishOnExit() {
      try {
        queue.finish();
      } catch (...) {  // already failing: the first error is the one reported
      }
    }
  };

  std::unique_ptr<PreparedVariant> variant;
  std::unique_ptr<DeviceFrame> frame;
  std::unique_ptr<HostFrame> host_input, host_output;
  std::unique_ptr<CacheScratch> scratch;  // --cold
  FinishOnExit drain{*queue};
  const auto upload = [&] { variant->upload(*frame, *host_input, *queue); };
  const auto launch = [&] { variant->launch(*frame, *queue); };
  const auto download = [&] { variant->download(*frame, *host_output, *queue); };

  // --- 1. setup, host clock: the variant, the frame's device memory, the host buffers ---
  DeviceFigures figures;
  std::unique_ptr<Span> h2d;
  try {
    const Clock::time_point setup_start = Clock::now();
    variant = prepare(*queue);
    frame = variant->make_frame();
    timed_transfers = variant->transfers_are_commands();
    host_input = copies ? session.make_host_frame(layout, options.memory == HostMemory::Pinned, *queue)
                        : variant->host_view(*frame, false);
    host_output = copies ? session.make_host_frame(layout, options.memory == HostMemory::Pinned, *queue)
                         : variant->host_view(*frame, true);
    queue->finish();
    run.times.setup_ms = ms_since(setup_start);
    run.device_bytes = variant->device_bytes(*frame);
    if (options.cold) scratch = session.make_cache_scratch(cold_scratch_bytes(session.cache_bytes()));

    // --- 2. upload (mapped: the memory handed to the device, untimed: nothing crosses until the kernel) ---
    layout.pack(input, host_input->units());
    if (timed_transfers) h2d = bracket(*queue, upload);
    else upload();
    queue->finish();
  } catch (const ApiError& error) {
    if (!session.out_of_memory(error)) throw;
    return skipped(fmt::format("the device could not allocate {:.1f} MB ({})", megabytes(planned_bytes),
                               error.code_name()));
  }
  if (h2d && !h2d->brackets_nothing()) figures.h2d_ms = h2d->elapsed_ms();

  // --- 3. warm-up, which also says how many launches fit the time budget ---
  const RunOptions::WarmUp warm = options.warm_up(budget, [&] {
    launch();
    queue->finish();
  });
  const int first_round = warm.timed;
  const double one_launch_s = warm.one_launch_s;
  // Kept for host to host and reuse: a launch each, and the transfers.
  const double transfers_s = std::isfinite(figures.h2d_ms) ? 2 * figures.h2d_ms / 1e3 : 0;
  const double after_samples_s = 2 * one_launch_s + transfers_s;
  // --- 4. poison ---
  variant->poison(*frame, *queue, 0xFF);
  queue->finish();

  // --- 5. one span per launch, queued back to back in rounds until the stopping rule says enough;
  // --cold overwrites the scratch before each launch, outside its span; managed-faults hands the frame
  // back to the host there too, so each launch's span holds its page faults (backend.h) ---
  const bool from_host = samples_start_on_host(options.memory);
  const SamplePlan plan = options.plan_samples(budget, first_round, one_launch_s, after_samples_s);
  Sampling sampling = sample_until_stopped(plan.rule, plan.first_round, [&](int count) {
    std::vector<std::unique_ptr<Span>> launch_spans;
    for (int i = 0; i < count; ++i) launch_spans.push_back(queue->make_span());
    for (const std::unique_ptr<Span>& span : launch_spans) {
      if (scratch) scratch->overwrite(*queue);
      if (from_host) upload();
      queue->begin(*span);
      launch();
      queue->end(*span);
    }
    queue->finish();
    std::vector<double> samples_ms;
    for (const std::unique_ptr<Span>& span : launch_spans) samples_ms.push_back(span->elapsed_ms());
    return samples_ms;
  });
  figures.launches = sampling.samples_ms;
  const int timed = static_cast<int>(sampling.samples_ms.size());

  // --- 6. the batch: as many of the samples' launches as fit what the budget has left ---
  const double launch_s = summarize(figures.launches).median / 1e3;
  const double batch_fit = (budget.left_s() - after_samples_s) / launch_s;  // NaN / infinite: no time seen
  const int batch_size = batch_fit >= timed || !(launch_s > 0) ? timed : static_cast<int>(std::max(batch_fit, 0.0));
  if (batch_size >= 1) {
    if (from_host) upload();  // only the batch's first launch finds the frame on the host
    const std::unique_ptr<Span> batch = bracket(*queue, [&] {
      for (int i = 0; i < batch_size; ++i) launch();
    });
    queue->finish();
    figures.batch_ms = batch->elapsed_ms() / batch_size;
  } else {
    budget.skip("kernel_batch_ms");
  }

  // --- 7. download: the run's output ---
  std::unique_ptr<Span> d2h;
  if (timed_transfers) d2h = bracket(*queue, download);
  else download();
  queue->finish();
  if (d2h && !d2h->brackets_nothing()) figures.d2h_ms = d2h->elapsed_ms();
  run.output = Image(input.width, input.height, input.channels, input.eight_bit);
  layout.unpack(host_output->const_units(), run.output);

  // --- 8. host to host, then the reuse case, on the host clock, each while the budget lasts ---
  if (budget.spent()) {
    budget.skip("host_to_host_ms");
  } else {
    const Clock::time_point round_trip_start = Clock::now();
    upload();
    launch();
    download();
    queue->finish();
    run.times.host_to_host_ms = ms_since(round_trip_start);
  }
  if (budget.spent()) {
    budget.skip("reuse_ms");
  } else {
    const Clock::time_point reuse_start = Clock::now();
    launch();
    download();
    queue->finish();
    run.times.reuse_ms = ms_since(reuse_start);
  }

  if (layout.eight_bit) {  // every 8-bit value is a result: a pixel left as poisoned could pass
    variant->poison(*frame, *queue, 0x00);
    launch();
    download();
    queue->finish();
    Image again(input.width, input.height, input.channels, input.eight_bit);
    layout.unpack(host_output->const_units(), again);
    for (std::size_t i = 0; i < again.data.size(); ++i)
      if (again.data[i] != run.output.data[i]) run.output.data[i] = kNotMeasured;  // NaN: never written
  }

  run.times.untimed = implausible_figures(figures, batch_size, span_bytes(options.memory, layout), timed_transfers);
  if (run.times.untimed.empty()) {
    run.times.h2d_ms = figures.h2d_ms;
    run.times.d2h_ms = figures.d2h_ms;
    run.times.kernel_batch_ms = figures.batch_ms;
    run.times.kernel_ms = summarize(figures.launches);
    run.times.kernel_samples_ms = std::move(figures.launches);
  }
  run.times.stopped_by = to_string(sampling.stopped_by);
  run.times.budget_skipped = budget.skipped();
  run.times.cold = options.cold;
  run.status = Status::Ok;
  return run;
}

namespace {

// One frame in flight: its device, its own queue, host and device buffers (the queue outlives them:
// members go in reverse order).
struct Slot {
  int device = 0;  // index into measure_stream's devices
  std::unique_ptr<DeviceQueue> queue;
  std::unique_ptr<HostFrame> input, output;
  std::unique_ptr<DeviceFrame> frame;
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
  const FrameLayout layout = FrameLayout::for_problem(problem);
  const int count = static_cast<int>(devices.size());
  StreamRun run;

  // Per device: a setup queue and the variant set up there (setup queues before the slots: they outlive them).
  std::vector<std::unique_ptr<DeviceQueue>> setup_queues;
  std::vector<std::unique_ptr<PreparedVariant>> variants;
  for (StreamDevice& device : devices) {
    setup_queues.push_back(device.session.make_queue());
    variants.push_back(device.prepare(*setup_queues.back()));
  }
  // kStreamSlots slots per device, slot s on device s % count: frame i goes to device i % count.
  std::vector<Slot> slots(static_cast<std::size_t>(kStreamSlots * count));
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
  } drain{slots};
  const bool copies = copies_frames(options.memory), timed_transfers = variants.front()->transfers_are_commands();
  for (std::size_t s = 0; s < slots.size(); ++s) {
    Slot& slot = slots[s];
    slot.device = static_cast<int>(s) % count;
    DeviceSession& session = devices[static_cast<std::size_t>(slot.device)].session;
    const PreparedVariant& variant = *variants[static_cast<std::size_t>(slot.device)];
    slot.queue = session.make_queue();  // its device current from here (CUDA: make_queue sets it)
    slot.frame = variant.make_frame();
    slot.input = copies ? session.make_host_frame(layout, options.memory == HostMemory::Pinned, *slot.queue)
                        : variant.host_view(*slot.frame, false);
    slot.output = copies ? session.make_host_frame(layout, options.memory == HostMemory::Pinned, *slot.queue)
                         : variant.host_view(*slot.frame, true);
  }
  for (const auto& queue : setup_queues) {  // the filter, and what make_frame() queued there
    queue->make_current();
    queue->finish();
  }
  const auto variant_of = [&](const Slot& slot) -> const PreparedVariant& {
    return *variants[static_cast<std::size_t>(slot.device)];
  };
  const auto issue_frame = [&](Slot& slot) {
    const PreparedVariant& variant = variant_of(slot);
    slot.queue->make_current();
    variant.upload(*slot.frame, *slot.input, *slot.queue);
    variant.launch(*slot.frame, *slot.queue);
    variant.download(*slot.frame, *slot.output, *slot.queue);
    slot.queue->flush();  // submitted now: a driver may hold an unflushed queue's commands back
  };
  const auto finish_all = [&] {
    for (Slot& slot : slots) {
      slot.queue->make_current();
      slot.queue->finish();
    }
  };

  // Warm-up, one frame per slot: first touch of every buffer and queue stays out of the figures.
  for (Slot& slot : slots) {
    layout.pack(input, slot.input->units());
    issue_frame(slot);
  }
  finish_all();

  // One frame alone on the first device's first slot, in spans: each transfer, then the whole frame
  // without overlap.
  Slot& first = slots.front();
  const PreparedVariant& variant = variant_of(first);
  first.queue->make_current();
  const auto time_alone = [&](const auto& work) {
    const std::unique_ptr<Span> span = bracket(*first.queue, work);
    first.queue->finish();
    return span->brackets_nothing() ? kNotMeasured : span->elapsed_ms();
  };
  // CUDA's mapped frames have no upload or download to time: the kernel's span holds the host-link traffic.
  const double h2d_ms = timed_transfers ? time_alone([&] { variant.upload(*first.frame, *first.input, *first.queue); })
                                        : kNotMeasured;
  const double d2h_ms = timed_transfers
                            ? time_alone([&] { variant.download(*first.frame, *first.output, *first.queue); })
                            : kNotMeasured;
  const double serial_ms = time_alone([&] {
    variant.upload(*first.frame, *first.input, *first.queue);
    variant.launch(*first.frame, *first.queue);
    variant.download(*first.frame, *first.output, *first.queue);
  });

  // NaN everywhere a result could come from, so the last frame's output is its own.
  Image poison(input.width, input.height, input.channels);
  std::fill(poison.data.begin(), poison.data.end(), kNotMeasured);
  for (Slot& slot : slots) {
    layout.pack(poison, slot.output->units());
    slot.queue->make_current();
    variant_of(slot).poison(*slot.frame, *slot.queue, 0xFF);
  }
  finish_all();

  // Frame i on slot i % slots (device i % devices): wait for that slot's previous frame, queue the next.
  // Each frame is taken to arrive in its slot's host buffer, as a decoder or capture API writing into it
  // would deliver it (the warm-up filled them): a copy into the buffer would time the host's memcpy, not
  // the pipeline. The clock starts as the first upload is queued.
  run.frames_per_device.assign(devices.size(), 0);
  const Clock::time_point start = Clock::now();
  for (int i = 0; i < frames; ++i) {
    Slot& slot = slots[static_cast<std::size_t>(i) % slots.size()];
    if (i >= static_cast<int>(slots.size())) {
      slot.queue->make_current();
      slot.queue->wait_for_last();
    }
    issue_frame(slot);
    ++run.frames_per_device[static_cast<std::size_t>(slot.device)];
  }
  finish_all();
  run.total_ms = ms_since(start);

  if (timed_transfers && !std::isnan(h2d_ms)) run.untimed = implausible_span_reason(h2d_ms, span_bytes(options.memory, layout));
  if (run.untimed.empty() && timed_transfers && !std::isnan(d2h_ms))
    run.untimed = implausible_span_reason(d2h_ms, span_bytes(options.memory, layout));
  if (run.untimed.empty()) run.untimed = implausible_span_reason(serial_ms, 0);
  if (run.untimed.empty()) {
    run.h2d_ms_per_frame = h2d_ms;
    run.d2h_ms_per_frame = d2h_ms;
    run.serial_ms_per_frame = serial_ms;
  }
  run.last_output = Image(input.width, input.height, input.channels, input.eight_bit);
  layout.unpack(slots[static_cast<std::size_t>(frames - 1) % slots.size()].output->const_units(), run.last_output);
  run.queues = static_cast<int>(slots.size());
  run.status = Status::Ok;
  return run;
}

}  // namespace cc
