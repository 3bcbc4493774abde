// progress.cpp: the progress line of long jobs.
#include "tools/convcompare/progress.h"

#include <fmt/format.h>

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <utility>

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

namespace {

// Seconds a step of `work` takes, from steps of known seconds and work: a straight line through the two of
// most different work where they differ (a fixed part, the run's setup, transfers and build, and a part
// that grows with the work); else half of it fixed, half in proportion to the work.
double predicted_seconds(double work, const std::vector<std::pair<double, double>>& seen) {  // (work, seconds)
  const auto [least, most] = std::ranges::minmax(seen, {}, &std::pair<double, double>::first);
  if (most.first > least.first) {
    const double slope = std::max(0.0, (most.second - least.second) / (most.first - least.first));
    const double fixed = std::max(0.0, least.second - slope * least.first);
    return fixed + slope * work;
  }
  return most.first > 0 ? most.second * (0.5 + 0.5 * work / most.first) : most.second;
}

}  // namespace

double seconds_left(const std::vector<ProgressStep>& plan, const std::vector<double>& seconds, std::size_t next,
                    double budget_s) {
  const std::size_t done = std::min({next, seconds.size(), plan.size()});
  if (done == 0) return std::numeric_limits<double>::quiet_NaN();
  // Each key's steps done after its first (which also paid for building the kernel); its first only
  // while it is the one. All the steps done, the same way, for a key not seen yet.
  struct Seen {
    std::vector<std::pair<double, double>> first, later;  // (work, seconds)
    const std::vector<std::pair<double, double>>& used() const { return later.empty() ? first : later; }
  };
  std::map<std::string, Seen> by_key;
  Seen all;
  for (std::size_t i = 0; i < done; ++i) {
    Seen& own = by_key[plan[i].key];
    const bool again = !own.first.empty();
    (again ? own.later : own.first).emplace_back(plan[i].work, seconds[i]);
    (again ? all.later : all.first).emplace_back(plan[i].work, seconds[i]);
  }
  double longest = 0;
  for (std::size_t i = 0; i < done; ++i) longest = std::max(longest, seconds[i]);
  double left = 0;
  for (std::size_t i = next; i < plan.size(); ++i) {
    const ProgressStep& step = plan[i];
    const auto found = by_key.find(step.key);
    const bool seen = found != by_key.end();
    double predicted = predicted_seconds(step.work, seen ? found->second.used() : all.used());
    if (step.budgeted) {
      double longest_of_key = 0;
      if (seen)
        for (const auto& [work, taken] : found->second.used()) longest_of_key = std::max(longest_of_key, taken);
      predicted = std::min(predicted, std::max(budget_s, seen ? longest_of_key : longest));
    }
    left += predicted;
  }
  return left;
}

Progress::Progress(std::vector<ProgressStep> plan, double budget_s, std::ostream& out, int columns)
    : plan_(std::move(plan)), budget_s_(budget_s), total_(plan_.size()), out_(out), columns_(std::max(columns, 0)) {}

Progress::Progress(std::size_t total, std::ostream& out, int columns)
    : Progress(std::vector<ProgressStep>(total), std::numeric_limits<double>::infinity(), out, columns) {}

Progress::~Progress() { finish(); }

void Progress::finish() {
  if (line_open_) out_ << "\r\033[K" << std::flush;
  line_open_ = false;
  finished_ = true;
}

std::string Progress::line(std::size_t done, std::size_t total, double elapsed_s, double left_s, const std::string& what) {
  const std::string left = std::isfinite(left_s) ? fmt::format(", about {} left", clock_text(left_s)) : "";
  return fmt::format("[{}/{}] {} elapsed{}: {}", done + 1, total, clock_text(elapsed_s), left, what);
}

void Progress::step(const std::string& what) {
  const Clock::time_point now = Clock::now();
  if (done_ > 0) seconds_.push_back(std::chrono::duration<double>(now - step_start_).count());
  step_start_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double since_print = std::chrono::duration<double>(now - last_print_).count();
  const bool terminal = columns_ > 0;
  if (!finished_ && elapsed >= kQuietSeconds && (terminal || since_print >= kLogIntervalSeconds)) {
    // The names in `what` (a filter file's, a device's) escaped as error lines are: no terminal control.
    std::string text = printable(line(done_, total_, elapsed, seconds_left(plan_, seconds_, done_, budget_s_), what),
                                 std::numeric_limits<std::size_t>::max());
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
