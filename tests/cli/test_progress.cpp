// test_progress.cpp: the progress line's estimate, weighed by the work of the steps left (tools/convcompare/progress.h).
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "tools/convcompare/progress.h"

namespace {

constexpr double kNoBudget = std::numeric_limits<double>::infinity();

// A job as the review's: a radius-8 problem (289 taps), then radius 3 (49) and radius 1 (9), each over
// two borders, each problem run by two variants. A run takes a fixed 0.6 s (setup, transfers, warm-up)
// and 2 ms per tap (fast: half that), and its variant's first run 1 s more for the kernel's build.
struct Job {
  std::vector<cc::ProgressStep> plan;
  std::vector<double> seconds;
  double left_after(std::size_t done) const {  // the truth
    double left = 0;
    for (std::size_t i = done; i < seconds.size(); ++i) left += seconds[i];
    return left;
  }
};

Job review_job() {
  Job job;
  bool built[2] = {false, false};
  for (const double taps : {289.0, 49.0, 9.0})
    for (int border = 0; border < 2; ++border)
      for (int variant = 0; variant < 2; ++variant) {
        job.plan.push_back({variant == 0 ? "naive" : "fast", taps + 1, true});
        job.seconds.push_back(0.6 + (variant == 0 ? 0.002 : 0.001) * taps + (built[variant] ? 0 : 1.0));
        built[variant] = true;
      }
  return job;
}

}  // namespace

TEST_CASE("progress estimate: nothing before a step is done") {
  CHECK(std::isnan(cc::seconds_left(review_job().plan, {}, 0, kNoBudget)));
}

TEST_CASE("progress estimate: weighed by work, a heavy first problem is not extrapolated over the light ones") {
  const Job job = review_job();
  const std::size_t steps = job.plan.size();
  // Once each variant ran two works after its build (radius 8 and radius 3): a fixed part and one per
  // tap, exact.
  CHECK(cc::seconds_left(job.plan, job.seconds, 6, kNoBudget) == doctest::Approx(job.left_after(6)));
  CHECK(cc::seconds_left(job.plan, job.seconds, 10, kNoBudget) == doctest::Approx(job.left_after(10)));
  CHECK(cc::seconds_left(job.plan, job.seconds, steps, kNoBudget) == 0);
  // Before that, within a third of the truth from the second problem on; a count of steps at the mean
  // step's seconds (the estimate before) said 1.6 times the truth there.
  for (std::size_t done = 4; done < steps; ++done) {
    CAPTURE(done);
    const double estimate = cc::seconds_left(job.plan, job.seconds, done, kNoBudget);
    CHECK(estimate == doctest::Approx(job.left_after(done)).epsilon(0.34));
  }
  double mean = 0;
  for (std::size_t i = 0; i < 4; ++i) mean += job.seconds[i] / 4;
  CHECK(mean * (steps - 4) > 1.5 * job.left_after(4));
}

TEST_CASE("progress estimate: each key at its own rate; budgeted runs capped; streams not") {
  // naive is 10 times slower than fast; each key seen at one work, so half fixed, half in proportion.
  std::vector<cc::ProgressStep> plan = {{"naive", 10, true}, {"fast", 10, true}, {"naive", 30, true}, {"fast", 30, true}};
  const std::vector<double> seconds = {1.0, 0.1};
  CHECK(cc::seconds_left(plan, seconds, 2, kNoBudget) == doctest::Approx(2.0 + 0.2));
  // A --time-budget of 1.5 s cuts the naive run (its predicted 2 s) to 1.5.
  CHECK(cc::seconds_left(plan, seconds, 2, 1.5) == doctest::Approx(1.5 + 0.2));
  // A stream's frames are not cut by the budget.
  plan[2].budgeted = false;
  CHECK(cc::seconds_left(plan, seconds, 2, 1.5) == doctest::Approx(2.0 + 0.2));
}

TEST_CASE("progress line: the count of steps, elapsed and the estimate") {
  CHECK(cc::Progress::line(3, 9, 41, 287, "cuda fast box:r=7") == "[4/9] 0:41 elapsed, about 4:47 left: cuda fast box:r=7");
  CHECK(cc::Progress::line(0, 9, 4, std::numeric_limits<double>::quiet_NaN(), "cpu naive") == "[1/9] 0:04 elapsed: cpu naive");
}
