// compare.h: a report against a saved baseline (--compare), and several reports side by side (merge).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/report/report.h"

namespace cc {

// What makes two runs "the same run" in two reports: the same code (backend, variant) on the same
// device, the same problem (filter, image shape, border rule, flip) and the same host memory for the
// transfers. Radii follow from the filter; everything else (times, errors, output path) is a result.
struct RunIdentity {
  std::string backend, device, variant, filter;
  int width = 0, height = 0, channels = 0;
  std::string border;
  bool flip = false;
  std::string pixel;
  std::string memory;
  auto operator<=>(const RunIdentity&) const = default;
};
RunIdentity identity_of(const RunRecord& run);

// The verdicts, in the order the summary line lists them: regressions first.
enum class Verdict {
  Slower,             // both ok, current median beyond the noise above the baseline's
  StoppedValidating,  // fails now; passed (or did not run) in the baseline
  NewlySkipped,       // skipped now; ran in the baseline
  Missing,            // in the baseline only
  Faster,             // both ok, current median beyond the noise below the baseline's
  NowValidating,      // passes now; failed (or did not run) in the baseline
  New,                // in the current report only
  Unchanged,          // both ok within the noise, or the same status without a time to compare
};
std::string_view to_string(Verdict verdict);  // "slower", "stopped validating", "newly skipped"...

// "Beyond its noise", with relative spread s = kernel_ms stddev / median of one run (0.10 assumed
// when it has fewer than 2 samples, since one sample says nothing about its spread):
//   threshold = max(0.05, 2 * (s_baseline + s_current))
//   slower when current median > baseline median * (1 + threshold),
//   faster when baseline median > current median * (1 + threshold) (the same rule, roles swapped).
// Two quiet runs (1% spread each) flag a 5% change; two 5%-noisy runs need 20%.
double relative_spread(const Stats& kernel_ms);
double noise_threshold(const Stats& baseline, const Stats& current);

struct Comparison {
  std::optional<RunRecord> baseline;  // empty when the verdict is New
  std::optional<RunRecord> current;   // empty when the verdict is Missing
  Verdict verdict = Verdict::Unchanged;
  double ratio = kNotMeasured;      // current median / baseline median, when both ran ok
  double threshold = kNotMeasured;  // noise_threshold() of the two, when both ran ok
};

// One Comparison per run of either report, in the current report's order, then the missing ones.
// Runs with the same identity twice in one report pair up in order (first with first).
std::vector<Comparison> compare_reports(const Report& baseline, const Report& current);

// A verdict worth a non-zero exit: slower or stopped validating.
bool is_regression(Verdict verdict);

// Every comparison as one table row (problem, backend, device, variant, baseline ms, current ms,
// ratio, noise threshold, verdict), regressions marked with "!" in front, then one summary line:
// "2 slower, 1 stopped validating, 40 unchanged".
void print_comparison(const std::vector<Comparison>& comparisons, std::ostream& out);

// Reports from different machines side by side. First each report's devices (label, host, device
// names); then one table per problem (filter, width x height, channels, border, flip): a row per
// variant, a column per (report, backend, device, memory) with runs of that problem, each cell the
// kernel median in ms, "skipped" or "FAILED"; below it a line per variant with each column's time
// over the first column's. labels[i] names reports[i] (the lead passes unique file stems).
void print_merged(const std::vector<Report>& reports, const std::vector<std::string>& labels, std::ostream& out);

}  // namespace cc
