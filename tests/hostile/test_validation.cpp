// test_validation.cpp: hostile values of options and the environment: spans of seconds, report streams, report sizes, messages.
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/domain/seconds.h"
#include "tests/hostile/hostile_support.h"
#include "tests/support/temp_dir.h"

using namespace cc::hostile;
using cc::test::TempDir;

TEST_CASE("durations: every span of seconds, option or environment, is checked by one parser: range, sign, NaN, overflow") {
  const std::vector<std::string> bad = {"1e10", "9.3e9", "1000001", "-1", "0", "-0", "nan", "inf", "1e-400", "soon", "5s", ""};
  for (const char* option : {"--time-budget", "--kernel-timeout"})
    for (const std::string& value : bad) {
      CAPTURE(option);
      CAPTURE(value);
      check_refused(convcompare(run_args({"--size", "8x8", "--filter", "identity", option, value})),
                    {option, "'" + value + "'", "not a number of seconds greater than 0 and at most 1000000"});
    }
  check_validated(convcompare(run_args({"--size", "8x8", "--filter", "identity", "--quiet", "--kernel-timeout", "1e6"})));
  // The conversion to the clock: 1e10 s once overflowed the nanoseconds to a deadline in the past.
  CHECK(cc::clock_span(1e10) == std::chrono::seconds(1'000'000));
  CHECK(cc::clock_span(std::numeric_limits<double>::quiet_NaN()) == std::chrono::steady_clock::duration::zero());
  CHECK(cc::Seconds::parse("1e6", "x").span() == std::chrono::seconds(1'000'000));
  CHECK(cc::Seconds::parse("0.25", "x").count() == 0.25);
}

TEST_CASE("durations: CONVCOMPARE_BUILD_TIMEOUT past the limit is refused, not a build timed out at once") {
  if (skipped_unless_opencl("an OpenCL build")) return;
  for (const char* value : {"1e10", "9.3e9", "-5", "inf"}) {
    CAPTURE(value);
    check_refused(shell(std::string("CONVCOMPARE_BUILD_TIMEOUT=") + value +
                        " exec $CONVCOMPARE $RUN --variant global --size 16x16 --quiet"),
                  {"CONVCOMPARE_BUILD_TIMEOUT", value, "at most 1000000"});
  }
  check_validated(shell("CONVCOMPARE_BUILD_TIMEOUT=1e6 exec $CONVCOMPARE $RUN --variant global --size 16x16 --quiet"));
}
