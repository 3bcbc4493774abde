// test_device_faults.cpp: a --kernel-dir kernel that never returns or that faults: one line and exit 2, never a hang or a bare crash.
#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>

#include "tests/hostile/hostile_support.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using namespace cc::hostile;
using cc::test::TempDir;

namespace {

// A user's kernel runs only on OpenCL (--kernel-dir); PoCL runs it on the host's own threads and memory.
bool skipped_without_kernel_dir() { return skipped_unless_opencl("--kernel-dir kernels run on OpenCL only"); }

// A --kernel-dir holding global.cl with `body` as convolve_global's body.
void write_global_kernel(const fs::path& dir, const std::string& body) {
  fs::create_directory(dir);
  std::ofstream(dir / "global.cl") << "__kernel void convolve_global(__global const cc_pixel* restrict input,\n"
                                      "    __global cc_pixel* restrict output, __global const float* restrict filter,\n"
                                      "    const ConvArgs args) {\n"
                                   << body << "\n}\n";
}

}  // namespace

TEST_CASE("device faults: a kernel that never returns ends at --kernel-timeout, naming the variant, exit 2") {
  if (skipped_without_kernel_dir()) return;
  TempDir dir("hostile");
  // volatile: the compiler may not drop the loop, which has no other effect.
  write_global_kernel(dir / "kernels", "  volatile int spin = 1;\n  while (spin) {}");
  const CommandResult result = convcompare(run_args(
      {"--size", "32x16", "--variant", "global", "--kernel-dir", dir / "kernels", "--kernel-timeout", "1"}));
  check_refused(result, {"the kernel 'global' did not finish within 1 s", "--kernel-timeout"}, 10);
}

TEST_CASE("device faults: a kernel that writes far past its buffer crashes the process: one line naming it, exit 2") {
  if (skipped_without_kernel_dir()) return;
  TempDir dir("hostile");
  // 1<<30 pixels past the start: gigabytes beyond a 32x16 frame, on memory PoCL never mapped.
  write_global_kernel(dir / "kernels", "  output[1 << 30] = input[0];");
  const CommandResult result = convcompare(run_args({"--size", "32x16", "--variant", "global", "--kernel-dir", dir / "kernels"}));
  check_refused(result, {"crashed the process (SIGSEGV) while running 'global'", "outside its buffers"});
}

TEST_CASE("device faults: --kernel-timeout must be a number of seconds greater than 0") {
  for (const char* value : {"0", "-1", "nan", "inf", "soon"}) {
    CAPTURE(value);
    const CommandResult result = convcompare(run_args({"--size", "32x16", "--kernel-timeout", value}));
    check_refused(result, {"--kernel-timeout"});
  }
}

TEST_CASE("device faults: a second SIGTERM or SIGINT ends the process at once, whatever the first waits for") {
  if (skipped_without_kernel_dir()) return;
  TempDir dir("hostile");
  write_global_kernel(dir / "kernels", "  volatile int spin = 1;\n  while (spin) {}");
  // The first signal waits for the run in progress, a kernel that never returns before a 50 s
  // --kernel-timeout (for kStopGraceS); the second must end it now: one line, and the status of that signal (README,
  // "Exit status"). env --default-signal: sh starts a background job with SIGINT ignored. The 4 s before
  // the first let the run reach the kernel on a loaded machine. The second comes 1.5 s after: past the
  // second within which a repeat is the same request, before the first's grace gives the wait up
  // (backends/stop_request.h).
  for (const auto& [first, second, status] : {std::tuple{"TERM", "INT", 130}, std::tuple{"INT", "TERM", 143}}) {
    CAPTURE(first);
    const CommandResult result = shell(
        "env --default-signal=INT $CONVCOMPARE $RUN --size 32x16 --variant global --kernel-dir " + shell_quoted(dir / "kernels") +
        " --kernel-timeout 50 --quiet & child=$!; sleep 4; kill -" + first + " $child; sleep 1.5; kill -" + second +
        " $child; wait $child; echo \"status $?\"");
    INFO("stderr: " << result.err);
    REQUIRE_FALSE(result.timed_out);
    CHECK(result.out.find("status " + std::to_string(status)) != std::string::npos);
    // One line of ours; sh may add its own word for a job a signal ended ("Terminated").
    CHECK(result.err.starts_with("convcompare: error: interrupted again: stopping at once; no report is written\n"));
    CHECK(result.err.find("convcompare:", 1) == std::string::npos);
    CHECK(result.seconds < 20);
  }
}

TEST_CASE("device faults: one SIGTERM while a kernel never returns: the wait gives up after the stop's grace, the report is written, 143") {
  if (skipped_without_kernel_dir()) return;
  TempDir dir("hostile");
  write_global_kernel(dir / "kernels", "  volatile int spin = 1;\n  while (spin) {}");
  // One signal only (a CI job's timeout): the run in progress may take kStopGraceS (backends/stop_request.h)
  // to finish, not the 50 s --kernel-timeout; then its wait gives up, the run is dropped, and the report
  // of what finished is written, marked.
  const CommandResult result = shell(
      "$CONVCOMPARE $RUN --size 32x16 --variant global --kernel-dir " + shell_quoted(dir / "kernels") +
      " --kernel-timeout 50 --quiet --json " + shell_quoted(dir / "r.json") +
      " & child=$!; sleep 4; kill -TERM $child; wait $child; echo \"status $?\"");
  INFO("stderr: " << result.err);
  REQUIRE_FALSE(result.timed_out);
  CHECK(result.out.find("status 143") != std::string::npos);
  CHECK(result.err.starts_with("convcompare: interrupted by SIGTERM after "));
  CHECK(std::ranges::count(result.err, '\n') == 1);
  CHECK(read_text(dir / "r.json").find("\"incomplete\": \"interrupted by SIGTERM after ") != std::string::npos);
  CHECK(result.seconds < 15);
}
