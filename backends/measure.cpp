// measure.cpp: the one measurement protocol (measure_run) and the peak and plausibility helpers, written once over the device shim.
#include "backends/measure.h"

#include <chrono>
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "backends/measure_spans.h"
#include "common/domain/error.h"

namespace cc {

using measure_spans::bracket;
using measure_spans::Clock;
using measure_spans::ms_since;
using measure_spans::span_bytes;

namespace {

double megabytes(std::size_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

// The shortest span any device command can take: launching a kernel or starting a copy costs
// microseconds on every GPU runtime we know, and a CPU runtime's (PoCL's) copy of a few bytes a few
// hundred nanoseconds; ten nanoseconds is no measurement (Rusticl on llvmpipe reports one).
constexpr double kShortestPlausibleMs = 1e-5;
// The fastest host link there is (NVLink-C2C: 450 GB/s each way) with room to spare: a transfer
// faster than this was not timed.
constexpr double kFastestPlausibleTransferGbPerS = 1000;

// Device figures of a run, checked together: one implausible span voids them all.
struct DeviceFigures {
  std::vector<double> launches;
  double batch_ms = kNotMeasured, h2d_ms = kNotMeasured, d2h_ms = kNotMeasured;
};

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

namespace {

// Finishes the queue on the way out, whatever happens, so that no command outlives the memory it touches.
struct FinishOnExit {
  DeviceQueue& queue;
  ~FinishOnExit() {
    try {
      queue.finish();
    } catch (...) {  // already failing: the first error is the one reported
    }
  }
};

// measure_run's protocol (its steps listed in measure.h), one method a step, in the manner of nvbench's
// measure_cold: the state the steps share is the members.
class RunMeasurement {
 public:
  RunMeasurement(DeviceSession& session, const PrepareVariant& prepare, const Problem& problem, const Image& input,
                 std::size_t planned_bytes, const RunOptions& options)
      : session_(session),
        prepare_(prepare),
        input_(input),
        planned_bytes_(planned_bytes),
        options_(options),
        layout_(FrameLayout::for_problem(problem)),
        budget_(options.time_budget_s),
        queue_(session.make_queue()),
        drain_{*queue_} {
    run_.memory = to_string(options.memory);
    run_.device_bytes = planned_bytes;
  }

  BackendRun operator()() {
    if (!set_up_and_upload()) return std::move(run_);
    warm_up();
    poison_output();
    take_samples();
    time_batch();
    download_output();
    time_host_to_host_and_reuse();
    if (layout_.eight_bit) mark_unwritten_eight_bit_pixels();
    return summarise();
  }

 private:
  void upload() { variant_->upload(*frame_, *host_input_, *queue_); }
  void launch() { variant_->launch(*frame_, *queue_); }
  void download() { variant_->download(*frame_, *host_output_, *queue_); }

  // 1. setup on the host clock: the variant, the frame's device memory, the host buffers; then 2. the
  // upload (mapped: the memory handed to the device, untimed: nothing crosses until the kernel). False,
  // with run_ the skip, when the device ran out of memory.
  bool set_up_and_upload() {
    const bool copies = copies_frames(options_.memory);
    std::unique_ptr<Span> h2d;
    try {
      const Clock::time_point setup_start = Clock::now();
      variant_ = prepare_(*queue_);
      frame_ = variant_->make_frame();
      timed_transfers_ = variant_->transfers_are_commands();
      host_input_ = copies ? session_.make_host_frame(layout_, options_.memory == HostMemory::Pinned, *queue_)
                           : variant_->host_view(*frame_, false);
      host_output_ = copies ? session_.make_host_frame(layout_, options_.memory == HostMemory::Pinned, *queue_)
                            : variant_->host_view(*frame_, true);
      queue_->finish();
      run_.times.setup_ms = ms_since(setup_start);
      run_.device_bytes = variant_->device_bytes(*frame_);
      if (options_.cold) scratch_ = session_.make_cache_scratch(cold_scratch_bytes(session_.cache_bytes()));

      layout_.pack(input_, host_input_->units());
      if (timed_transfers_) h2d = bracket(*queue_, [&] { upload(); });
      else upload();
      queue_->finish();
    } catch (const ApiError& error) {
      if (!session_.out_of_memory(error)) throw;
      run_ = skipped(fmt::format("the device could not allocate {:.1f} MB ({})", megabytes(planned_bytes_),
                                 error.code_name()));
      return false;
    }
    if (h2d && !h2d->brackets_nothing()) figures_.h2d_ms = h2d->elapsed_ms();
    return true;
  }

  // 3. warm-up, which also says how many launches fit the time budget.
  void warm_up() {
    const RunOptions::WarmUp warm = options_.warm_up(budget_, [&] {
      launch();
      queue_->finish();
    });
    first_round_ = warm.timed;
    one_launch_s_ = warm.one_launch_s;
    // Kept for host to host and reuse: a launch each, and the transfers.
    const double transfers_s = std::isfinite(figures_.h2d_ms) ? 2 * figures_.h2d_ms / 1e3 : 0;
    after_samples_s_ = 2 * one_launch_s_ + transfers_s;
  }

  // 4. poison: a pixel no timed launch writes fails validation.
  void poison_output() {
    variant_->poison(*frame_, *queue_, 0xFF);
    queue_->finish();
  }

  // 5. one span per launch, queued back to back in rounds until the stopping rule says enough; --cold
  // overwrites the scratch before each launch, outside its span; managed-faults hands the frame back to
  // the host there too, so each launch's span holds its page faults (backend.h).
  void take_samples() {
    from_host_ = samples_start_on_host(options_.memory);
    const SamplePlan plan = options_.plan_samples(budget_, first_round_, one_launch_s_, after_samples_s_);
    sampling_ = sample_until_stopped(plan.rule, plan.first_round, [&](int count) { return sample_round(count); });
    figures_.launches = sampling_.samples_ms;
  }

  std::vector<double> sample_round(int count) {
    std::vector<std::unique_ptr<Span>> launch_spans;
    for (int i = 0; i < count; ++i) launch_spans.push_back(queue_->make_span());
    for (const std::unique_ptr<Span>& span : launch_spans) {
      if (scratch_) scratch_->overwrite(*queue_);
      if (from_host_) upload();
      queue_->begin(*span);
      launch();
      queue_->end(*span);
    }
    queue_->finish();
    std::vector<double> samples_ms;
    for (const std::unique_ptr<Span>& span : launch_spans) samples_ms.push_back(span->elapsed_ms());
    return samples_ms;
  }

  // 6. the batch: as many of the samples' launches as fit what the budget has left.
  void time_batch() {
    const int timed = static_cast<int>(sampling_.samples_ms.size());
    const double launch_s = summarize(figures_.launches).median / 1e3;
    const double batch_fit = (budget_.left_s() - after_samples_s_) / launch_s;  // NaN / infinite: no time seen
    batch_size_ = batch_fit >= timed || !(launch_s > 0) ? timed : static_cast<int>(std::max(batch_fit, 0.0));
    if (batch_size_ < 1) {
      budget_.skip("kernel_batch_ms");
      return;
    }
    if (from_host_) upload();  // only the batch's first launch finds the frame on the host
    const std::unique_ptr<Span> batch = bracket(*queue_, [&] {
      for (int i = 0; i < batch_size_; ++i) launch();
    });
    queue_->finish();
    figures_.batch_ms = batch->elapsed_ms() / batch_size_;
  }

  // 7. download: the run's output.
  void download_output() {
    std::unique_ptr<Span> d2h;
    if (timed_transfers_) d2h = bracket(*queue_, [&] { download(); });
    else download();
    queue_->finish();
    if (d2h && !d2h->brackets_nothing()) figures_.d2h_ms = d2h->elapsed_ms();
    run_.output = Image(input_.width, input_.height, input_.channels, input_.eight_bit);
    layout_.unpack(host_output_->const_units(), run_.output);
  }

  // 8. host to host, then the reuse case, on the host clock, each while the budget lasts.
  void time_host_to_host_and_reuse() {
    time_on_host("host_to_host_ms", run_.times.host_to_host_ms, [&] {
      upload();
      launch();
      download();
    });
    time_on_host("reuse_ms", run_.times.reuse_ms, [&] {
      launch();
      download();
    });
  }

  // `commands` and the queue's finish on the host clock into `ms`, or the phase named skipped once the
  // budget is spent.
  template <class Commands>
  void time_on_host(const char* phase, double& ms, Commands&& commands) {
    if (budget_.spent()) return budget_.skip(phase);
    const Clock::time_point start = Clock::now();
    commands();
    queue_->finish();
    ms = ms_since(start);
  }

  // Every 8-bit value is a result, so a pixel left as poisoned could pass: poisoned again with zeros and
  // launched once more, a pixel that differs between the two was never written (NaN in the output).
  void mark_unwritten_eight_bit_pixels() {
    variant_->poison(*frame_, *queue_, 0x00);
    launch();
    download();
    queue_->finish();
    Image again(input_.width, input_.height, input_.channels, input_.eight_bit);
    layout_.unpack(host_output_->const_units(), again);
    for (std::size_t i = 0; i < again.data.size(); ++i)
      if (again.data[i] != run_.output.data[i]) run_.output.data[i] = kNotMeasured;  // NaN: never written
  }

  // The figures, unless one span of them cannot be real, and how the samples and the budget ended.
  BackendRun summarise() {
    run_.times.untimed =
        implausible_figures(figures_, batch_size_, span_bytes(options_.memory, layout_), timed_transfers_);
    if (run_.times.untimed.empty()) {
      run_.times.h2d_ms = figures_.h2d_ms;
      run_.times.d2h_ms = figures_.d2h_ms;
      run_.times.kernel_batch_ms = figures_.batch_ms;
      run_.times.kernel_ms = summarize(figures_.launches);
      run_.times.kernel_samples_ms = std::move(figures_.launches);
    }
    run_.times.stopped_by = to_string(sampling_.stopped_by);
    run_.times.budget_skipped = budget_.skipped();
    run_.times.cold = options_.cold;
    run_.status = Status::Ok;
    return std::move(run_);
  }

  DeviceSession& session_;
  const PrepareVariant& prepare_;
  const Image& input_;
  const std::size_t planned_bytes_;
  const RunOptions& options_;
  const FrameLayout layout_;
  RunBudget budget_;
  BackendRun run_;
  bool timed_transfers_ = true;  // the variant says, once prepared
  bool from_host_ = false;       // each sample starts with the frame on the host (managed-faults)
  // The queue is declared before everything its commands touch, so that it is destroyed last and
  // (OpenCL) finishes its commands before the host memory they read or write is freed.
  std::unique_ptr<DeviceQueue> queue_;
  std::unique_ptr<PreparedVariant> variant_;
  std::unique_ptr<DeviceFrame> frame_;
  std::unique_ptr<HostFrame> host_input_, host_output_;
  std::unique_ptr<CacheScratch> scratch_;  // --cold
  FinishOnExit drain_;
  DeviceFigures figures_;
  int first_round_ = 1;
  double one_launch_s_ = 0, after_samples_s_ = 0;
  Sampling sampling_;
  int batch_size_ = 0;
};

}  // namespace

BackendRun measure_run(DeviceSession& session, const PrepareVariant& prepare, const Problem& problem,
                       const Image& input, std::size_t planned_bytes, const RunOptions& options) {
  return RunMeasurement(session, prepare, problem, input, planned_bytes, options)();
}

}  // namespace cc
