// hostile_support.h: what the hostile suite shares: the backend under test, running convcompare (directly or through sh), and the checks on how a run ended.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "tests/cli/run_command.h"
#include "tests/support/text.h"

namespace cc::hostile {

using test::CommandResult;

// "cpu" or "opencl", from CONVCOMPARE_HOSTILE_BACKEND.
inline std::string backend() {
  const char* name = std::getenv("CONVCOMPARE_HOSTILE_BACKEND");
  return name && *name ? name : "cpu";
}

// Single-quoted for sh.
inline std::string shell_quoted(const std::string& text) {
  std::string result = "'";
  for (const char c : text) result += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return result + "'";
}

// Every hostile case must end well within this; a hang is a failure, not a stuck CI.
inline constexpr std::chrono::seconds kTimeout{60};

// convcompare with `args`, no shell.
inline CommandResult convcompare(const std::vector<std::string>& args) {
  std::vector<std::string> command{CONVCOMPARE_EXE};
  command.insert(command.end(), args.begin(), args.end());
  return test::run_command(command, kTimeout);
}

// A small, quick run on the backend under test, plus `extra` (a `--variant` in it adds to these). Under
// OpenCL two variants, global (one work-item a pixel, straight from the buffer) and tiled (work-groups
// staging tiles on chip, their edges folded by the border): a hostile input reaches every buffer variant
// through the same host code, and these two are its two ways of reading the frame. fast, a program per
// filter radius, was a third: each radius of the suite's filters one more PoCL build of ~4.5 CPU-s for
// no input path of its own; the cases about a kernel family name theirs.
inline std::vector<std::string> run_args(std::vector<std::string> extra) {
  std::vector<std::string> args{"--backend", backend(), "--repetitions", "1", "--warmup", "1", "--time-budget", "0.1",
                                "--no-peaks"};
  if (backend() == "opencl") args.insert(args.end(), {"--variant", "global,tiled"});
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// `script` run by /bin/sh with $CONVCOMPARE set to the binary and $RUN to run_args({}) (pipes, redirections,
// environment, closed descriptors).
inline CommandResult shell(const std::string& script) {
  std::string run;  // the arguments are plain words: $RUN splits back into them
  for (const std::string& arg : run_args({})) run += arg + " ";
  return test::run_command({"/bin/sh", "-c", "CONVCOMPARE=" + shell_quoted(CONVCOMPARE_EXE) + "; RUN=" + shell_quoted(run) + "; " + script},
                           kTimeout);
}

using test::lowercase;

// Refused as bad input: exit 2, exactly one line on stderr starting "convcompare: error: " and naming
// each of `words` (case-insensitive), no control character in it, quick, and no crash or hang.
inline void check_refused(const CommandResult& result, const std::vector<std::string>& words, double seconds = 15) {
  INFO("stderr: " << result.err);
  REQUIRE_FALSE(result.timed_out);
  CHECK(result.status == 2);
  CHECK(std::ranges::count(result.err, '\n') == 1);
  CHECK(result.err.starts_with("convcompare: error: "));
  CHECK(std::ranges::none_of(result.err.substr(0, result.err.size() - 1),
                             [](unsigned char c) { return c < 0x20 || c == 0x7f; }));
  for (const std::string& word : words)
    CHECK_MESSAGE(lowercase(result.err).find(lowercase(word)) != std::string::npos, word);
  CHECK(result.seconds < seconds);
}

// Ran and every result validated: exit 0, nothing on stderr beyond `allowed_stderr` lines besides the
// progress lines ("[3/10] ...") a long run prints.
inline void check_validated(const CommandResult& result, std::size_t allowed_stderr = 0) {
  INFO("stdout: " << result.out << "\nstderr: " << result.err);
  REQUIRE_FALSE(result.timed_out);
  CHECK(result.status == 0);
  std::size_t lines = 0;
  for (std::size_t start = 0; start < result.err.size();) {
    const std::size_t end = std::min(result.err.find('\n', start), result.err.size());
    lines += result.err[start] != '[';
    start = end + 1;
  }
  CHECK(lines <= allowed_stderr);
}

// A file's bytes, "" when it cannot be read.
inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// PoCL's device id ("opencl:P:D") from --list, for the cases that set POCL_MEMORY_LIMIT; "" with a message
// where there is none.
inline std::string pocl_device_id() {
  const CommandResult list = convcompare({"--list", "--backend", "opencl"});
  std::smatch found;
  if (std::regex_search(list.out, found, std::regex(R"(\s(opencl:\d+:\d+)\s.*Portable Computing Language)")))
    return found[1].str();
  MESSAGE("no PoCL device here: the case needs POCL_MEMORY_LIMIT");
  return "";
}

// Why the backend under test cannot run here ("" when it can): opencl needs a build with it and a device.
std::string backend_unavailable();

// True, with a "skipped: ..." message, when a case that only OpenCL can exercise (`why`: what it needs
// OpenCL for) cannot run here: another backend under test, or no OpenCL device.
inline bool skipped_unless_opencl(const std::string& why) {
  const std::string reason = backend() != "opencl" ? why + " (CONVCOMPARE_HOSTILE_BACKEND=opencl)" : backend_unavailable();
  if (reason.empty()) return false;
  MESSAGE("skipped: " << reason);
  return true;
}

// True, with a "covered by the cpu run" message, where the backend under test is not the CPU: for a case
// whose subject is the driver's own code, the same whatever backend measures (the tuning cache's file, its
// lock and its concurrent stores), so test_hostile (cpu) checks it once, without OpenCL's `--variant auto`
// tuning every candidate variant per process (70 of test_hostile_opencl's 225 s).
inline bool driver_case_skipped(const std::string& what) {
  if (backend() == "cpu") return false;
  MESSAGE(what << ": the driver's code whatever the backend, checked by the cpu run (test_hostile)");
  return true;
}

// False, with a message, where a `ulimit -v` case cannot run: under AddressSanitizer, whose shadow memory
// needs terabytes of address space.
inline bool address_space_limit_testable() {
#if defined(__SANITIZE_ADDRESS__)
  MESSAGE("not under AddressSanitizer: its shadow memory needs terabytes of address space, so ulimit -v stops it");
  return false;
#else
  return true;
#endif
}

}  // namespace cc::hostile
