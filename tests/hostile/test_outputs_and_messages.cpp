// test_outputs_and_messages.cpp: hostile runs on the output side and in what is printed: reports over inputs, full or closed stdout, a shared tuning cache, options before merge, escaped and shortened arguments.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/hostile/hostile_support.h"
#include "tests/support/image_files.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using namespace cc::hostile;
using cc::test::TempDir;

TEST_CASE("lost files: --json naming an input, or the same file as --csv, is refused before anything is written") {
  TempDir dir("hostile");
  const std::string image = cc::test::pfm_file(8, 4, [](int x, int y) { return x - y * 0.5f; });
  cc::test::write_binary(dir / "in.pfm", image);
  cc::test::write_binary(dir / "f.txt", "3 1\n1 2 1\n");
  check_refused(convcompare(run_args({"--image", dir / "in.pfm", "--json", dir / "in.pfm"})), {"--json", "--image input"});
  check_refused(convcompare(run_args({"--size", "8x4", "--filter", "file:" + dir / "f.txt", "--csv", dir / "f.txt"})),
                {"--csv", "--filter input"});
  check_refused(convcompare(run_args({"--size", "8x4", "--json", dir / "r.json", "--compare", dir / "r.json"})),
                {"--json", "--compare"});
  check_refused(convcompare(run_args({"--size", "8x4", "--json", dir / "r", "--csv", dir / "./r"})),
                {"--json and --csv", "same file"});
  CHECK(read_text(dir / "in.pfm") == image);
  CHECK(read_text(dir / "f.txt") == "3 1\n1 2 1\n");
  CHECK_FALSE(fs::exists(dir / "r"));
}

TEST_CASE("lost files: a write error on stdout (/dev/full, closed stdout) is exit 2, for runs, merge and --list") {
  TempDir dir("hostile");
  check_validated(convcompare(run_args({"--size", "8x4", "--filter", "box:r=1", "--quiet", "--json", dir / "r.json"})));
  for (const std::string redirect : {"> /dev/full", ">&-"}) {
    CAPTURE(redirect);
    check_refused(shell("exec $CONVCOMPARE $RUN --size 8x4 --filter box:r=1 " + redirect), {"standard output"});
    check_refused(shell("exec $CONVCOMPARE merge " + shell_quoted(dir / "r.json") + " " + redirect), {"standard output"});
    check_refused(shell("exec $CONVCOMPARE --list " + redirect), {"standard output"});
  }
  // A report to a FIFO nobody reads is an error, not a hang.
  REQUIRE(mkfifo((dir / "fifo.json").c_str(), 0600) == 0);
  check_refused(convcompare(run_args({"--size", "8x4", "--filter", "box:r=1", "--quiet", "--json", dir / "fifo.json"})),
                {"fifo.json", "no process is reading"});
}

TEST_CASE("lost files: two --variant auto processes sharing one tuning cache keep both entries") {
  if (driver_case_skipped("the tuning cache's flock'ed stores")) return;
  TempDir dir("hostile");
  // Each process reads the cache when it starts and stores when its tuning is done; before the flock'ed
  // re-read the later store wrote back a copy without the other process's entry.
  const auto tune = [&](const std::string& size) {
    return std::async(std::launch::async, [&dir, size] {
      return shell("CONVCOMPARE_CACHE_DIR=" + shell_quoted(dir / "cache") + " exec $CONVCOMPARE $RUN --size " + size +
                   " --filter box:r=1 --variant auto --quiet");
    });
  };
  for (int round = 0; round < 3; ++round) {
    auto a = tune(std::to_string(40 + round) + "x20"), b = tune(std::to_string(60 + round) + "x20");
    check_validated(a.get());
    check_validated(b.get());
  }
  std::string cache_file;
  for (const auto& entry : fs::directory_iterator(dir / "cache"))
    if (entry.path().extension() == ".json") cache_file = entry.path().string();
  REQUIRE_FALSE(cache_file.empty());
  CHECK(nlohmann::json::parse(read_text(cache_file)).at("entries").size() == 6);
}

TEST_CASE("wrong codes: options merge does not take are refused, not ignored") {
  TempDir dir("hostile");
  check_validated(convcompare(run_args({"--size", "8x4", "--filter", "box:r=1", "--quiet", "--json", dir / "r.json"})));
  check_refused(convcompare({"--backend", backend(), "merge", dir / "r.json"}), {"merge", "--backend"});
  // merge writes reports, but a run option beside one is still refused, and nothing written.
  check_refused(convcompare({"--json", dir / "m.json", "--size", "8x4", "merge", dir / "r.json"}), {"merge", "--size"});
  CHECK_FALSE(fs::exists(dir / "m.json"));
}

TEST_CASE("lost files: merge whose report would pass the 32 MB its reader takes is refused, nothing written") {
  TempDir dir("hostile");
  check_validated(convcompare(run_args({"--size", "8x4", "--filter", "box:r=1", "--quiet", "--json", dir / "one.json"})));
  // The report with its runs repeated to 20 MB: each input is readable, their merge (40 MB) would not be.
  nlohmann::json report = nlohmann::json::parse(read_text(dir / "one.json"));
  const nlohmann::json run = report["runs"][0];
  const std::size_t run_bytes = run.dump(4).size();
  while (report["runs"].size() * run_bytes < (20u << 20)) report["runs"].push_back(run);
  std::ofstream(dir / "a.json") << report.dump(4);
  fs::copy_file(dir / "a.json", dir / "b.json");
  REQUIRE(fs::file_size(dir / "a.json") < (32u << 20));
  check_refused(convcompare({"--quiet", "--json", dir / "m.json", "--csv", dir / "m.csv", "merge", dir / "a.json",
                             dir / "b.json"}),
                {"--json", "m.json", "32 MB", "merge"}, 60);
  CHECK_FALSE(fs::exists(dir / "m.json"));
  CHECK_FALSE(fs::exists(dir / "m.csv"));
  // One of them alone merges, and what was written reads back.
  const CommandResult alone = convcompare({"--quiet", "--json", dir / "m.json", "merge", dir / "a.json"});
  check_validated(alone);
  check_validated(convcompare({"--quiet", "merge", dir / "m.json"}));
}

TEST_CASE("messages: control characters in an argument are escaped; a long argument gives a short line") {
  const CommandResult escaped = convcompare(run_args({"--size", "8x4", "--filter", "box\x1b[2J\x07\rr=1"}));
  check_refused(escaped, {"\\x1b[2J\\x07\\x0dr=1"});
  const std::string huge(100000, 'q');
  for (const std::vector<std::string>& args :
       {run_args({"--size", "8x4", "--filter", huge}), run_args({"--size", huge}), run_args({"--image", "/tmp/" + huge}),
        run_args({"--border", huge}), run_args({"--size", "8x4", "--json", "/no/such/dir/" + huge})}) {
    const CommandResult result = convcompare(args);
    check_refused(result, {"[100"});
    CHECK(result.err.size() < 1000);
  }
}
