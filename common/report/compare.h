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
  Slower,             // both ok, slower beyond the noise (CompareRule)
  StoppedValidating,  // fails now; passed (or did not run) in the baseline
  NewlySkipped,       // skipped now; ran in the baseline
  Missing,            // in the baseline only
  Faster,             // both ok, faster beyond the noise (CompareRule)
  NowValidating,      // passes now; failed (or did not run) in the baseline
  New,                // in the current report only
  Unchanged,          // both ok within the noise, or the same status without a time to compare
  Untested,           // both ok, but one has no raw samples to test (a report of schema 1)
};
std::string_view to_string(Verdict verdict);  // "slower", "stopped validating", "newly skipped"...

// "Beyond the noise" (docs/performance.md, "Comparing with a baseline"): the two runs' raw samples
// differ by the Mann-Whitney U test (mann_whitney_u, common/domain/stats.h) with p under
// `significance`, AND the medians differ by more than `min_change`: slower when
// current median > baseline median x (1 + min_change), faster when the reverse. Both, never one: a
// tiny but consistent change is real and not worth failing a CI job, a large one in noisy samples may
// be chance. At p < 0.01 the test needs 5 samples a side that do not overlap.
struct CompareRule {
  double min_change = 0.05;    // --min-change 5 (percent)
  double significance = 0.01;  // --significance 0.01
};

struct Comparison {
  std::optional<RunRecord> baseline;  // empty when the verdict is New
  std::optional<RunRecord> current;   // empty when the verdict is Missing
  Verdict verdict = Verdict::Unchanged;
  double ratio = kNotMeasured;    // current median / baseline median, when both ran ok
  double p_value = kNotMeasured;  // the U test's, when both ran ok with raw samples
};

// One Comparison per run of either report, in the current report's order, then the missing ones.
// Runs with the same identity twice in one report pair up in order (first with first).
std::vector<Comparison> compare_reports(const Report& baseline, const Report& current, const CompareRule& rule = {});

// A verdict worth a non-zero exit: slower or stopped validating.
bool is_regression(Verdict verdict);

// Every comparison as one table row (problem, backend, device, variant, baseline ms, current ms,
// ratio, p-value, verdict), regressions marked with "!" in front, then one summary line:
// "2 slower, 1 stopped validating, 40 unchanged".
void print_comparison(const std::vector<Comparison>& comparisons, const CompareRule& rule, std::ostream& out);

// Whether any comparison is Slower: with nothing failing validation, `--compare` exits 3 (README, "Exit status").
bool any_slower(const std::vector<Comparison>& comparisons);

// Reports from different machines side by side. First each report's devices (label, host, device
// names); then one table per problem (filter, width x height, channels, border, flip): a row per
// variant, a column per (report, backend, device, memory) with runs of that problem, each cell the
// kernel median in ms, "skipped" or "FAILED"; below it a line per variant with each column's time
// over the first column's. labels[i] names reports[i] (the lead passes unique file stems).
void print_merged(const std::vector<Report>& reports, const std::vector<std::string>& labels, std::ostream& out);

}  // namespace cc
