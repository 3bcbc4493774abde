// compare_cells.h: what --compare's verdicts (compare.cpp) and its tables (compare_print.cpp) both say about a run: timed or not, a ratio, a percent.
#pragma once

#include <cmath>
#include <string>

#include <fmt/format.h>

#include "common/report/report.h"

namespace cc::compare_cells {

// A kernel median worth comparing: the run passed and was timed.
inline bool has_time(const RunRecord& run) {
  return run.status == Status::Ok && run.times.kernel_ms.samples > 0 && run.times.kernel_ms.median > 0;
}

// Ratios to two decimals; past 100 (a CPU against a GPU) the decimals say nothing.
inline std::string ratio_cell(double ratio) {
  return std::isfinite(ratio) ? fmt::format("{:.{}f}", ratio, ratio < 100 ? 2 : 0) : "-";
}

// A fraction as a whole percent for people: 0.37 -> "37%", 0.054 -> "5.4%".
inline std::string percent_text(double fraction) {
  const double percent = 100 * fraction;
  return fmt::format("{:.{}f}%", percent, percent < 10 ? 1 : 0);
}

}  // namespace cc::compare_cells
