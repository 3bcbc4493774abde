// run_command.h: runs a program as a subprocess for the CLI tests, capturing stdout and stderr apart.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace cc::test {

struct CommandResult {
  int status = -1;         // exit status; 128 + signal when killed
  std::string out, err;    // everything written to stdout and stderr
  double seconds = 0;      // wall time from spawn to exit
  bool timed_out = false;  // killed after the timeout
  long max_rss_kb = 0;     // the child's peak resident memory (getrusage's ru_maxrss)
};

// Runs args[0] with args (no shell), stdin from /dev/null; kills it after `timeout`.
CommandResult run_command(const std::vector<std::string>& args,
                          std::chrono::seconds timeout = std::chrono::seconds(60));

// The convcompare under test (CONVCOMPARE_EXE) with `args`; not finishing within `timeout` fails the test case.
CommandResult convcompare(std::vector<std::string> args, std::chrono::seconds timeout = std::chrono::seconds(300));

}  // namespace cc::test
