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

// The verdicts, in the order the summary line lists them: regressions first, then what a gate must
// not read as a pass (missing, inconclusive).
enum class Verdict {
  Slower,             // both ok, slower beyond the noise (CompareRule)
  StoppedValidating,  // fails now; passed (or did not run) in the baseline
  NewlySkipped,       // skipped now; ran in the baseline
  Missing,            // in the baseline only
  Inconclusive,       // both ok, but the gate cannot tell (Comparison::reason): too noisy, too few samples, or the machine changed
  Faster,             // both ok, faster beyond the noise (CompareRule)
  NowValidating,      // passes now; failed (or did not run) in the baseline
  New,                // in the current report only
  Unchanged,          // both ok within the noise, or the same status without a time to compare
  Untested,           // both ok, but one has no raw samples to test (a report of schema 1)
};
inline constexpr std::size_t kVerdictCount = 10;
std::string_view to_string(Verdict verdict);  // "slower", "stopped validating", "newly skipped"...

// "Beyond the noise" (docs/performance.md, "Comparing with a baseline"): the two runs' raw samples,
// each without its outliers (without_outliers, common/domain/stats.h), differ by the Mann-Whitney U
// test (mann_whitney_u: exact up to 20 samples in the smaller run) with p under `significance`, AND the medians
// differ by more than the run's threshold: slower when current median > baseline median x (1 +
// threshold), faster when the reverse. Both, never one: a tiny but consistent change is real and not
// worth failing a CI job, a large one in noisy samples may be chance. The threshold is `min_change`,
// or `noise_factor` times the two runs' combined noise (sqrt(noise_b^2 + noise_c^2), each
// robust_noise_percent) where that is larger: samples within one run do not see the drift between
// runs that a device with noisy samples (a CPU shared with other work) also shows, so a change on a
// device that runs on the host's CPUs must clear that device's own noise. A GPU's sample noise is its
// timer's and launch's jitter, and its drift shows in the clocks and peaks machine_changes compares:
// there each run's noise is that of its median (kMedianStandardError x noise / sqrt(samples)).
// What the gate cannot see is Inconclusive, never Unchanged: a threshold over `min_change` (the noise
// hides changes the user asked to see), sample counts that cannot give any p under `significance`
// (3 a side: 0.1 at best), medians beyond the threshold that the test does not confirm, and a slower
// or faster run on a device whose machine changed beyond `machine_tolerance` (machine_changes).
// Unchanged is only: within a threshold of `min_change`, with samples enough to have seen more.
struct CompareRule {
  double min_change = 0.05;    // --min-change 5 (percent)
  double significance = 0.01;  // --significance 0.01
  double noise_factor = 3;     // the threshold is at least this many times the combined noise
  // The machine's drift a verdict survives: a measured peak (copy, FMA) or a clock that moved by more
  // than this fraction; a load average that moved by more than `load_tolerance` per CPU.
  double machine_tolerance = 0.2;
  double load_tolerance = 0.5;
};

// The --max-noise a run against a baseline aims at when the user gives none: the noise at which the
// threshold of two runs that noisy is `min_change` (min_change / (noise_factor x sqrt 2)), in percent:
// 1.18 at the defaults. The run adds samples, up to its time budget, until its noise is there.
double compare_noise_target_percent(const CompareRule& rule);
// The --repetitions a run against a baseline may take, so that the noise rule has room to work.
inline constexpr int kCompareRepetitions = 50;

// What changed on the machine between a baseline and this run, beyond the rule's tolerance: a
// device's measured peaks, its name, driver, runtime or clocks; the host's load average, CPU clock or
// CPU count. `device` is the device id whose rows it touches, or "" for the host (every row whose
// device runs on the host's CPUs: the cpu backend and OpenCL CPU devices; a GPU's kernels do not).
struct MachineChange {
  std::string device;
  std::string what;  // "opencl:0:0 FMA peak 28.4 -> 13.8 GFLOP/s (-51%)"
};
std::vector<MachineChange> machine_changes(const Report& baseline, const Report& current, const CompareRule& rule = {});

struct Comparison {
  std::optional<RunRecord> baseline;  // empty when the verdict is New
  std::optional<RunRecord> current;   // empty when the verdict is Missing
  Verdict verdict = Verdict::Unchanged;
  double ratio = kNotMeasured;       // current median / baseline median, when both ran ok
  double p_value = kNotMeasured;     // the U test's, when both ran ok with raw samples
  double threshold = kNotMeasured;   // the change the medians had to exceed (a fraction), when tested
  std::string reason{};  // why Inconclusive: "noise 37%: can only see changes over 110%"; empty otherwise
};

// The samples --compare asks of the current run so that the U test can decide against this
// baseline: the fewest n for which the baseline's smallest sample count against n, with one sample
// out of order, still gives p under the rule's significance, and a quarter more for outliers dropped
// (at 0.01: 5 against a baseline of 10, 15 against 3), at most 100. 0 when the baseline has no timed run.
int compare_sample_floor(const Report& baseline, const CompareRule& rule);

// One Comparison per run of either report, in the current report's order, then the missing ones.
// Runs with the same identity twice in one report pair up in order (first with first). The rows a
// machine change touches (machine_changes) are Inconclusive where they would be slower or faster.
std::vector<Comparison> compare_reports(const Report& baseline, const Report& current, const CompareRule& rule = {});

// A verdict worth a non-zero exit: slower or stopped validating.
bool is_regression(Verdict verdict);

// Every comparison as one table row (problem, backend, device, variant, baseline ms, current ms,
// ratio, p-value, threshold, verdict), regressions marked with "!" in front, each table's inconclusive
// rows' reasons below it, then the verdict line: "2 slower, 1 stopped validating, 40 unchanged", and
// each machine change (`machine`) after it.
void print_comparison(const std::vector<Comparison>& comparisons, const CompareRule& rule, std::ostream& out,
                      const std::vector<MachineChange>& machine = {});

// Whether any comparison is Slower: with nothing failing validation, `--compare` exits 3 (README, "Exit status").
bool any_slower(const std::vector<Comparison>& comparisons);
// Whether any is Inconclusive: with nothing slower or failing, `--compare` exits 4.
bool any_inconclusive(const std::vector<Comparison>& comparisons);

// Throws InputError, one line, when no run of the current report has a twin in the baseline (another
// --size, filter or device: every row would be "new" or "missing", and a gate would pass on nothing):
// the line names the fields whose values the two reports share none of, and how many runs each holds.
void check_any_matched(const std::vector<Comparison>& comparisons);

// Each current run's verdict into its record (RunRecord::compare_*), for the JSON and CSV reports:
// compare_reports gives one Comparison per current run first, in the current report's order.
void attach_verdicts(Report& current, const std::vector<Comparison>& comparisons);

// Reports from different machines side by side. First each report's devices (label, host, device
// names) and its backends with no device, once; then, with `per_problem_tables`, one table per problem
// (filter, width x height, channels, border, flip): a row per variant, a column per (report, backend,
// device, memory) that ran that problem on a device, each cell the kernel median in ms with its noise,
// "skipped" or "FAILED"; below it a line per variant with each later report's time over the first
// report's on the same backend and device (or the same backend, where the first has one such device).
// labels[i] names reports[i] (the lead passes unique file stems).
void print_merged(const std::vector<Report>& reports, const std::vector<std::string>& labels, std::ostream& out,
                  bool per_problem_tables = true);

}  // namespace cc
