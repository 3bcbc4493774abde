// seconds.h: every span of seconds a person gives (an option, an environment variable), parsed and checked once into one type.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

namespace cc {

// The longest span convcompare takes: 1,000,000 s (11.6 days), far past any run or build, and far inside
// what a deadline on the steady clock can hold (its nanoseconds overflow at about 9.2e9 s, so
// CONVCOMPARE_BUILD_TIMEOUT=1e10 once made a deadline in the past and timed out at once).
inline constexpr double kMaxSeconds = 1e6;

// A span of seconds, greater than 0 and at most kMaxSeconds: --time-budget, --kernel-timeout,
// CONVCOMPARE_BUILD_TIMEOUT. Only parse() makes one, so a value held is always safe to add to a clock.
class Seconds {
 public:
  // `text` as a decimal number of seconds (strtod's syntax, the whole text); anything else (empty,
  // trailing text, negative, 0, a value that underflows to 0, NaN, infinity, over kMaxSeconds) throws
  // InputError with one line: "NAME 'TEXT' is not a number of seconds greater than 0 and at most
  // 1000000" (`name` empty: the line starts with the quoted text).
  static Seconds parse(std::string_view text, std::string_view name);

  double count() const { return seconds_; }
  // As a steady-clock duration, for a deadline: cannot overflow.
  std::chrono::steady_clock::duration span() const;

 private:
  explicit Seconds(double seconds) : seconds_(seconds) {}
  double seconds_;
};

// `seconds` as a steady-clock duration, clamped to [0, kMaxSeconds] (NaN as 0): for a limit held as a
// double that a Seconds checked, so that a deadline computed from it never overflows.
std::chrono::steady_clock::duration clock_span(double seconds);

}  // namespace cc
