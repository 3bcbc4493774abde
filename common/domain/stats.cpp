// stats.cpp: median, extremes, mean, sample standard deviation and robust noise of timing samples, and the stopping rule.
#include "common/domain/stats.h"

#include <algorithm>
#include <chrono>
#include <cmath>
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

UTest mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b) {
  UTest result;
  if (a.empty() || b.empty()) return result;
  // Ranks of the pooled samples, ties given their mean rank.
  std::vector<std::pair<double, bool>> pooled;  // value, from a
  for (const double x : a) pooled.emplace_back(x, true);
  for (const double x : b) pooled.emplace_back(x, false);
  std::sort(pooled.begin(), pooled.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
  const double n1 = static_cast<double>(a.size()), n2 = static_cast<double>(b.size()), n = n1 + n2;
  double rank_sum_a = 0, tie_term = 0;  // tie_term: sum of t^3 - t over groups of t equal values
  for (std::size_t i = 0; i < pooled.size();) {
    std::size_t j = i;
    while (j < pooled.size() && pooled[j].first == pooled[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double mean_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (std::size_t k = i; k < j; ++k)
      if (pooled[k].second) rank_sum_a += mean_rank;
    tie_term += t * t * t - t;
    i = j;
  }
  result.u = rank_sum_a - n1 * (n1 + 1) / 2;
  const double mean_u = n1 * n2 / 2;
  const double variance = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (!(variance > 0)) return result;  // every sample equal: nothing tells the sets apart
  // Two-sided: the larger U's distance from the mean, less the continuity correction of 1/2.
  const double z = (std::max(result.u, n1 * n2 - result.u) - mean_u - 0.5) / std::sqrt(variance);
  result.p_value = std::min(1.0, std::erfc(z / std::sqrt(2.0)));  // 2 x the normal upper tail at z
  return result;
}

std::string_view to_string(StopRule rule) {
  switch (rule) {
    case StopRule::Max: return "max";
    case StopRule::Noise: return "noise";
    case StopRule::Budget: return "budget";
  }
  return "unknown";
}

Sampling sample_until_stopped(const SamplingRule& rule, int first_round_limit,
                              const std::function<std::vector<double>(int)>& take) {
  const auto start = std::chrono::steady_clock::now();
  const int most = std::max(rule.max_samples, 1);
  const bool judge_noise = rule.max_noise_percent > 0;
  const std::size_t least_for_noise = static_cast<std::size_t>(std::max(rule.min_samples, 2));
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
    if (!taken.empty() && spent_s >= rule.budget_s) {
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
      const double fit = (rule.budget_s - spent_s) / (spent_s / static_cast<double>(taken.size()));
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
