// test_stats.cpp: summary statistics of timing samples.
#include <doctest/doctest.h>

#include <cmath>

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
