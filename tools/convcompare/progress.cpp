// progress.cpp: the progress line of long jobs.
#include "tools/convcompare/progress.h"

#include <fmt/format.h>

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "common/domain/error.h"

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

int terminal_columns(int fd) {
  winsize size{};
  if (::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  if (const char* columns = std::getenv("COLUMNS"); columns && std::atoi(columns) > 0) return std::atoi(columns);
  return 80;
}

std::size_t report_columns(std::size_t widest) {
  winsize size{};
  if (::isatty(STDOUT_FILENO) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0)
    return std::min<std::size_t>(size.ws_col, widest);
  return widest;
}

Progress::Progress(std::size_t total, std::ostream& out, int columns)
    : total_(total), out_(out), columns_(std::max(columns, 0)) {}

Progress::~Progress() { finish(); }

void Progress::finish() {
  if (line_open_) out_ << "\r\033[K" << std::flush;
  line_open_ = false;
  finished_ = true;
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
  const bool terminal = columns_ > 0;
  if (!finished_ && elapsed >= kQuietSeconds && (terminal || since_print >= kLogIntervalSeconds)) {
    // The names in `what` (a filter file's, a device's) escaped as error lines are: no terminal control.
    std::string text = printable(line(done_, total_, elapsed, what), std::numeric_limits<std::size_t>::max());
    if (terminal) {
      // Bytes, not columns, but the line is ASCII but for what an argument carries (a filter file's name);
      // a cut \xNN escape is harmless.
      const std::size_t room = static_cast<std::size_t>(std::max(columns_ - 1, 10));
      if (text.size() > room) text = text.substr(0, room - 2) + "..";
      out_ << "\r\033[K" << text << std::flush;  // rewrite the line in place
    } else
      out_ << text << '\n' << std::flush;
    line_open_ = terminal;
    last_print_ = now;
  }
  ++done_;
}

}  // namespace cc
