// progress.h: done/total, elapsed and an estimate on stderr, for jobs long enough to need one.
#pragma once

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>

namespace cc {

// The width of the terminal on `fd` (TIOCGWINSZ, else $COLUMNS, else 80).
int terminal_columns(int fd);

// The columns the console report fits (issue #28): the terminal's on stdout, at most `widest`; off a
// terminal (a log, a pipe) `widest`.
std::size_t report_columns(std::size_t widest);

// Silent for the first few seconds, so short jobs print nothing. At a terminal (`columns` > 0) one line
// is rewritten in place after every step, cut to columns - 1 so that it never wraps (a wrapped line is
// not rewritten: each update would leave a line behind); into a log a line is written at most every
// ten seconds.
class Progress {
 public:
  Progress(std::size_t total, std::ostream& out, int columns);
  ~Progress();  // finish()
  // Clears the rewritten line, if one was started, so what follows starts at the left margin of an
  // empty line; later steps print nothing.
  void finish();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void step(const std::string& what);  // one unit of work is about to start

  // "[12/96] 0:41 elapsed, about 4:47 left: cuda fast box:r=7"
  static std::string line(std::size_t done, std::size_t total, double elapsed_s, const std::string& what);

 private:
  using Clock = std::chrono::steady_clock;
  std::size_t total_, done_ = 0;
  std::ostream& out_;
  int columns_;  // 0: not a terminal
  bool line_open_ = false, finished_ = false;
  Clock::time_point start_ = Clock::now(), last_print_{};
};

}  // namespace cc
