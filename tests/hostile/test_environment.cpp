// test_environment.cpp: a broken environment and a user's broken kernel told apart from our broken kernels: OpenCL builds that fail with no diagnostic, a --kernel-dir syntax error.
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/hostile/hostile_support.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using namespace cc::hostile;
using cc::test::TempDir;

namespace {

// These cases concern OpenCL's program builds; on the cpu backend there is nothing to build.
bool skipped_without_builds() { return skipped_unless_opencl("OpenCL builds only"); }

}  // namespace

TEST_CASE("environment: an OpenCL build that fails with no compiler diagnostic is the environment, one line, exit 2") {
  if (skipped_without_builds()) return;
  TempDir dir("hostile");
  std::ofstream(dir / "not-a-directory") << "x";
  fs::create_directory(dir / "cold");
  const std::string run = "exec $CONVCOMPARE $RUN --size 32x16 --filter box:r=1 --quiet --output-dir " +
                          shell_quoted(dir / "out");
  // PoCL cannot write its kernel cache: a regular file named as the cache directory, and a cold cache
  // under a 512-byte file size limit. Every build fails; no kernel is to blame.
  for (const std::string& script : {"POCL_CACHE_DIR=" + shell_quoted(dir / "not-a-directory") + " " + run,
                                    "ulimit -f 1; POCL_CACHE_DIR=" + shell_quoted(dir / "cold") + " " + run}) {
    CAPTURE(script);
    check_refused(shell(script), {"environment", "POCL_CACHE_DIR", "CL_BUILD_PROGRAM_FAILURE"}, 30);
  }
}

TEST_CASE("environment: a syntax error in a --kernel-dir source is the user's input: file:line and the first error") {
  if (skipped_without_builds()) return;
  TempDir dir("hostile");
  fs::create_directory(dir / "kernels");
  {
    std::ofstream kernel(dir / "kernels/global.cl");
    kernel << "// line 1\n// line 2\nthis is not OpenCL C;\n";
  }
  // One line: the compiler's own "N errors generated." is dropped, the error carrying its log.
  const CommandResult result =
      convcompare(run_args({"--size", "32x16", "--variant", "global", "--kernel-dir", dir / "kernels"}));
  check_refused(result, {"--kernel-dir", dir / "kernels/global.cl" + ":3:", "unknown type name 'this'"});
}

TEST_CASE("environment: fft on a device of few work-items per group is skipped with the limit, never planned") {
  if (skipped_without_builds()) return;
  TempDir dir("hostile");
  // 33x17 with gaussian:sigma=2 (a 48x30 transform) never finishes VkFFT's planning at 8 work-items; at
  // 1 VkFFT fails to launch. Both are skipped before any planning, and the run ends at once.
  for (const std::string items : {"1", "8"}) {
    CAPTURE(items);
    const CommandResult result = shell("POCL_MAX_WORK_GROUP_SIZE=" + items +
                                       " exec $CONVCOMPARE $RUN --variant fft --size 33x17 --filter gaussian:sigma=2 "
                                       "--quiet --json " + shell_quoted(dir / "r.json"));
    check_validated(result);
    CHECK(result.seconds < 30);
    const nlohmann::json report = nlohmann::json::parse(read_text(dir / "r.json"));
    int fft_runs = 0;  // beside the direct variants run_args names, which validate
    for (const auto& run : report["runs"]) {
      if (run["variant"] != "fft") continue;
      ++fft_runs;
      CHECK(run["status"] == "skipped");
      CHECK(run["reason"].get<std::string>().find("allows " + items + " work-items per group") != std::string::npos);
    }
    CHECK(fft_runs == 1);
  }
}
