// progress.h: done/total, elapsed and an estimate on stderr, for jobs long enough to need one.
#pragma once

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace cc {

// The width of the terminal on `fd` (TIOCGWINSZ, else $COLUMNS, else 80).
int terminal_columns(int fd);

// The columns the console report fits: the terminal's on stdout, at most `widest`; off a
// terminal (a log, a pipe) `widest`.
std::size_t report_columns(std::size_t widest);

// One step of a job as the progress line weighs it: steps of one `key` (a device, variant and kind of
// run) cost in proportion to their `work` (pixels x channels x taps computed: a radius-8 problem's run
// costs many radius-1 ones); a `budgeted` step (a run, which --time-budget cuts) costs no more than the
// budget or the longest one of its key seen so far.
struct ProgressStep {
  std::string key;
  double work = 1;
  bool budgeted = false;
};

// The seconds the steps from `next` on will take, from those done (`seconds[i]`: step i's, i < next).
// Each step as the done steps of its key say (those after the key's first, which also built the
// kernel): a straight line through the two of most different work, a fixed part and one growing with
// the work; with one work seen, half fixed, half in proportion. A key not seen yet: the same from every
// step done. A budgeted step is capped at max(budget_s, the longest done step of its key, or of any).
// NaN before any step is done.
double seconds_left(const std::vector<ProgressStep>& plan, const std::vector<double>& seconds, std::size_t next,
                    double budget_s);

// Silent for the first few seconds, so short jobs print nothing. At a terminal (`columns` > 0) one line
// is rewritten in place after every step, cut to columns - 1 so that it never wraps (a wrapped line is
// not rewritten: each update would leave a line behind); into a log a line is written at most every
// ten seconds.
class Progress {
 public:
  Progress(std::vector<ProgressStep> plan, double budget_s, std::ostream& out, int columns);
  Progress(std::size_t total, std::ostream& out, int columns);  // `total` steps of equal work
  ~Progress();  // finish()
  // Clears the rewritten line, if one was started, so what follows starts at the left margin of an
  // empty line; later steps print nothing.
  void finish();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void step(const std::string& what);  // one unit of work is about to start

  // "[12/96] 0:41 elapsed, about 4:47 left: cuda fast box:r=7" (no estimate when `left_s` is NaN)
  static std::string line(std::size_t done, std::size_t total, double elapsed_s, double left_s, const std::string& what);

 private:
  using Clock = std::chrono::steady_clock;
  std::vector<ProgressStep> plan_;
  double budget_s_;
  std::vector<double> seconds_;  // of each step done
  Clock::time_point step_start_{};
  std::size_t total_, done_ = 0;
  std::ostream& out_;
  int columns_;  // 0: not a terminal
  bool line_open_ = false, finished_ = false;
  Clock::time_point start_ = Clock::now(), last_print_{};
};

}  // namespace cc
