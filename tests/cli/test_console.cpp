// test_console.cpp: the console report and the report options (README.md, "Using it"): 100 columns, one line per backend that ran nothing, auto's pick, the sweep summary, nothing to run, merge's reports, the full CSV.
#include <doctest/doctest.h>
#include <stdlib.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "common/report/report.h"
#include "run_command.h"
#include "tests/support/scoped_env.h"
#include "tests/support/temp_dir.h"
#include "tests/support/text.h"

using cc::test::CommandResult;
using cc::test::convcompare;
using cc::test::count_of;
using cc::test::lines_of;
using cc::test::read_file;
using cc::test::ScopedEnv;
using cc::test::TempDir;
using nlohmann::json;

namespace {

// Terminal columns: UTF-8 continuation bytes take none.
std::size_t columns_of(const std::string& line) {
  return static_cast<std::size_t>(std::ranges::count_if(line, [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

void check_width(const std::string& out, std::size_t limit) {
  for (const std::string& line : lines_of(out)) CHECK_MESSAGE(columns_of(line) <= limit, columns_of(line) << " columns: " << line);
}

const std::vector<std::string> kQuick = {"--size", "40x24", "--repetitions", "1", "--warmup", "0", "--no-peaks"};

std::vector<std::string> quick(std::vector<std::string> extra) {
  std::vector<std::string> args = kQuick;
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

}  // namespace

TEST_CASE("console: every table fits in 100 columns; --verbose adds the detail columns") {
  const std::vector<std::string> args = quick({"--filter", "box:r=2", "--filter", "gaussian:sigma=1", "--border",
                                               "clamp,mirror", "--memory", "both", "--stream", "2"});
  const CommandResult compact = convcompare(args);
  REQUIRE(compact.status == 0);
  check_width(compact.out, 100);
  CHECK(compact.out.find("max err\n") != std::string::npos);
  CHECK(compact.out.find(" tol\n") == std::string::npos);  // the detail view's
  std::vector<std::string> verbose_args = args;
  verbose_args.push_back("--verbose");
  const CommandResult verbose = convcompare(verbose_args);
  REQUIRE(verbose.status == 0);
  CHECK(verbose.out.find(" GFLOP/s ") != std::string::npos);
  CHECK(verbose.out.find(" tol\n") != std::string::npos);
}

TEST_CASE("console: a backend without a device is one line, not a row per run") {
  TempDir dir("console");
  const CommandResult result = convcompare(quick({"--filter", "box:r=1", "--filter", "box:r=2", "--border", "zero,clamp",
                                                  "--backend", "cpu,cuda", "--json", dir / "r.json"}));
  REQUIRE(result.status == 0);
  const json report = json::parse(read_file(dir / "r.json"));
  std::size_t cuda_rows = 0;
  bool unavailable = false;
  for (const json& run : report["runs"])
    if (run["backend"] == "cuda") ++cuda_rows, unavailable |= run["device"] == "-";
  if (!unavailable) {
    MESSAGE("CUDA has a device here: nothing to collapse");
    return;
  }
  CHECK(cuda_rows >= 4);  // JSON keeps every run: 2 filters x 2 borders, a row per variant where CUDA is built
  CHECK(count_of(result.out, "cuda: not run: ") == 1);
  for (const std::string& line : lines_of(result.out)) CHECK_MESSAGE(!line.starts_with("-  "), line);
}

TEST_CASE("console: an auto row names the variant it ran") {
  TempDir dir("console");
  const ScopedEnv cache("CONVCOMPARE_CACHE_DIR", dir / "cache");
  const CommandResult result = convcompare(quick({"--backend", "cpu", "--variant", "auto", "--filter", "box:r=1"}));
  REQUIRE(result.status == 0);
  CHECK_MESSAGE(result.out.find("auto\u2192fast") != std::string::npos, result.out);  // the CPU's one candidate
}

TEST_CASE("console: a sweep prints one summary (variant x radius per device), the points with --verbose") {
  const std::vector<std::string> args =
      quick({"--backend", "cpu", "--variant", "naive,fast", "--filter", "box:r=1", "--sweep", "radius=1,2,3"});
  const CommandResult result = convcompare(args);
  REQUIRE(result.status == 0);
  check_width(result.out, 100);
  CHECK(count_of(result.out, "sweep summary: box") == 1);
  CHECK(count_of(result.out, "(times in ms)") == 0);  // no table per point
  const std::vector<std::string> lines = lines_of(result.out);
  const auto header = std::ranges::find_if(lines, [](const std::string& line) { return line.starts_with("radius"); });
  REQUIRE(header != lines.end());
  CHECK(header->find("naive") != std::string::npos);
  CHECK(header->find("fast") != std::string::npos);
  for (const char* radius : {"r=1 ", "r=2 ", "r=3 "})
    CHECK(std::ranges::count_if(lines, [&](const std::string& line) { return line.starts_with(radius); }) == 1);
  std::vector<std::string> verbose_args = args;
  verbose_args.push_back("--verbose");
  const CommandResult verbose = convcompare(verbose_args);
  CHECK(count_of(verbose.out, "(times in ms)") == 3);
  CHECK(count_of(verbose.out, "sweep summary: box") == 1);
}

TEST_CASE("nothing to run is exit status 2 with the reason") {
  SUBCASE("every run skipped: fft has no 8-bit form (OpenCL)") {
    const CommandResult list = convcompare({"--list", "--backend", "opencl"});
    if (list.out.find("opencl: no device") != std::string::npos || list.out.find("opencl: not built") != std::string::npos ||
        list.out.find("opencl:") == std::string::npos) {
      MESSAGE("no OpenCL device here: the every-run-skipped case did not run");
      return;
    }
    const CommandResult result =
        convcompare(quick({"--backend", "opencl", "--device", "opencl:0:0", "--variant", "fft", "--pixel", "u8"}));
    CHECK(result.status == 2);
    CHECK(result.err.starts_with("convcompare: error: nothing ran: every run was skipped ("));
    CHECK(std::ranges::count(result.err, '\n') == 1);
  }
  SUBCASE("--backend cuda where CUDA has no device (a GPU host runs it instead)") {
    const CommandResult result = convcompare(quick({"--backend", "cuda", "--variant", "global"}));
    if (result.status == 0) {
      MESSAGE("CUDA has a device here");
      return;
    }
    CHECK(result.status == 2);
    CHECK(result.err.find("nothing to run: cuda: ") != std::string::npos);
    CHECK(result.out.empty());
  }
}

TEST_CASE("CSV: device peaks, runs and stream runs, each line saying which; the columns are the field tables'") {
  TempDir dir("console");
  const CommandResult result =
      convcompare({"--backend", "cpu", "--size", "40x24", "--repetitions", "1", "--filter", "box:r=1", "--stream", "2",
                   "--quiet", "--csv", dir / "r.csv", "--json", dir / "r.json"});
  REQUIRE(result.status == 0);
  const std::vector<std::string> lines = lines_of(read_file(dir / "r.csv"));
  REQUIRE(!lines.empty());
  std::string header;
  for (const std::string& column : cc::csv_columns()) header += (header.empty() ? "" : ",") + column;
  CHECK(lines[0] == header);
  for (const char* column : {"record", "peaks_copy_gb_per_s", "frames_per_s", "floor_fraction", "kernel_ms_median"})
    CHECK_MESSAGE(header.find(column) != std::string::npos, column);
  const json report = json::parse(read_file(dir / "r.json"));
  const auto count = [&](const std::string& record) {
    return std::ranges::count_if(lines, [&](const std::string& line) { return line.starts_with(record + ","); });
  };
  CHECK(count("device") == static_cast<long>(report["devices"].size()));
  CHECK(count("run") == static_cast<long>(report["runs"].size()));
  CHECK(count("stream") == static_cast<long>(report["streams"].size()));
  CHECK(report["devices"].size() >= 1);
  CHECK(lines.size() == 1 + report["devices"].size() + report["runs"].size() + report["streams"].size());
}

TEST_CASE("merge takes the report options: --json, --csv, --markdown, --quiet of the merged reports") {
  TempDir dir("console");
  for (const char* name : {"a", "b"})
    REQUIRE(convcompare(quick({"--backend", "cpu", "--filter", "box:r=1", "--quiet", "--json", dir / (std::string(name) + ".json")}))
                .status == 0);
  const CommandResult result = convcompare({"merge", dir / "a.json", dir / "b.json", "--json", dir / "m.json", "--csv",
                                            dir / "m.csv", "--markdown", dir / "m.md", "--quiet"});
  REQUIRE(result.status == 0);
  CHECK(result.out.empty());
  const json a = json::parse(read_file(dir / "a.json")), merged = json::parse(read_file(dir / "m.json"));
  CHECK(merged["runs"].size() == 2 * a["runs"].size());
  CHECK(merged["runs"][0]["device"] == "a/cpu");
  CHECK(merged["runs"][a["runs"].size()]["device"] == "b/cpu");
  CHECK(lines_of(read_file(dir / "m.csv")).size() == 1 + 2 * (a["runs"].size() + a["devices"].size()));
  CHECK(read_file(dir / "m.md").find("b/cpu") != std::string::npos);
  // The merged table still prints without --quiet, and a report may not overwrite an input.
  CHECK(convcompare({"merge", dir / "a.json", dir / "b.json"}).out.find("a: host") != std::string::npos);
  const CommandResult clobber = convcompare({"merge", dir / "a.json", dir / "b.json", "--json", dir / "a.json"});
  CHECK(clobber.status == 2);
  CHECK(clobber.err.find("destroy the input") != std::string::npos);
}

TEST_CASE("Ctrl-C: the runs that finished are printed and written, marked incomplete, exit 130") {
  TempDir dir("console");
  const std::string json_path = dir / "int.json";
  // timeout sends SIGINT to a foreground child (a background job of sh would ignore it);
  // --preserve-status passes on convcompare's own exit status. 8 s, not 4, because under ctest -j on a
  // loaded two-core machine a signal at 4 s once came before the tool had started (exit 130 with no report).
  // The job is 20 short runs, not a few long ones: the signal is taken between runs, so each run (30
  // launches of naive at 2048x2048, 62 ms each on one core of the CI machine: about 2 s) bounds the wait,
  // and the whole (45 s there) is several times the 8 s. A job of 10 runs of 3 launches takes 7 s
  // alone there and can end before the signal.
  const CommandResult result = cc::test::run_command(
      {"/usr/bin/timeout", "--preserve-status", "-s", "INT", "8", CONVCOMPARE_EXE, "--backend", "cpu", "--size", "2048x2048",
       "--variant", "naive", "--border", "zero,clamp,mirror,wrap", "--repetitions", "30", "--json", json_path},
      std::chrono::seconds(120));
  REQUIRE_FALSE(result.timed_out);
  CHECK(result.status == 130);
  CHECK(result.err.find("interrupted by SIGINT") != std::string::npos);
  CHECK(result.out.starts_with("INCOMPLETE: interrupted by SIGINT"));
  const json report = json::parse(read_file(json_path));
  CHECK(report["incomplete"].get<std::string>().starts_with("interrupted by SIGINT after "));
  CHECK(report["runs"].size() >= 1);
  CHECK(report["runs"].size() < 20);  // the complete job has 20 (5 filters, 4 borders)
}

TEST_CASE("one SIGTERM delivered twice (timeout's command then its process group) is one request: the report is kept") {
  // GNU timeout signals the command, then its whole process group, the command again: two deliveries
  // microseconds apart from one sender. Taken as a second signal they would end the run with no report
  // (a memory_spaces.sh step would lose its JSON). Here the same shell sends both, 30 ms apart
  // so that the first has been handled when the second comes (sent back to back they may merge into one
  // pending signal, and the test could not fail); tests/hostile/test_device_faults.cpp has two requests
  // 1.5 s apart end the process at once, and tests/hostile/test_signals.cpp two kinds from two senders. A radius sweep of naive at 1024x1024: the first runs end well
  // within the 2 s before the signals, the sweep's last take far longer than any machine needs to get
  // there, and the run under way when they come, the one the process finishes first, is a short one
  // (not the 2048x2048 test chart's Gaussian, which would be 17 of the case's 23 s).
  TempDir dir("console");
  const std::string json_path = dir / "twice.json";
  const CommandResult result = cc::test::run_command(
      {"/bin/sh", "-c",
       std::string(CONVCOMPARE_EXE) + " --backend cpu --size 1024x1024 --variant naive --filter box:r=1 --sweep radius=1..16"
           " --repetitions 3 --quiet --json '" + json_path + "' & child=$!; sleep 2; kill -TERM $child; sleep 0.03; kill -TERM $child; wait $child;"
           " echo \"status $?\""},
      std::chrono::seconds(120));
  REQUIRE_FALSE(result.timed_out);
  CHECK(result.out.find("status 143") != std::string::npos);
  CHECK(result.err.find("interrupted by SIGTERM") != std::string::npos);
  CHECK(result.err.find("interrupted again") == std::string::npos);
  const json report = json::parse(read_file(json_path));
  CHECK(report["incomplete"].get<std::string>().starts_with("interrupted by SIGTERM after "));
  CHECK(report["runs"].size() >= 1);
}

TEST_CASE("console: a backend that is not there is said once, in the report, not also on stderr") {
  // Every variant, so that CUDA has targets whether or not it is built in (naive alone is the CPU's only).
  const CommandResult result = convcompare({"--backend", "cpu,cuda", "--size", "64x64", "--filter", "box:r=1",
                                            "--repetitions", "1", "--no-peaks"});
  CHECK(result.status == 0);
  CHECK(result.err.find("skipping cuda") == std::string::npos);
  if (result.out.find("cuda:0") != std::string::npos) {
    MESSAGE("CUDA has a device here: nothing to say is missing");
    return;
  }
  CHECK(count_of(result.out, "cuda: not run") == 1);
}

TEST_CASE("merge: variants in the table's order, as each report's own tables; no sweep summary for two plain runs") {
  TempDir dir("console");
  REQUIRE(convcompare(quick({"--backend", "cpu", "--filter", "box:r=1", "--quiet", "--json", dir / "a.json"})).status == 0);
  // b lists fast before naive, as a report whose first backend has only "fast" would (CPU then OpenCL
  // gave naive, fast, global: the merged table took the order in which it first met each name).
  json b = json::parse(read_file(dir / "a.json"));
  REQUIRE(b["runs"].size() == 2);
  REQUIRE(b["runs"][0]["variant"] == "naive");
  std::swap(b["runs"][0], b["runs"][1]);
  std::ofstream(dir / "b.json") << b.dump();
  const CommandResult result = convcompare({"merge", dir / "b.json", dir / "a.json"});
  REQUIRE(result.status == 0);
  const std::size_t naive = result.out.find("\nnaive "), fast = result.out.find("\nfast ");
  REQUIRE(naive != std::string::npos);
  REQUIRE(fast != std::string::npos);
  CHECK(naive < fast);
  CHECK(result.out.find("weep summary") == std::string::npos);
}

TEST_CASE("merge of two sweeps: the sweep's radius-by-variant summary per machine's device; each point's table with --verbose") {
  TempDir dir("console");
  for (const char* name : {"boxA", "boxB"})
    REQUIRE(convcompare(quick({"--backend", "cpu", "--filter", "box:r=1", "--sweep", "radius=1..2", "--quiet", "--json",
                               dir / (std::string(name) + ".json")}))
                .status == 0);
  const CommandResult merged = convcompare({"merge", dir / "boxA.json", dir / "boxB.json"});
  REQUIRE(merged.status == 0);
  CHECK(count_of(merged.out, "sweep summary: box") == 1);
  for (const char* device : {"\nboxA/cpu\n", "\nboxB/cpu\n"}) CHECK(merged.out.find(device) != std::string::npos);
  const std::vector<std::string> lines = lines_of(merged.out);
  CHECK(std::ranges::count(lines, "radius naive  fast") == 2);  // a table per machine's CPU
  CHECK(std::ranges::count_if(lines, [](const std::string& line) { return line.starts_with("r=2 "); }) == 2);
  CHECK(merged.out.find("(kernel median, ms)") == std::string::npos);  // no table per point
  const CommandResult verbose = convcompare({"merge", dir / "boxA.json", dir / "boxB.json", "--verbose"});
  REQUIRE(verbose.status == 0);
  CHECK(count_of(verbose.out, "(kernel median, ms)") == 2);  // r=1 and r=2, side by side
  CHECK(verbose.out.find("ratio to boxA on the matching backend and device") != std::string::npos);
  CHECK(verbose.out.find("sweep summary: box") != std::string::npos);
}
