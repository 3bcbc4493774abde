// stats.cpp: median, extremes, mean, sample standard deviation and robust noise of timing samples, and the stopping rule.
#include "common/domain/stats.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <numeric>

namespace cc {

namespace {

double sorted_median(const std::vector<double>& sorted) {
  const std::size_t n = sorted.size();
  return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

}  // namespace

Stats summarize(std::vector<double> samples) {
  Stats s;
  s.samples = static_cast<int>(samples.size());
  if (samples.empty()) return s;
  s.noise_percent = robust_noise_percent(samples);
  std::sort(samples.begin(), samples.end());
  const std::size_t n = samples.size();
  s.min = samples.front();
  s.max = samples.back();
  s.median = sorted_median(samples);
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(n);
  if (n > 1) {
    double squares = 0;
    for (double x : samples) squares += (x - s.mean) * (x - s.mean);
    s.stddev = std::sqrt(squares / static_cast<double>(n - 1));
  }
  return s;
}

double robust_noise_percent(std::vector<double> samples) {
  // 1 / Phi^-1(3/4): the MAD of normal samples times this estimates their standard deviation.
  constexpr double kNormalConsistency = 1.4826;
  if (samples.size() < 2) return std::numeric_limits<double>::quiet_NaN();
  std::sort(samples.begin(), samples.end());
  const double median = sorted_median(samples);
  if (!(median > 0)) return std::numeric_limits<double>::quiet_NaN();
  for (double& x : samples) x = std::fabs(x - median);
  std::sort(samples.begin(), samples.end());
  return 100 * kNormalConsistency * sorted_median(samples) / median;
}

namespace {

// The pooled samples' ranks, doubled so that the mean rank of a tie group stays an integer, with
// whether each came from the first set.
struct Ranked {
  std::vector<long> doubled_ranks;
  std::vector<bool> from_a;
  double tie_term = 0;  // sum of t^3 - t over groups of t equal values
};

Ranked rank(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<std::pair<double, bool>> pooled;  // value, from a
  for (const double x : a) pooled.emplace_back(x, true);
  for (const double x : b) pooled.emplace_back(x, false);
  std::sort(pooled.begin(), pooled.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  Ranked ranked;
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    for (std::size_t k = i; k < j; ++k) {
      ranked.doubled_ranks.push_back(static_cast<long>(i + 1 + j));  // 2 x the mean of ranks i+1..j
      ranked.from_a.push_back(pooled[k].second);
    }
    ranked.tie_term += t * t * t - t;
    i = j;
  }
  return ranked;
}

// The exact two-sided p of the permutation distribution of the first set's (doubled) rank sum: every
// way of choosing n1 of the pooled ranks, ties kept as they are, counted by dynamic programming over
// (how many chosen, their sum). Counts reach C(60, 20) ~ 4.2e15 at most (kExactUTestTotal), exact in a double.
double exact_p(const std::vector<long>& doubled_ranks, std::size_t n1, long observed_sum) {
  const std::size_t n = doubled_ranks.size();
  long total = 0;
  for (const long r : doubled_ranks) total += r;
  std::vector<std::vector<double>> ways(n1 + 1, std::vector<double>(static_cast<std::size_t>(total) + 1, 0.0));
  ways[0][0] = 1;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = std::min(n1, i + 1); k >= 1; --k)
      for (long sum = total; sum >= doubled_ranks[i]; --sum)
        ways[k][static_cast<std::size_t>(sum)] += ways[k - 1][static_cast<std::size_t>(sum - doubled_ranks[i])];
  // The mean of the doubled sum is n1 (n + 1), an integer; as far from it as observed, either way, is as extreme.
  const long mean = static_cast<long>(n1 * (n + 1));
  const long distance = std::labs(observed_sum - mean);
  double extreme = 0, all = 0;
  for (long sum = 0; sum <= total; ++sum) {
    const double count = ways[n1][static_cast<std::size_t>(sum)];
    all += count;
    if (std::labs(sum - mean) >= distance) extreme += count;
  }
  return all > 0 ? std::min(1.0, extreme / all) : 1.0;
}

}  // namespace

UTest mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b) {
  UTest result;
  if (a.empty() || b.empty()) return result;
  const Ranked ranked = rank(a, b);
  const double n1 = static_cast<double>(a.size()), n2 = static_cast<double>(b.size()), n = n1 + n2;
  long doubled_sum_a = 0;
  for (std::size_t i = 0; i < ranked.doubled_ranks.size(); ++i)
    if (ranked.from_a[i]) doubled_sum_a += ranked.doubled_ranks[i];
  result.u = static_cast<double>(doubled_sum_a) / 2 - n1 * (n1 + 1) / 2;
  const double variance = n1 * n2 / 12 * ((n + 1) - ranked.tie_term / (n * (n - 1)));
  if (!(variance > 0)) return result;  // every sample equal: nothing tells the sets apart
  if (std::min(a.size(), b.size()) <= kExactUTestLimit && a.size() + b.size() <= kExactUTestTotal) {
    // Counted over the smaller set's choices (the two-sided p is the same either way round).
    long total = 0;
    for (const long r : ranked.doubled_ranks) total += r;
    const bool a_smaller = a.size() <= b.size();
    result.exact = true;
    result.p_value = exact_p(ranked.doubled_ranks, a_smaller ? a.size() : b.size(),
                             a_smaller ? doubled_sum_a : total - doubled_sum_a);
    return result;
  }
  // Two-sided: the larger U's distance from the mean, less the continuity correction of 1/2.
  const double mean_u = n1 * n2 / 2;
  const double z = (std::max(result.u, n1 * n2 - result.u) - mean_u - 0.5) / std::sqrt(variance);
  result.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));  // 2 x the normal upper tail at z
  return result;
}

double smallest_u_test_p(std::size_t n1, std::size_t n2) {
  if (n1 == 0 || n2 == 0) return 1;
  // Two sets that do not overlap, either way round: 2 of the C(n1 + n2, n1) orders (1 when n1 + n2 is 2,
  // where both orders are one and the same distance).
  std::vector<double> a(n1), b(n2);
  for (std::size_t i = 0; i < n1; ++i) a[i] = static_cast<double>(i);
  for (std::size_t j = 0; j < n2; ++j) b[j] = static_cast<double>(n1 + j);
  return mann_whitney_u(a, b).p_value;
}

std::vector<double> without_outliers(const std::vector<double>& samples) {
  // Iglewicz and Hoaglin's modified z-score: 0.6745 (x - median) / MAD over 3.5 marks an outlier.
  constexpr double kModifiedZLimit = 3.5, kMadToZ = 0.6745;
  // Below 5 samples the median and MAD are too unsure to call any one an outlier (of 3, one at the
  // median leaves a MAD of whichever other is nearer it).
  if (samples.size() < 5) return samples;
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted_median(sorted);
  std::vector<double> deviations;
  for (const double x : sorted) deviations.push_back(std::fabs(x - median));
  std::sort(deviations.begin(), deviations.end());
  const double mad = sorted_median(deviations);
  if (!(mad > 0)) return samples;  // over half the samples equal: no spread to judge an outlier by
  // At most a quarter go, the farthest first: past that the "outliers" are a second mode of a
  // tight distribution (a 0.2%-noise CPU run lost 7 of 15 under ASan), and dropping them would take
  // the samples compare_sample_floor counted on (compare.cpp: it adds a quarter for outliers).
  std::vector<std::size_t> far;  // indices over the limit, farthest first
  for (std::size_t i = 0; i < samples.size(); ++i)
    if (kMadToZ * std::fabs(samples[i] - median) / mad > kModifiedZLimit) far.push_back(i);
  std::stable_sort(far.begin(), far.end(), [&](std::size_t a, std::size_t b) {
    return std::fabs(samples[a] - median) > std::fabs(samples[b] - median);
  });
  far.resize(std::min(far.size(), samples.size() / 4));
  std::vector<double> kept;
  for (std::size_t i = 0; i < samples.size(); ++i)
    if (std::ranges::find(far, i) == far.end()) kept.push_back(samples[i]);
  return kept;
}

std::string_view to_string(StopRule rule) {
  switch (rule) {
    case StopRule::Max: return "max";
    case StopRule::Noise: return "noise";
    case StopRule::Budget: return "budget";
  }
  return "unknown";
}

Sampling sample_until_stopped(const MeasurementSettings& rule, int first_round_limit,
                              const std::function<std::vector<double>(int)>& take) {
  const auto start = std::chrono::steady_clock::now();
  const int most = std::max(rule.repetitions, 1);
  const bool judge_noise = rule.max_noise_percent > 0;
  const std::size_t least_for_noise = static_cast<std::size_t>(std::max(rule.min_samples, 2));
  const std::size_t least_for_budget = static_cast<std::size_t>(std::clamp(rule.min_samples, 1, most));
  Sampling result;
  std::vector<double>& taken = result.samples_ms;
  double device_ms = 0;
  for (;;) {
    const double host_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double spent_s = std::max(host_s, device_ms / 1e3);
    if (taken.size() >= static_cast<std::size_t>(most)) {
      result.stopped_by = StopRule::Max;
      break;
    }
    if (judge_noise && taken.size() >= least_for_noise && robust_noise_percent(taken) <= rule.max_noise_percent) {
      result.stopped_by = StopRule::Noise;
      break;
    }
    // The budget stops a run only once it has the fewest samples a verdict can use (--min-samples).
    if (taken.size() >= least_for_budget && spent_s >= rule.time_budget_s) {
      result.stopped_by = StopRule::Budget;
      break;
    }
    const int left = most - static_cast<int>(taken.size());
    int round = left;
    if (judge_noise)
      round = taken.empty() ? static_cast<int>(least_for_noise) : std::max<int>(1, static_cast<int>(taken.size()) / 2);
    if (taken.empty()) {
      round = std::min(round, std::max(first_round_limit, 1));
    } else {
      // What fits the rest of the budget at the pace so far (infinite when the clock saw no time pass).
      const double fit = (rule.time_budget_s - spent_s) / (spent_s / static_cast<double>(taken.size()));
      if (fit < round) round = std::max(1, static_cast<int>(fit));
    }
    round = std::clamp(round, 1, left);
    for (const double ms : take(round)) {
      taken.push_back(ms);
      device_ms += ms;
    }
  }
  return result;
}

}  // namespace cc
