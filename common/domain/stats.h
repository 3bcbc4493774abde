// stats.h: summary statistics of timing samples, their robust noise, and the rule that stops taking them.
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <string_view>
#include <vector>

namespace cc {

struct Stats {
  double median = 0, min = 0, max = 0, mean = 0, stddev = 0;  // stddev: sample (n-1) form; 0 for n < 2
  int samples = 0;
  // robust_noise_percent() of the samples; NaN for fewer than 2 (one sample says nothing of its spread).
  double noise_percent = std::numeric_limits<double>::quiet_NaN();
};

Stats summarize(std::vector<double> samples);  // empty input -> all zero, samples = 0

// The noise of timing samples, robust to outliers (docs/performance.md, "Noise"): the median absolute
// deviation from the median, scaled by 1.4826 so that it estimates the standard deviation of normally
// distributed samples, over the median, in percent. One slow sample among five moves it little (a
// standard deviation over the mean would read it as noise of hundreds of percent). NaN for fewer
// than 2 samples or a median of 0.
double robust_noise_percent(std::vector<double> samples);
// The standard error of a median of n samples over their spread, times sqrt(n): sqrt(pi / 2) for
// normally distributed samples (Kendall and Stuart), so a median of n has spread x this / sqrt(n).
inline constexpr double kMedianStandardError = 1.2533141373155003;

// Why a run stopped taking samples (docs/performance.md, "How a figure is measured"; nvbench's rule), as the report writes it.
enum class StopRule {
  Max,     // --repetitions samples taken
  Noise,   // at least --min-samples taken and the noise under --max-noise
  Budget,  // the time budget spent, and at least --min-samples taken
};
std::string_view to_string(StopRule rule);  // "max", "noise", "budget"

// How every run is measured, the stopping rule and what surrounds it: the one settings type, from the
// command line (tools/convcompare/cli.cpp binds its fields and shows these defaults in --help) through
// the job and the measurement loop (backends/backend.h's RunOptions is one) to the report's
// "measurement" object (docs/json-schema.md). The defaults are written here only.
struct MeasurementSettings {
  int repetitions = 10;           // --repetitions: the most samples a run takes (GPUs: plus one bracket around that many)
  int warmup = 2;                 // --warmup: untimed launches first: module load, JIT and first touch stay out (0 acts as 1)
  int min_samples = 5;            // --min-samples: the fewest samples before the noise rule or the time budget may stop a run
  double max_noise_percent = 0;   // --max-noise: stop once the noise is at or under this; 0: never (take repetitions)
  double time_budget_s = 2.0;     // --time-budget: stop once the samples have spent about this long, after --min-samples
  bool cold = false;              // --cold: the device's L2 (the CPU's caches) flushed before every sample, outside the timing
};

struct Sampling {
  std::vector<double> samples_ms;
  StopRule stopped_by = StopRule::Max;
};

// Takes samples in rounds until a rule stops it: `rule`'s repetitions, min_samples, max_noise_percent and
// time_budget_s (warmup and cold are the caller's, around each launch). `take(n)` makes n timed launches (queued back to
// back on a device) and returns their n times in ms; `first_round_limit` caps the first round (the
// launches the warm-up's estimate fits in the budget, RunOptions::warm_up). Time spent is the larger
// of the host clock since the start and the samples' sum, so that a fake or coarse device clock
// cannot stretch the budget, and the rule can be tested with planted samples. Rounds: with no noise
// rule, as many as fit the rest of the budget; with one, the minimum first and then half as many
// again as taken so far, so that the noise is judged about log(n) times.
Sampling sample_until_stopped(const MeasurementSettings& rule, int first_round_limit,
                              const std::function<std::vector<double>(int)>& take);

// The Mann-Whitney U test of two sets of samples, two-sided. Up to kExactUTestLimit samples in the
// smaller set and kExactUTestTotal in both, exactly: the permutation distribution of the rank sum, ties given their mean rank (with no ties,
// scipy.stats.mannwhitneyu(a, b, method="exact")); beyond, by the normal approximation with the tie
// correction and the continuity correction (method="asymptotic", the test Google Benchmark's
// tools/gbench/report.py applies to repetitions), which at a few samples a side is too conservative
// to reach p < 0.01 at all. It asks whether one set tends to be larger than the other
// without assuming either is normal, so one slow sample moves it by one rank, not by its size.
inline constexpr std::size_t kExactUTestLimit = 20;
// Counts of up to C(60, 20) ~ 4e15 ways stay exact in a double (under 2^53), and the count takes
// 20 x 60 x 3660 steps at most.
inline constexpr std::size_t kExactUTestTotal = 60;
struct UTest {
  double u = 0;        // U of the first set: the pairs (a_i, b_j) with a_i > b_j, ties counting 1/2
  double p_value = 1;  // two-sided; 1 when either set is empty or every sample ties
  bool exact = false;  // p from the exact distribution, not the normal approximation
};
UTest mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);

// The smallest p the test can give for sets of these sizes (two sets that do not overlap): at 3 a
// side 0.1, so no p under 0.01 is possible; 5 a side first reach it (2 / C(10, 5) = 0.0079).
double smallest_u_test_p(std::size_t n1, std::size_t n2);

// The samples less those Iglewicz and Hoaglin's modified z-score (0.6745 |x - median| / MAD) puts
// over 3.5: a slow sample or two from a busy host, which would otherwise hide a real shift from the
// rank test (two slow baseline samples of 10 are enough to read a 36% slowdown as "unchanged" at
// p 0.026). At most a quarter of the samples go, the farthest first (more is a second mode, not
// outliers). Unchanged when fewer than 5 or when over half are equal (MAD 0).
std::vector<double> without_outliers(const std::vector<double>& samples);

}  // namespace cc
