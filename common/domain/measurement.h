// measurement.h: what a backend measures and discovers: run status, timings by phase, device peaks and properties.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/domain/stats.h"

namespace cc {

enum class Status { Ok, Failed, Skipped };
std::string_view to_string(Status status);

inline constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

// Timings of one run, in milliseconds, measured the same way in every API (backends/measure.h,
// docs/architecture.md).
// A phase a backend does not have (the CPU has no H2D) stays kNotMeasured and prints as null / "-".
struct PhaseTimes {
  double build_ms = kNotMeasured;  // program / module compile, NVRTC or clBuildProgram (cached: 0)
  double setup_ms = kNotMeasured;  // allocation, upload of filter to constant memory, image to texture
  double h2d_ms = kNotMeasured;    // input upload (device events)
  Stats kernel_ms;                 // per-launch, one event bracket per launch, after warm-up
  std::vector<double> kernel_samples_ms;  // the launches kernel_ms summarizes, in the order taken
  std::string stopped_by;  // the rule that stopped the samples (to_string(StopRule)); empty: none taken
  // The phases not measured because the run's time budget was spent (RunBudget, backends/backend.h),
  // by their JSON names ("kernel_batch_ms, reuse_ms"); empty: none.
  std::string budget_skipped;
  bool cold = false;       // L2 flushed before every sample (--cold); false: cache-warm samples
  double kernel_batch_ms = kNotMeasured;  // one bracket around N back-to-back launches, divided by N
  double d2h_ms = kNotMeasured;    // result download (device events)
  double host_to_host_ms = kNotMeasured;  // upload + one filtering + download, host clock
  // Seed 000's reuse case: a second filter on an image already on the device (one more launch +
  // download, no upload), host clock.
  double reuse_ms = kNotMeasured;
  // Why the device's own figures above are not given (kernel, batch, H2D, D2H: kNotMeasured), or
  // empty: a span the device reported as zero or implausibly short (backends/measure.h).
  std::string untimed;
};

// Ceilings measured once per device by the same two kernels in every API (a copy kernel and an
// FMA chain), for the report's device block and each run's "% of bound".
struct DevicePeaks {
  double copy_gb_per_s = kNotMeasured;   // bytes read + bytes written per second by a copy kernel
  double fma_gflop_per_s = kNotMeasured; // 2 x FMAs per second by independent FMA chains
  std::string untimed;  // why the rates are not given although measured (fake profiling timestamps), or empty
};

// A device as discovered, for --list and the report's device block.
struct DeviceInfo {
  std::string backend;  // "cpu", "cuda", "opencl", "npp"
  std::string id;       // how to select it: "cpu", "cuda:0", "opencl:1:0"
  std::string name;
  // Ordered name/value pairs that matter for the variants: memory sizes, limits, versions.
  std::vector<std::pair<std::string, std::string>> properties;
  DevicePeaks peaks;  // measured when the device ran anything; kNotMeasured otherwise
  // The numbers a program reads (the JSON's devices[].compute_units...): properties above are text for
  // people ("79.1 GB"). 0 / kNotMeasured when the API does not say.
  int compute_units = 0;                     // SMs, OpenCL compute units, CPU threads
  double global_memory_bytes = kNotMeasured;
  double cache_bytes = kNotMeasured;         // last-level cache: L2 (CUDA), CL_DEVICE_GLOBAL_MEM_CACHE_SIZE
};

}  // namespace cc
