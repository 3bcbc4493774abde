// progress.cpp: the progress line of long jobs.
#include "tools/progress.h"

#include <fmt/format.h>

#include <cmath>

namespace cc {

namespace {

constexpr double kQuietSeconds = 3;      // jobs shorter than this print nothing
constexpr double kLogIntervalSeconds = 10;

std::string clock_text(double seconds) {
  const long long whole = std::llround(seconds);
  if (whole >= 3600) return fmt::format("{}:{:02}:{:02}", whole / 3600, whole / 60 % 60, whole % 60);
  return fmt::format("{}:{:02}", whole / 60, whole % 60);
}

}  // namespace

Progress::Progress(std::size_t total, std::ostream& out, bool terminal)
    : total_(total), out_(out), terminal_(terminal) {}

Progress::~Progress() {
  if (line_open_) out_ << '\n' << std::flush;
}

std::string Progress::line(std::size_t done, std::size_t total, double elapsed_s, const std::string& what) {
  // The estimate assumes the steps left cost what the steps done did on average.
  const std::string left =
      done == 0 ? "" : fmt::format(", about {} left", clock_text(elapsed_s / done * (total - done)));
  return fmt::format("[{}/{}] {} elapsed{}: {}", done + 1, total, clock_text(elapsed_s), left, what);
}

void Progress::step(const std::string& what) {
  const Clock::time_point now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double since_print = std::chrono::duration<double>(now - last_print_).count();
  if (elapsed >= kQuietSeconds && (terminal_ || since_print >= kLogIntervalSeconds)) {
    const std::string text = line(done_, total_, elapsed, what);
    if (terminal_)
      out_ << "\r\033[K" << text << std::flush;  // rewrite the line in place
    else
      out_ << text << '\n' << std::flush;
    line_open_ = terminal_;
    last_print_ = now;
  }
  ++done_;
}

}  // namespace cc
