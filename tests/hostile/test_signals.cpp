// test_signals.cpp: SIGINT and SIGTERM at every phase, and the OpenCL loader's files: the finished runs kept and marked, 130/143, never a hang.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/hostile/hostile_support.h"
#include "tests/support/temp_dir.h"
#include "tests/support/text.h"

namespace fs = std::filesystem;
using namespace cc::hostile;
using cc::test::lines_of;
using cc::test::TempDir;
using json = nlohmann::json;

namespace {

// sh: waits until $child has its stop handling in place (StopOnSignal blocks SIGTERM on the main thread,
// bit 15 of SigBlk; SIGINT too unless it came ignored, as to a background job of sh), so that a signal
// sent next is taken as a stop request, however loaded the machine; gives up when $child is gone.
// Synchronising on this instead of a fixed sleep.
const std::string kAwaitStopHandling =
    "until blocked=$(sed -n 's/^SigBlk:[[:space:]]*//p' /proc/$child/status 2>/dev/null) && [ -n \"$blocked\" ] &&"
    " [ $(( 0x$blocked & 16384 )) = 16384 ]; do kill -0 $child 2>/dev/null || break; sleep 0.01; done; ";

// sh: waits until a file matches the pattern $1 (a run's output image: that run has finished), or $child
// is gone. The pattern's folder must hold no blank (a TempDir's does not).
const std::string kAwaitFileFunction =
    "await_file() { until ls $1 >/dev/null 2>&1; do kill -0 $child 2>/dev/null || break; sleep 0.01; done; }; ";

// The one stderr line an interrupted job ends with, the JSON and CSV marked, runs that ran counted.
void check_interrupted(const CommandResult& result, const fs::path& dir, const std::string& signal, int status) {
  INFO("stdout: " << result.out << "\nstderr: " << result.err);
  REQUIRE_FALSE(result.timed_out);
  CHECK(result.out.find("status " + std::to_string(status)) != std::string::npos);
  // The last line says it; before it only progress lines and a backend not there ("skipping cuda: ..."),
  // no driver's words and no line blaming the environment.
  const std::vector<std::string> lines = lines_of(result.err);
  REQUIRE_FALSE(lines.empty());
  CHECK(lines.back().starts_with("convcompare: interrupted by " + signal + " after "));
  CHECK(lines.back().ends_with("; the reports hold what finished, marked incomplete"));
  for (std::size_t i = 0; i + 1 < lines.size(); ++i)
    CHECK((lines[i].starts_with("[") || lines[i].starts_with("convcompare: skipping cuda")));
  const json report = json::parse(read_text(dir / "r.json"));
  const std::string incomplete = report["incomplete"].get<std::string>();
  CHECK(incomplete.starts_with("interrupted by " + signal + " after "));
  CHECK(result.err.find(incomplete) != std::string::npos);
  std::size_t ran = 0;
  for (const json& run : report["runs"]) {
    CHECK(run["status"] != "failed");  // a run the interrupt cut short is left out, not failed
    ran += run["status"] != "skipped";
  }
  CHECK(incomplete.find(" after " + std::to_string(ran) + " run") != std::string::npos);
  const std::string csv = read_text(dir / "r.csv");
  REQUIRE_FALSE(csv.empty());
  CHECK(csv.substr(0, csv.find('\n')).ends_with(",incomplete"));
  CHECK(lines_of(csv).size() >= 2);
  for (std::size_t at = csv.find('\n') + 1; at < csv.size(); at = csv.find('\n', at) + 1)
    CHECK(csv.substr(at, csv.find('\n', at) - at).ends_with("," + incomplete));
}

}  // namespace

TEST_CASE("signals: an ICD file the loader would block on (a FIFO) is refused in one line, --list included") {
  if (skipped_unless_opencl("the OpenCL ICD loader's files")) return;
  TempDir temp("hostile");
  const fs::path dir = temp.path;
  fs::create_directory(dir / "vendors");
  REQUIRE(::mkfifo((dir / "vendors" / "x.icd").c_str(), 0600) == 0);
  check_refused(shell("OCL_ICD_VENDORS=" + shell_quoted(dir / "vendors") + " exec $CONVCOMPARE --list"),
                {"OCL_ICD_VENDORS", "x.icd", "is a FIFO, not a regular file", "would block"}, 10);
  check_refused(shell("OCL_ICD_VENDORS=" + shell_quoted(dir / "vendors" / "x.icd") + " exec $CONVCOMPARE $RUN --size 16x16"),
                {"OCL_ICD_VENDORS", "is a FIFO"}, 10);
  check_refused(shell("OCL_ICD_FILENAMES=" + shell_quoted(dir / "vendors" / "x.icd") + " exec $CONVCOMPARE --list"),
                {"OCL_ICD_FILENAMES", "is a FIFO"}, 10);
}

namespace {

// OCL_ICD_VENDORS naming `dir`/vendors, whose one regular .icd names a library that is a FIFO: the loader's
// dlopen blocks for good, inside the driver stage "loading the OpenCL drivers", with nothing of ours to wait on.
std::string blocking_icd_loader(const fs::path& dir) {
  fs::create_directory(dir / "vendors");
  REQUIRE(::mkfifo((dir / "library.so").c_str(), 0600) == 0);
  std::ofstream(dir / "vendors" / "x.icd") << (dir / "library.so").string() << '\n';
  return "OCL_ICD_VENDORS=" + shell_quoted(dir / "vendors");
}

}  // namespace

TEST_CASE("signals: with no signal, an ICD loader that blocks for good is given up on at CONVCOMPARE_LOAD_TIMEOUT: one line, 2") {
  if (skipped_unless_opencl("the OpenCL ICD loader")) return;
  TempDir temp("hostile");
  const std::string loader = blocking_icd_loader(temp.path);
  for (const std::string& command : {std::string("--list"), std::string("$RUN --size 16x16")}) {
    const CommandResult result = shell("CONVCOMPARE_LOAD_TIMEOUT=2 " + loader + " exec $CONVCOMPARE " + command);
    check_refused(result, {"loading the OpenCL drivers", "did not finish within 2 s", "CONVCOMPARE_LOAD_TIMEOUT"}, 10);
    CHECK(result.seconds >= 2);
  }
}

TEST_CASE("signals: one SIGTERM while the ICD loader blocks for good ends the process at the backstop: one line, 143") {
  if (skipped_unless_opencl("the OpenCL ICD loader")) return;
  TempDir temp("hostile");
  // The loader blocks for good. The first signal is a stop request, which that stage never lets the job
  // reach; 5 s later (stop_request.h, kStopBackstopS) it ends.
  const std::string loader = blocking_icd_loader(temp.path);
  const CommandResult result =
      shell(loader + " $CONVCOMPARE --list & child=$!; " + kAwaitStopHandling +
            "sleep 0.3; kill -TERM $child; wait $child; echo \"status $?\"");
  INFO("stderr: " << result.err);
  REQUIRE_FALSE(result.timed_out);
  CHECK(result.out.find("status 143") != std::string::npos);
  CHECK(result.err.starts_with("convcompare: error: interrupted by SIGTERM, and loading the OpenCL drivers"));
  CHECK(result.err.find("did not end within 5 s: stopping at once; no report is written\n") != std::string::npos);
  CHECK(result.seconds < 15);
}

TEST_CASE("signals: SIGTERM while PoCL builds a kernel keeps the finished runs, marked, 143; the build's failure is not reported") {
  if (skipped_unless_opencl("PoCL's builds")) return;
  TempDir temp("hostile");
  const fs::path dir = temp.path;
  // A fresh PoCL cache: every variant's program is built cold (about a second each here), and the signal
  // is sent as the first run's output image appears, as the second variant's build starts. LLVM, inside
  // PoCL, would remove its temporary file at the signal and fail the build (exit 2 blaming the
  // environment, no report) if it saw the signal; no driver does (backends/stop_request.h).
  fs::create_directory(dir / "cache");
  const CommandResult result = shell(
      kAwaitFileFunction + "POCL_CACHE_DIR=" + shell_quoted(dir / "cache") +
      " $CONVCOMPARE --backend opencl --variant global,constant,tiled --size 64x64 --filter box:r=1 --repetitions 3 "
      "--no-peaks --quiet --output-dir " + shell_quoted(dir / "images") + " --json " + shell_quoted(dir / "r.json") +
      " --csv " + shell_quoted(dir / "r.csv") + " & child=$!; await_file \"" + (dir / "images").string() +
      "/*global.png\"; kill -TERM $child; wait $child; echo \"status $?\"");
  check_interrupted(result, dir, "SIGTERM", 143);
  const json report = json::parse(read_text(dir / "r.json"));
  CHECK(report["runs"].size() >= 1);
  CHECK(report["runs"].size() < 3);
}

TEST_CASE("signals: a stop before the first run, with --output-dir: 143, the reports written and marked, no contact sheet error") {
  if (driver_case_skipped("a stop before the first run")) return;
  TempDir temp("hostile");
  const fs::path dir = temp.path;
  // The signal comes as soon as the stop handling is in place, while the 4096x4096 chart is made, before
  // any image: the contact sheet has none, which is no error here; the first run, of naive at that size,
  // takes longer than the steps before it.
  const CommandResult result = shell(
      "$CONVCOMPARE --backend cpu --variant naive --size 4096x4096 --filter box:r=1 --repetitions 1 --no-peaks --quiet"
      " --output-dir " + shell_quoted(dir / "images") + " --json " + shell_quoted(dir / "r.json") + " --csv " +
      shell_quoted(dir / "r.csv") + " & child=$!; " + kAwaitStopHandling + "kill -TERM $child; wait $child; echo \"status $?\"");
  check_interrupted(result, dir, "SIGTERM", 143);
  CHECK(json::parse(read_text(dir / "r.json"))["runs"].empty());
}

TEST_CASE("signals: two signals within a second, of either kind from either sender, are one request: the report is kept") {
  if (driver_case_skipped("two deliveries of one request")) return;
  TempDir temp("hostile");
  const fs::path dir = temp.path;
  // GNU timeout's two deliveries (the command, then its group) come from one sender; LLVM's re-raise of a
  // signal it took comes from the process itself; a CI runner may send SIGTERM while a person's Ctrl-C
  // arrives. Here SIGTERM from the shell as the first run's image appears, then SIGINT from another
  // process (/bin/kill) straight after, while the second run goes on (two signals of different kinds do
  // not merge while pending). Either may name the request (both can be pending when the watcher looks,
  // and it takes SIGINT first); the second must not end the process at once. env --default-signal: sh starts a background job with SIGINT ignored. Beside the
  // CPU's runs, CUDA's skipped placeholders (not built or no device here), which the count leaves out.
  const CommandResult result = shell(
      kAwaitFileFunction + "env --default-signal=INT $CONVCOMPARE --backend cpu,cuda --variant naive --size 1024x1024"
      " --filter box:r=10 --border zero,clamp,mirror,wrap --repetitions 5 --no-peaks --quiet --output-dir " +
      shell_quoted(dir / "images") + " --json " + shell_quoted(dir / "r.json") + " --csv " + shell_quoted(dir / "r.csv") +
      " & child=$!; await_file \"" + (dir / "images").string() + "/*zero_cpu_naive.png\"; kill -TERM $child;"
      " /bin/kill -INT $child; wait $child; echo \"status $?\"");
  const bool named_by_term = result.err.find("interrupted by SIGTERM") != std::string::npos;
  check_interrupted(result, dir, named_by_term ? "SIGTERM" : "SIGINT", named_by_term ? 143 : 130);
  CHECK(result.err.find("interrupted again") == std::string::npos);
}

TEST_CASE("signals: a signal while the reports are written: 143, the reports complete and unmarked, the line says why") {
  if (driver_case_skipped("a signal while the reports are written")) return;
  TempDir temp("hostile");
  const fs::path dir = temp.path;
  // Every run has finished and the JSON goes to standard output, a FIFO the shell opens but does not read
  // until the signal is sent: the writer blocks once the pipe holds 64 KB (8 runs of 1000 samples make
  // about 150 KB), in pipe_write, which /proc/PID/wchan shows (or, where it shows nothing, 10 s pass).
  const CommandResult result = shell(
      "cd " + shell_quoted(dir) + " && mkfifo out || exit 1; $CONVCOMPARE --backend cpu --size 64x64 --filter box:r=1"
      " --border zero,clamp,mirror,wrap --repetitions 1000 --no-peaks --quiet --json - --csv r.csv > out & child=$!;"
      " exec 3<out; tries=0; until grep -q pipe_write /proc/$child/wchan 2>/dev/null || [ $tries -ge 1000 ]; do"
      " kill -0 $child 2>/dev/null || break; tries=$((tries + 1)); sleep 0.01; done; kill -TERM $child;"
      " cat <&3 > r.json; wait $child; echo \"status $?\"");
  INFO("stderr: " << result.err);
  REQUIRE_FALSE(result.timed_out);
  CHECK(result.out.find("status 143") != std::string::npos);
  const std::vector<std::string> lines = lines_of(result.err);
  REQUIRE_FALSE(lines.empty());
  CHECK(lines.back() == "convcompare: interrupted by SIGTERM after every run had finished; the reports are complete");
  const json report = json::parse(read_text(dir / "r.json"));
  CHECK(report["incomplete"] == "");
  CHECK(report["runs"].size() == 8);
  CHECK(read_text(dir / "r.csv").find("interrupted") == std::string::npos);
}
