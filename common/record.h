// record.h: what one backend/variant run produced: status, timings by phase, errors, derived rates.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/stats.h"

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
};

// A device as discovered, for --list and the report's device block.
struct DeviceInfo {
  std::string backend;  // "cpu", "cuda", "opencl", "npp"
  std::string id;       // how to select it: "cpu", "cuda:0", "opencl:1:0"
  std::string name;
  // Ordered name/value pairs that matter for the variants: memory sizes, limits, versions.
  std::vector<std::pair<std::string, std::string>> properties;
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
};

// Fills mpix_per_s, gb_per_s (input read once + output written once) and gflop_per_s
// (2 x taps x pixels) from times.kernel_ms.median.
void derive_rates(RunRecord& record);

}  // namespace cc
