// record.h: what one backend/variant run produced: status, timings by phase, errors, derived rates.
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

// Timings of one run, in milliseconds, measured the same way in every API (DESIGN.md section 4).
// A phase a backend does not have (the CPU has no H2D) stays kNotMeasured and prints as null / "-".
struct PhaseTimes {
  double build_ms = kNotMeasured;  // program / module compile, NVRTC or clBuildProgram (cached: 0)
  double setup_ms = kNotMeasured;  // allocation, upload of filter to constant memory, image to texture
  double h2d_ms = kNotMeasured;    // input upload (device events)
  Stats kernel_ms;                 // per-launch, one event bracket per launch, after warm-up
  double kernel_batch_ms = kNotMeasured;  // one bracket around N back-to-back launches, divided by N
  double d2h_ms = kNotMeasured;    // result download (device events)
  double host_to_host_ms = kNotMeasured;  // upload + one filtering + download, host clock
  // Seed 000's reuse case: a second filter on an image already on the device (one more launch +
  // download, no upload), host clock.
  double reuse_ms = kNotMeasured;
};

// Ceilings measured once per device by the same two kernels in every API (a copy kernel and an
// FMA chain), for the report's device block and each run's "% of bound".
struct DevicePeaks {
  double copy_gb_per_s = kNotMeasured;   // bytes read + bytes written per second by a copy kernel
  double fma_gflop_per_s = kNotMeasured; // 2 x FMAs per second by independent FMA chains
};

// A device as discovered, for --list and the report's device block.
struct DeviceInfo {
  std::string backend;  // "cpu", "cuda", "opencl", "npp"
  std::string id;       // how to select it: "cpu", "cuda:0", "opencl:1:0"
  std::string name;
  // Ordered name/value pairs that matter for the variants: memory sizes, limits, versions.
  std::vector<std::pair<std::string, std::string>> properties;
  DevicePeaks peaks;  // measured when the device ran anything; kNotMeasured otherwise
};

// One row of the report: the JSON run object and the CSV line (DESIGN.md section 3).
struct RunRecord {
  std::string backend, device, variant, filter;
  int width = 0, height = 0, channels = 0, radius_x = 0, radius_y = 0;
  std::string border;
  bool flip = false;
  Status status = Status::Skipped;
  std::string reason;  // why skipped or failed; empty when ok
  double max_abs_error = kNotMeasured, rel_l2_error = kNotMeasured, tolerance = kNotMeasured;
  bool exact = false;  // tolerance 0: integer-exact problem
  PhaseTimes times;
  double mpix_per_s = kNotMeasured, gb_per_s = kNotMeasured, gflop_per_s = kNotMeasured;
  std::string memory;        // "pinned" or "pageable" host memory for the transfers
  std::string compile_time;  // what the kernel knew at compile time, e.g. "radius: run-time"
  std::string output;        // file written, if any
  // Peak device memory the variant held (buffers, arrays, library workspaces), JSON "device_mb".
  double device_mb = kNotMeasured;
  // The run's rate as a percentage of the device's measured ceiling for this radius: "dram" when
  // the bytes bound it (copy_gb_per_s), "fp32" when the FMAs do (fma_gflop_per_s). JSON "bound",
  // "bound_percent".
  std::string bound;
  double bound_percent = kNotMeasured;
};

// One --stream run: N frames pushed through upload, filter and download with the three overlapped.
// JSON: the "streams" array of the report, one object per record with these names.
struct StreamRecord {
  std::string backend, device, variant, filter;
  int width = 0, height = 0, channels = 0, frames = 0;
  std::string memory;  // "pinned" or "pageable"
  Status status = Status::Skipped;
  std::string reason;
  int queues = 0;                          // CUDA streams or OpenCL queues used
  double total_ms = kNotMeasured;          // all frames, first upload to last download, host clock
  double frames_per_s = kNotMeasured;
  double serial_ms_per_frame = kNotMeasured;  // the same frame without overlap: h2d + kernel + d2h
  double pcie_floor_ms_per_frame = kNotMeasured;  // max(h2d, d2h) per frame at the measured copy rates
  double floor_fraction = kNotMeasured;    // pcie_floor_ms_per_frame / (total_ms / frames), 1 = at floor
  double max_abs_error = kNotMeasured;     // of the last frame against the reference
};

// Fills mpix_per_s, gb_per_s (input read once + output written once) and gflop_per_s
// (2 x taps x pixels) from times.kernel_ms.median.
void derive_rates(RunRecord& record);

// Fills bound and bound_percent from the device's measured peaks: whichever of DRAM (bytes / copy
// rate) and FP32 (FMAs / FMA rate) takes longer for this radius bounds the run; separable variants
// count their two 1D passes' taps. No-op without peaks.
void derive_bound(RunRecord& record, const DevicePeaks& peaks);

}  // namespace cc
