// test_stats.cpp: summary statistics of timing samples.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "common/domain/stats.h"

TEST_CASE("stats: odd count, the middle sample is the median") {
  const cc::Stats s = cc::summarize({3.0, 1.0, 2.0});
  CHECK(s.samples == 3);
  CHECK(s.median == 2.0);
  CHECK(s.min == 1.0);
  CHECK(s.max == 3.0);
  CHECK(s.mean == 2.0);
  CHECK(s.stddev == doctest::Approx(1.0));  // squares 1 + 0 + 1 over n - 1 = 2
}

TEST_CASE("stats: even count, the median is the mean of the two middle samples") {
  const cc::Stats s = cc::summarize({4.0, 1.0, 10.0, 2.0});
  CHECK(s.samples == 4);
  CHECK(s.median == 3.0);
  CHECK(s.min == 1.0);
  CHECK(s.max == 10.0);
  CHECK(s.mean == 4.25);
}

TEST_CASE("stats: sample standard deviation of a known set") {
  // Mean 5; squared deviations 9 1 1 1 0 0 4 16 = 32; sample form divides by n - 1 = 7.
  const cc::Stats s = cc::summarize({2, 4, 4, 4, 5, 5, 7, 9});
  CHECK(s.mean == 5.0);
  CHECK(s.median == 4.5);
  CHECK(s.stddev == doctest::Approx(std::sqrt(32.0 / 7.0)));
}

TEST_CASE("stats: one sample has no spread, none has nothing") {
  const cc::Stats one = cc::summarize({0.25});
  CHECK(one.samples == 1);
  CHECK(one.median == 0.25);
  CHECK(one.min == 0.25);
  CHECK(one.max == 0.25);
  CHECK(one.stddev == 0.0);
  const cc::Stats none = cc::summarize({});
  CHECK(none.samples == 0);
  CHECK(none.median == 0.0);
  CHECK(none.mean == 0.0);
}

TEST_CASE("stats: robust noise is 1.4826 x MAD / median, in percent, and one outlier barely moves it") {
  // median 3, absolute deviations 2 1 0 1 2: MAD 1.
  CHECK(cc::robust_noise_percent({1, 2, 3, 4, 5}) == doctest::Approx(100 * 1.4826 / 3));
  // Four quiet samples and one three times as long: the stddev over the median is about 88%.
  const std::vector<double> outlier = {1.00, 1.01, 0.99, 1.02, 3.0};
  CHECK(cc::robust_noise_percent(outlier) == doctest::Approx(100 * 1.4826 * 0.01 / 1.01));
  const cc::Stats s = cc::summarize(outlier);
  CHECK(s.noise_percent == doctest::Approx(100 * 1.4826 * 0.01 / 1.01));
  CHECK(s.stddev / s.median > 0.85);
  CHECK(cc::robust_noise_percent({2, 2, 2}) == 0);
  CHECK(std::isnan(cc::robust_noise_percent({2})));  // one sample says nothing of its spread
  CHECK(std::isnan(cc::summarize({2}).noise_percent));
  CHECK(std::isnan(cc::robust_noise_percent({})));
}

namespace {

// A `take` for sample_until_stopped that hands out `planted` in order, recording each round's size.
struct Planted {
  explicit Planted(std::vector<double> values) : planted(std::move(values)) {}
  std::vector<double> planted;
  std::vector<int> rounds;
  std::size_t next = 0;
  std::vector<double> operator()(int count) {
    rounds.push_back(count);
    std::vector<double> out;
    for (int i = 0; i < count; ++i) out.push_back(planted[std::min(next++, planted.size() - 1)]);
    return out;
  }
};

cc::Sampling sample(const cc::MeasurementSettings& rule, int first_round_limit, Planted& planted) {
  return cc::sample_until_stopped(rule, first_round_limit, std::ref(planted));
}

}  // namespace

// The planted samples are milliseconds the rule counts against the budget (the larger of the host
// clock and the samples' sum), so the budget cases do not depend on how fast this machine is.
TEST_CASE("stopping rule: --repetitions is the most, in one round when no noise rule is asked for") {
  Planted planted{{1.0}};
  const cc::Sampling s = sample({.repetitions = 10, .min_samples = 5, .max_noise_percent = 0, .time_budget_s = 1e6}, 10, planted);
  CHECK(s.samples_ms.size() == 10);
  CHECK(s.stopped_by == cc::StopRule::Max);
  CHECK(planted.rounds == std::vector<int>{10});
  CHECK(cc::to_string(s.stopped_by) == "max");
}

TEST_CASE("stopping rule: the budget caps a run once it has --min-samples, and says so") {
  Planted slow{{1000.0}};  // 1 s a launch against a 2.5 s budget
  const cc::Sampling s = sample({.repetitions = 50, .min_samples = 3, .max_noise_percent = 0, .time_budget_s = 2.5}, 2, slow);
  CHECK(s.samples_ms.size() == 3);  // 2 (the warm-up's estimate), then 1 more fits, then the cap
  CHECK(s.stopped_by == cc::StopRule::Budget);
  CHECK(cc::to_string(s.stopped_by) == "budget");
  // Past the budget at 3, but a verdict needs --min-samples 5: the budget waits for them, a round of one each.
  Planted floor{{1000.0}};
  const cc::Sampling floored = sample({.repetitions = 50, .min_samples = 5, .max_noise_percent = 0, .time_budget_s = 2.5}, 2, floor);
  CHECK(floored.samples_ms.size() == 5);
  CHECK(floor.rounds == std::vector<int>{2, 1, 1, 1});
  CHECK(floored.stopped_by == cc::StopRule::Budget);
  Planted slower{{1000.0, 1100.0, 900.0, 1200.0, 800.0}};  // noisy: the noise rule never stops it
  const cc::Sampling capped = sample({.repetitions = 50, .min_samples = 5, .max_noise_percent = 1, .time_budget_s = 1.5}, 1, slower);
  CHECK(capped.samples_ms.size() == 5);  // the budget spent after 2, the minimum still taken
  CHECK(capped.stopped_by == cc::StopRule::Budget);
  Planted once{{1000.0}};  // a budget shorter than one launch still times one, and --min-samples 1 no more
  CHECK(sample({.repetitions = 50, .min_samples = 1, .max_noise_percent = 0, .time_budget_s = 1e-9}, 0, once).samples_ms.size() == 1);
  // --repetitions under --min-samples: the most is the most.
  Planted few{{1000.0}};
  CHECK(sample({.repetitions = 2, .min_samples = 5, .max_noise_percent = 0, .time_budget_s = 1e-9}, 0, few).samples_ms.size() == 2);
}

TEST_CASE("stopping rule: --max-noise stops once --min-samples or more are quiet enough") {
  Planted quiet{{1.0}};
  const cc::Sampling s = sample({.repetitions = 100, .min_samples = 5, .max_noise_percent = 1, .time_budget_s = 1e6}, 100, quiet);
  CHECK(s.samples_ms.size() == 5);  // quiet from the start: the minimum
  CHECK(s.stopped_by == cc::StopRule::Noise);
  CHECK(cc::to_string(s.stopped_by) == "noise");
  // Noisy at first (MAD 1 of median 3: 49%), quiet later: rounds of half as many again as taken.
  Planted settling{{1, 2, 3, 4, 5, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3}};
  const cc::Sampling settled = sample({.repetitions = 100, .min_samples = 5, .max_noise_percent = 1, .time_budget_s = 1e6}, 100, settling);
  CHECK(settling.rounds == std::vector<int>{5, 2, 3});
  CHECK(settled.samples_ms.size() == 10);  // 6 of 10 equal the median: MAD 0
  CHECK(settled.stopped_by == cc::StopRule::Noise);
  // Never quiet: --repetitions stops it.
  Planted noisy{{1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5, 1, 2, 3, 4, 5}};
  const cc::Sampling unsettled = sample({.repetitions = 20, .min_samples = 5, .max_noise_percent = 1, .time_budget_s = 1e6}, 100, noisy);
  CHECK(unsettled.samples_ms.size() == 20);
  CHECK(unsettled.stopped_by == cc::StopRule::Max);
}
