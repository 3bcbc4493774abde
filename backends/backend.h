// backend.h: the one interface every API implements (cpu, opencl, cuda), and the backend registry.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/domain/image.h"
#include "common/domain/measurement.h"
#include "common/domain/problem.h"

namespace cc {

// Where a frame lives between host and device (--memory; README.md): copied from page-locked or
// pageable host memory, or never copied: mapped (zero-copy, the kernel reads and writes host memory
// over the host link) and managed (CUDA managed memory, OpenCL shared virtual memory: one pointer,
// the driver migrates the pages).
enum class HostMemory : std::uint8_t { Pinned, Pageable, Mapped, Managed };
std::string_view to_string(HostMemory memory);
// Throws InputError for a name that is none of the four.
HostMemory parse_host_memory(std::string_view name);
// Mapped and managed frames are the device frame itself: nothing is uploaded or downloaded by copy.
inline bool copies_frames(HostMemory memory) { return memory == HostMemory::Pinned || memory == HostMemory::Pageable; }

struct RunOptions {
  int repetitions = 10;  // most timed launches, one bracket each (GPUs: plus one bracket around that many)
  int warmup = 2;        // untimed launches first: module load, JIT and first touch stay out (0 acts as 1)
  HostMemory memory = HostMemory::Pinned;  // where the frames live (--memory)
  std::string kernel_dir;  // non-empty: read kernel sources from here instead of the embedded copies
  // Each run stops repeating once its timed launches have spent about this long; at least one
  // timed launch always happens.
  double time_budget_s = 2.0;
  // The stopping rule (docs/performance.md, common/domain/stats.h): with max_noise_percent > 0 a run
  // stops once min_samples or more have a robust noise at or under it; the budget caps every run.
  int min_samples = 5;
  double max_noise_percent = 0;
  // Flush the device's L2 before every sample, outside the timed bracket (--cold).
  bool cold = false;

  SamplingRule sampling_rule() const {
    return {.min_samples = min_samples, .max_samples = repetitions, .max_noise_percent = max_noise_percent,
            .budget_s = time_budget_s};
  }

  // Launches to time when one takes `one_launch_s`: as many as fit the budget, 1 to repetitions.
  int timed_launches(double one_launch_s) const {
    const int most = std::max(repetitions, 1);
    const double fit = time_budget_s / one_launch_s;  // infinite when the clock saw no time pass
    if (!(fit >= 1)) return 1;
    return fit >= most ? most : static_cast<int>(fit);
  }

  // The warm-up every backend does; returns how many launches to time. `launch_and_wait` makes one
  // launch and waits for it. The first one, timed on the host clock outside every timed bracket,
  // estimates a launch for timed_launches(); the warm-ups after it are no more than the launches
  // they prepare, so a device at 11 s a launch does not spend 22 s warming up for one sample.
  // --warmup 0 still makes that one estimating launch (so it acts as --warmup 1): without an estimate
  // nothing would bound the timed launches, and --repetitions 1000000 would ignore --time-budget. It
  // is not counted as a sample: samples are device-event brackets, and this is a host-clock span
  // holding the wait and whatever first-launch costs (JIT, first touch) the device has.
  template <typename LaunchAndWait>
  int warm_up(const LaunchAndWait& launch_and_wait) const {
    const auto start = std::chrono::steady_clock::now();
    launch_and_wait();
    const int timed = timed_launches(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    for (int i = 0; i < std::min(warmup, timed) - 1; ++i) launch_and_wait();
    return timed;
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
  // no upload and its kernel time holds the host-link traffic; managed without prefetch. "" for copies.
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
};

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
  // an unknown variant or device is an InputError.
  virtual BackendRun run(const Problem& problem, const Image& input, std::string_view variant,
                         int device, const RunOptions& options) = 0;

  // Measures the device's copy bandwidth and FP32 FMA rate once (cached); CPU: nothing measured.
  virtual DevicePeaks measure_peaks(int /*device*/) { return {}; }

  // Pushes `frames` copies of `input` through upload, `variant` and download with the three
  // overlapped (several streams / queues, frames split in chunks). Backends without transfers skip.
  virtual StreamRun stream(const Problem& /*problem*/, const Image& /*input*/, std::string_view /*variant*/,
                           int /*device*/, int /*frames*/, const RunOptions& /*options*/) {
    StreamRun run;
    run.reason = "no transfers to overlap on this backend";
    return run;
  }
};

// Every backend compiled into this binary, in report order: cpu, cuda, opencl, each named in
// common/domain/backend_names.h (the one list the command line and the report read).
std::vector<std::unique_ptr<Backend>> make_backends();

// What this binary was built with, for --version: "cpu", "cuda (npp, cufft)", "opencl"; no discovery.
std::vector<std::string> compiled_backends();

// Shared by every backend: a BackendRun that says "skipped: <reason>".
BackendRun skipped(std::string reason);

}  // namespace cc
