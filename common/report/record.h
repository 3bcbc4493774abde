// record.h: one row of the report (a run, a --stream run) and the rates derived from its times.
#pragma once

#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/domain/measurement.h"

namespace cc {

// One row of the report: the JSON run object and the CSV line (common/report/report.h writes them).
struct RunRecord {
  std::string backend, device, variant, filter;
  int width = 0, height = 0, channels = 0, radius_x = 0, radius_y = 0;
  std::string border;
  bool flip = false;
  std::string pixel = "f32";  // storage on the device: "f32", "u8" (common/domain/problem.h)
  Status status = Status::Skipped;
  std::string reason;  // why skipped or failed; empty when ok
  double max_abs_error = kNotMeasured, rel_l2_error = kNotMeasured, tolerance = kNotMeasured;
  bool exact = false;  // tolerance 0: integer-exact problem
  PhaseTimes times;
  double mpix_per_s = kNotMeasured, gb_per_s = kNotMeasured, gflop_per_s = kNotMeasured;
  std::string memory;        // where the frames lived: "pinned", "pageable", "mapped", "managed", "managed-faults" (--memory)
  // Why this run's transfer and kernel figures are not alike with a copy's (a mapped run has no upload
  // and its kernel time holds the host-link traffic), JSON "memory_note"; "" for copies.
  std::string memory_note;
  std::string compile_time;  // what the kernel knew at compile time, e.g. "radius: run-time"
  std::string output;        // file written, if any
  // Peak device memory the variant held (buffers, arrays, library workspaces), JSON "device_mb".
  double device_mb = kNotMeasured;
  // The run's rate as a percentage of the device's measured ceiling for this radius: "dram" when
  // the bytes bound it (copy_gb_per_s), "fp32" when the FMAs do (fma_gflop_per_s); none for fft. JSON "bound",
  // "bound_percent".
  std::string bound;
  double bound_percent = kNotMeasured;
  // The same against the problem's work, alike for every variant of a problem so that it ranks them:
  // the direct 2D sum's (2rx+1)(2ry+1) taps of the problem's filter (and its bytes), whichever bounds.
  // A variant that does less work (separable, lowrank, fft) can read above 100 %. JSON "direct_bound_percent".
  double direct_bound_percent = kNotMeasured;
  // The separable terms a low-rank run computed (lowrank, or auto's pick of it: the filter's numerical
  // rank), which bound_percent counts; 0 for every other run. JSON "terms".
  int terms = 0;
  // --compare's verdict for this run against the baseline (compare.h, attach_verdicts), JSON "compare":
  // empty and not measured without --compare.
  std::string compare_verdict;
  double compare_ratio = kNotMeasured, compare_p_value = kNotMeasured, compare_threshold = kNotMeasured;
  std::string compare_reason;  // why the verdict is inconclusive (Comparison::reason); empty otherwise
};

// One --stream run: N frames pushed through upload, filter and download with the three overlapped.
// JSON: the "streams" array of the report, one object per record with these names.
struct StreamRecord {
  std::string backend, device, variant, filter;
  int width = 0, height = 0, channels = 0, frames = 0;
  std::string pixel = "f32";
  std::string memory;  // "pinned", "pageable", "mapped", "managed", "managed-faults"
  std::string memory_note;  // as RunRecord's
  Status status = Status::Skipped;
  std::string reason;
  int queues = 0;                          // CUDA streams or OpenCL queues used
  double total_ms = kNotMeasured;          // all frames, first upload to last download, host clock
  double frames_per_s = kNotMeasured;
  double serial_ms_per_frame = kNotMeasured;  // the same frame without overlap: h2d + kernel + d2h
  double pcie_floor_ms_per_frame = kNotMeasured;  // max(h2d, d2h) per frame at the measured copy rates
  double floor_fraction = kNotMeasured;    // pcie_floor_ms_per_frame / (total_ms / frames), 1 = at floor
  double max_abs_error = kNotMeasured;     // of the last frame against the reference
  std::string untimed;  // why the per-frame device figures are not given (PhaseTimes::untimed), or empty
  // Frames dealt over several devices (device "opencl:0:0+0:1"): what each took, "opencl:0:0=50 opencl:0:1=50".
  std::string frames_per_device;
};

// The spec without its radius: what a radius sweep holds fixed ("gaussian:sigma=2,r=5" -> "gaussian:sigma=2").
std::string filter_family(const std::string& spec);

// The variant an `auto` run ran ("fast"), read from the compile_time note tools/convcompare/execute.cpp writes
// ("auto: fast (measured; ...)"); "" for any other run or when auto found no candidate.
std::string auto_pick(const RunRecord& record);

// Fills mpix_per_s (pixels, whatever their channels), gb_per_s (input read once + output written once,
// in the bytes the pixel type takes on the device) and gflop_per_s (2 x the 2D filter's taps x pixels x
// channels computed: a direct 2D sum's work, not what a separable or fft variant executes) from
// times.kernel_ms.median.
void derive_rates(RunRecord& record);

// Fills bound and bound_percent from the device's measured peaks: whichever of DRAM (bytes / copy
// rate) and FP32 (FMAs / FMA rate) takes longer for this radius bounds the run; separable variants
// count their two 1D passes' taps, low-rank ones those of their `terms` (variants.h's taps_per_pixel),
// an auto run those of the variant it ran. No-op without peaks, and for fft. Also direct_bound_percent,
// by the same rule with the problem's direct 2D taps, for every variant fft included.
void derive_bound(RunRecord& record, const DevicePeaks& peaks);

}  // namespace cc
