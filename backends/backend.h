// backend.h: the one interface every API implements (cpu, opencl, cuda), and the backend registry.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/device_watchdog.h"
#include "common/domain/image.h"
#include "common/domain/measurement.h"
#include "common/domain/problem.h"
#include "common/domain/variants.h"

namespace cc {

// The one time budget of a run (RunOptions::time_budget_s, docs/performance.md): it bounds every timed
// phase, setup, warm-ups, samples, batch, host to host and reuse, not the samples alone (a 15 s launch
// under --time-budget 2 took 62 s). A phase after the samples begins only while some budget is
// left, so a run ends at most one launch per phase past it; the phases it stops are recorded
// (PhaseTimes::budget_skipped). Two costs are kept out of it: the kernel's compile, before the run (a
// compiler cannot be stopped half way, and it is cached for the next run: build_ms), and the first
// launch (RunOptions::warm_up), which holds a JIT's last step (PoCL compiles the kernel for its
// arguments there), first touch and the CPU's worker threads starting: on a fresh CI runner's cold
// kernel cache they spent the whole budget and left the fast variants one sample each. The samples
// still get at least --min-samples whatever the budget (sample_until_stopped).
class RunBudget {
 public:
  explicit RunBudget(double budget_s) : budget_s_(budget_s) {}
  double spent_s() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }
  double left_s() const { return budget_s_ - spent_s(); }
  bool spent() const { return !(left_s() > 0); }
  // `seconds` just spent are not the run's to count (RunOptions::warm_up's first launch).
  void exclude(double seconds) {
    start_ += std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(seconds));
  }
  // `phase` was not measured because the budget was spent (its JSON name: "host_to_host_ms").
  void skip(std::string_view phase) {
    if (!skipped_.empty()) skipped_ += ", ";
    skipped_ += phase;
  }
  const std::string& skipped() const { return skipped_; }

 private:
  double budget_s_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::string skipped_;
};

// The samples' part of a run's budget, and their first round cut to fit it.
struct SamplePlan {
  MeasurementSettings rule;  // the run's settings, time_budget_s what is left for the samples
  int first_round = 1;
};

// Where a frame lives between host and device (--memory; README.md): copied from page-locked or
// pageable host memory, or never copied: mapped (zero-copy, the kernel reads and writes host memory
// over the host link), managed (CUDA managed memory, OpenCL shared virtual memory: one pointer, the
// driver migrates the pages, CUDA prefetching them where it may) and managed-faults (the same memory
// never prefetched: the kernel's first touches fault the pages over, docs/memory-spaces-evidence.md; OpenCL:
// fine-grained buffer SVM, which the host reaches without map or unmap).
enum class HostMemory : std::uint8_t { Pinned, Pageable, Mapped, Managed, ManagedFaults };
std::string_view to_string(HostMemory memory);
// Throws InputError for a name that is none of the five.
HostMemory parse_host_memory(std::string_view name);
// Mapped and managed frames are the device frame itself: nothing is uploaded or downloaded by copy.
inline bool copies_frames(HostMemory memory) { return memory == HostMemory::Pinned || memory == HostMemory::Pageable; }
// One pointer for host and device whose pages the driver moves (cudaMallocManaged; OpenCL SVM), with
// or without prefetch: what CUDA's concurrentManagedAccess rule and OpenCL's SVM calls apply to.
inline bool is_managed(HostMemory memory) {
  return memory == HostMemory::Managed || memory == HostMemory::ManagedFaults;
}
// Each kernel sample starts with the frame where the host writes it, so that its first touches fault
// the pages over inside its span (managed-faults): the protocol hands the frame back to the host
// (PreparedVariant::upload) outside every sample's span (backends/measure.cpp).
inline bool samples_start_on_host(HostMemory memory) { return memory == HostMemory::ManagedFaults; }

// How to run: the measurement settings (common/domain/stats.h: the stopping rule, warm-up, --cold),
// and how the frames cross and where the kernels come from.
struct RunOptions : MeasurementSettings {
  HostMemory memory = HostMemory::Pinned;  // where the frames live (--memory)
  std::string kernel_dir;  // non-empty: read kernel sources from here instead of the embedded copies
  // The longest one wait for the device may take (--kernel-timeout, backends/device_watchdog.h).
  double kernel_timeout_s = kDefaultKernelTimeoutS;

  // What is left of `budget` for the samples once `after_samples_s` is kept for the timed phases after
  // them; the first round (`first_round`, from warm_up) cut to what fits it at `one_launch_s` a launch.
  // At least one sample is always taken.
  SamplePlan plan_samples(const RunBudget& budget, int first_round, double one_launch_s, double after_samples_s) const {
    SamplePlan plan{.rule = *this, .first_round = std::max(first_round, 1)};
    plan.rule.time_budget_s = std::max(0.0, budget.left_s() - after_samples_s);
    const double fit = plan.rule.time_budget_s / one_launch_s;  // infinite (or NaN) when the clock saw no time pass
    if (fit < plan.first_round) plan.first_round = std::max(1, static_cast<int>(fit));
    return plan;
  }

  // Launches to time when one takes `one_launch_s`: as many as fit the budget, 1 to repetitions.
  int timed_launches(double one_launch_s) const {
    const int most = std::max(repetitions, 1);
    const double fit = time_budget_s / one_launch_s;  // infinite when the clock saw no time pass
    if (!(fit >= 1)) return 1;
    return fit >= most ? most : static_cast<int>(fit);
  }

  // The warm-up every backend does: how many launches to time, and what one takes. `launch_and_wait`
  // makes one launch and waits for it. The first launch holds whatever a first launch costs (JIT,
  // first touch, threads starting): timed on the host clock, it is taken out of `budget` (RunBudget).
  // With --warmup 2 or more the second, timed the same way, estimates a launch for timed_launches();
  // with --warmup 0 or 1 the first does. The warm-ups after those are no more than the launches they
  // prepare. --warmup 0 still makes that one first launch (so it acts as --warmup 1): without an
  // estimate nothing would bound the timed launches, and --repetitions 1000000 would ignore
  // --time-budget. No warm-up is a sample: samples are device-event brackets, these host-clock spans.
  struct WarmUp {
    int timed = 1;            // launches to time (timed_launches)
    double one_launch_s = 0;  // the estimate of one launch, seconds
  };
  template <typename LaunchAndWait>
  WarmUp warm_up(RunBudget& budget, const LaunchAndWait& launch_and_wait) const {
    const auto time_one = [&] {
      const auto start = std::chrono::steady_clock::now();
      launch_and_wait();
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    WarmUp result;
    result.one_launch_s = time_one();
    budget.exclude(result.one_launch_s);
    int made = 1;
    if (warmup >= 2) {
      result.one_launch_s = time_one();
      made = 2;
    }
    result.timed = timed_launches(result.one_launch_s);
    for (; made < std::min(warmup, result.timed); ++made) launch_and_wait();
    return result;
  }
};

// What one run returns to the driver, which validates `output` against the reference.
struct BackendRun {
  Status status = Status::Skipped;  // Ok here means "ran"; the driver decides Ok or Failed by validation
  std::string reason;               // why skipped (or failed to run)
  Image output;                     // the result, same shape as the input
  PhaseTimes times;
  std::string memory;        // to_string(HostMemory) when transfers were timed
  // What the memory mode means for the figures, when they are not alike with a copy's: a mapped run has
  // no upload and its kernel time holds the host-link traffic; managed with or without prefetch. "" for copies.
  std::string memory_note;
  std::string compile_time;  // what the kernel knew at compile time
  std::size_t device_bytes = 0;  // peak device memory the run held: buffers, arrays, library workspaces
};

// What one --stream run returns: the last frame's result (validated by the driver) and the timings.
struct StreamRun {
  Status status = Status::Skipped;  // Ok: ran; the driver validates `last_output`
  std::string reason;
  Image last_output;
  int queues = 0;
  double total_ms = kNotMeasured;             // host clock, first upload issued to last download done
  double serial_ms_per_frame = kNotMeasured;  // one frame, upload + filter + download, no overlap
  double h2d_ms_per_frame = kNotMeasured;     // one frame's upload alone (device events)
  double d2h_ms_per_frame = kNotMeasured;     // one frame's download alone (device events)
  std::string untimed;  // why the device figures above are not given (PhaseTimes::untimed), or empty
  std::string memory_note;  // as BackendRun's
  std::vector<int> frames_per_device;  // frames each device took, in the order the devices were given
};

// Shared by every backend: a BackendRun that says "skipped: <reason>".
BackendRun skipped(std::string reason);

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string_view name() const = 0;  // "cpu", "opencl", "cuda"

  // Devices found, each with the limits --list shows. Empty when the API is present but has no
  // device; then unavailable_reason() says why ("no OpenCL platform: install pocl-opencl-icd ...").
  virtual const std::vector<DeviceInfo>& devices() = 0;
  virtual std::string unavailable_reason() = 0;

  // The variants of the table (common/domain/variants.h) this backend implements, in table order.
  virtual std::vector<std::string> variants() const = 0;

  // Runs one variant on one device (index into devices()) through the measurement protocol
  // (backends/measure.h). A variant that cannot run here (filter over constant memory, not separable,
  // image over the largest image2d...) returns Skipped with the reason; API failures throw ApiError;
  // a variant this backend does not implement, or an unknown device, is an InputError. The variant is
  // its table line (common/domain/variants.h), resolved once by the caller and carried.
  virtual BackendRun run(const Problem& problem, const Image& input, const VariantTraits& variant,
                         int device, const RunOptions& options) = 0;
  // The same for a caller that holds a name (the tests): the table's line of that name, or InputError.
  BackendRun run(const Problem& problem, const Image& input, std::string_view variant, int device,
                 const RunOptions& options) {
    return run(problem, input, table_line(variant), device, options);
  }

  // Measures the device's copy bandwidth and FP32 FMA rate once (cached); CPU: nothing measured.
  virtual DevicePeaks measure_peaks(int /*device*/) { return {}; }

  // Pushes `frames` copies of `input` through upload, `variant` and download with the three
  // overlapped (several streams / queues, frames split in chunks). Backends without transfers skip.
  virtual StreamRun stream(const Problem& /*problem*/, const Image& /*input*/, const VariantTraits& /*variant*/,
                           int /*device*/, int /*frames*/, const RunOptions& /*options*/) {
    StreamRun run;
    run.reason = "no transfers to overlap on this backend";
    return run;
  }
  StreamRun stream(const Problem& problem, const Image& input, std::string_view variant, int device, int frames,
                   const RunOptions& options) {
    return stream(problem, input, table_line(variant), device, frames, options);
  }

  // Several devices of this backend (indexes into devices(), two or more; docs/multi-device.md):
  // --stream's frames dealt round robin over them, each device its own slots (StreamRun's
  // frames_per_device); and --split, one frame cut into horizontal bands, one per device, each with its
  // filter's halo rows, the bands stitched into `output` and validated like any run. A variant or problem
  // one of the devices cannot run is skipped with that device's reason; so is a split with more devices
  // than rows. Backends without devices to combine skip.
  virtual StreamRun stream_over(const Problem& /*problem*/, const Image& /*input*/, const VariantTraits& /*variant*/,
                                const std::vector<int>& /*devices*/, int /*frames*/, const RunOptions& /*options*/) {
    StreamRun run;
    run.reason = "no devices to deal frames over on this backend";
    return run;
  }
  virtual BackendRun split(const Problem& /*problem*/, const Image& /*input*/, const VariantTraits& /*variant*/,
                           const std::vector<int>& /*devices*/, const RunOptions& /*options*/) {
    return skipped("no devices to split a frame over on this backend");
  }
  BackendRun split(const Problem& problem, const Image& input, std::string_view variant, const std::vector<int>& devices,
                   const RunOptions& options) {
    return split(problem, input, table_line(variant), devices, options);
  }
  StreamRun stream_over(const Problem& problem, const Image& input, std::string_view variant,
                        const std::vector<int>& devices, int frames, const RunOptions& options) {
    return stream_over(problem, input, table_line(variant), devices, frames, options);
  }

 private:
  // The table's line of `variant`; InputError, naming this backend's variants, when there is none.
  const VariantTraits& table_line(std::string_view variant);
};

// Every backend compiled into this binary, in report order: cpu, cuda, opencl, each named in
// common/domain/backend_names.h (the one list the command line and the report read).
std::vector<std::unique_ptr<Backend>> make_backends();

// What this binary was built with, for --version: "cpu", "cuda (npp, cufft)", "opencl"; no discovery.
std::vector<std::string> compiled_backends();

}  // namespace cc
