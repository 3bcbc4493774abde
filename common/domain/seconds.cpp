// seconds.cpp: the one parser and check of a span of seconds given by a person.
#include "common/domain/seconds.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "common/domain/error.h"

namespace cc {

Seconds Seconds::parse(std::string_view text, std::string_view name) {
  const std::string copy(text);  // strtod needs the NUL
  char* end = nullptr;
  errno = 0;
  const double seconds = std::strtod(copy.c_str(), &end);
  // errno is ERANGE for an overflow (inf) and for an underflow (1e-400, read as 0 or a denormal).
  const bool whole = !copy.empty() && end == copy.c_str() + copy.size();
  if (!whole || errno != 0 || !std::isfinite(seconds) || !(seconds > 0) || seconds > kMaxSeconds)
    throw InputError(fmt::format("{}{}'{}' is not a number of seconds greater than 0 and at most {:.0f}", name,
                                 name.empty() ? "" : " ", printable(text), kMaxSeconds));
  return Seconds(seconds);
}

std::chrono::steady_clock::duration Seconds::span() const { return clock_span(seconds_); }

std::chrono::steady_clock::duration clock_span(double seconds) {
  const double clamped = seconds > kMaxSeconds ? kMaxSeconds : seconds > 0 ? seconds : 0;
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(clamped));
}

}  // namespace cc
