// test_read_back.cpp: hostile files convcompare reads back: reports (merge, --compare), baselines and the tuning cache.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/hostile/hostile_support.h"
#include "tests/support/temp_dir.h"

using namespace cc::hostile;
using cc::test::read_file;
using cc::test::TempDir;
using cc::test::write_file;

namespace {

// A report of one run written by convcompare into `dir`, as parsed JSON.
nlohmann::ordered_json read_back_report(const TempDir& dir, const std::string& name) {
  const CommandResult saved =
      convcompare(run_args({"--size", "16x8", "--filter", "box:r=1", "--quiet", "--json", dir.file(name)}));
  check_validated(saved);
  return nlohmann::ordered_json::parse(read_file(dir.file(name)));
}

// `depth` arrays within each other, as text.
std::string nested_arrays(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// The one tuning cache file (a device's) under `cache`, "" when there is none.
std::string tuning_cache_file(const TempDir& cache) {
  for (const auto& entry : std::filesystem::directory_iterator(cache.path))
    if (entry.path().extension() == ".json") return entry.path().string();
  return "";
}

// A --variant auto run of one small problem with its tuning cache in `cache`, its report in `report`.
CommandResult auto_run(const TempDir& cache, const std::string& report) {
  return shell("CONVCOMPARE_CACHE_DIR=" + shell_quoted(cache.path.string()) +
               " exec $CONVCOMPARE $RUN --variant auto --size 32x16 --filter box:r=1 --quiet --json " + shell_quoted(report));
}

// The auto run's record in the report at `path` (under OpenCL run_args adds global and tiled runs).
nlohmann::json auto_record(const std::string& path) {
  const nlohmann::json report = nlohmann::json::parse(read_file(path));
  for (const nlohmann::json& run : report["runs"])
    if (run["variant"] == "auto") return run;
  FAIL("no auto run in " << path);
  return {};
}

}  // namespace

TEST_CASE("read back: a report nested 150,000 deep is refused by the nesting limit, by merge and --compare alike") {
  TempDir dir("hostile");
  const nlohmann::ordered_json report = read_back_report(dir, "one.json");
  // In every place a reader walks: the whole document, a field whose message shows it, a run's field.
  std::string run = report["runs"][0].dump();
  run.insert(1, "\"deep\": " + nested_arrays(150000) + ", ");
  const std::vector<std::pair<std::string, std::string>> files = {
      {"whole.json", nested_arrays(150000)},
      {"version.json", "{\"schema_version\": " + nested_arrays(150000) + ", \"runs\": []}"},
      {"run.json", "{\"runs\": [" + run + "]}"}};
  for (const auto& [name, text] : files) {
    CAPTURE(name);
    write_file(dir.file(name), text);
    check_refused(convcompare({"merge", dir.file("one.json"), dir.file(name)}), {name, "nested more than 64 deep"});
    check_refused(convcompare(run_args({"--size", "16x8", "--filter", "box:r=1", "--compare", dir.file(name)})),
                  {name, "nested more than 64 deep"});
  }
  // 64 deep is within the limit: the reader goes on to say what else is wrong with it.
  write_file(dir.file("limit.json"), "{\"schema_version\": " + nested_arrays(63) + ", \"runs\": []}");
  const CommandResult at_limit = convcompare({"merge", dir.file("limit.json")});
  check_refused(at_limit, {"limit.json", "schema_version", "array"});
  CHECK(at_limit.err.find("nested") == std::string::npos);
}

TEST_CASE("read back: a baseline of no runs, of negative times or of one run twice is refused before any run") {
  TempDir dir("hostile");
  const nlohmann::ordered_json report = read_back_report(dir, "one.json");
  const auto compare_with = [&](const std::string& name, const nlohmann::ordered_json& baseline) {
    write_file(dir.file(name), baseline.dump());
    return convcompare(run_args({"--size", "16x8", "--filter", "box:r=1", "--compare", dir.file(name)}));
  };
  nlohmann::ordered_json empty = report;
  empty["runs"] = nlohmann::ordered_json::array();
  check_refused(compare_with("empty.json", empty), {"empty.json", "holds no runs", "nothing to compare against"});

  nlohmann::ordered_json twice = report;
  twice["runs"].push_back(report["runs"][0]);
  const std::string again = "runs 1 and " + std::to_string(report["runs"].size() + 1);
  check_refused(compare_with("twice.json", twice), {"twice.json", again, "same run", "box:r=1 16x8x1", "holds each run once"});

  // A negative time, in a statistic, a raw sample or a phase, or a negative rate or size, in a baseline and
  // in any report merge reads.
  for (const auto& [group, key] : std::vector<std::pair<std::string, std::string>>{
           {"kernel_ms", "median"}, {"kernel_ms", "min"}, {"", "h2d_ms"}, {"", "kernel_samples_ms"},
           {"", "gb_per_s"}, {"", "device_mb"}}) {
    CAPTURE(key);
    nlohmann::ordered_json negative = report;
    nlohmann::ordered_json& run = negative["runs"][0];
    if (key == "kernel_samples_ms")
      run[key] = {0.5, -0.25};
    else
      (group.empty() ? run[key] : run[group][key]) = -3;
    const std::string amount = key.find("_ms") != std::string::npos || group == "kernel_ms" ? "a time" : "a measured amount";
    check_refused(compare_with("negative.json", negative), {"negative.json", "run 1", key, amount + " cannot be negative"});
    check_refused(convcompare({"merge", dir.file("negative.json")}), {"negative.json", key, "cannot be negative"});
  }
  // The report as written still compares (0, or 4: one sample a side is inconclusive), nothing on stderr.
  const CommandResult itself =
      convcompare(run_args({"--size", "16x8", "--filter", "box:r=1", "--quiet", "--compare", dir.file("one.json")}));
  CHECK((itself.status == 0 || itself.status == 4));
  CHECK(itself.err.empty());
}

TEST_CASE("read back: a tuning cache entry with a negative time is a corrupt cache: warned about, measured again, never printed") {
  if (driver_case_skipped("the tuning cache's entries")) return;
  TempDir dir("hostile"), cache("hostile-cache");
  check_validated(auto_run(cache, dir.file("first.json")));
  const std::string file = tuning_cache_file(cache);
  REQUIRE_FALSE(file.empty());
  nlohmann::json entries = nlohmann::json::parse(read_file(file));
  REQUIRE(entries["entries"].size() == 1);
  entries["entries"][0]["choice"]["measured"][0]["kernel_ms"] = -1.5;
  write_file(file, entries.dump());
  const CommandResult again = auto_run(cache, dir.file("again.json"));
  check_validated(again, 1);
  CHECK(again.err.find("ignoring the tuning cache") != std::string::npos);
  CHECK(again.err.find("negative time") != std::string::npos);
  const std::string note = auto_record(dir.file("again.json"))["compile_time"];
  CHECK(note.starts_with("auto: fast (measured;"));
  CHECK(note.find("-1.5") == std::string::npos);
  // Stored afresh: the next run uses it.
  CHECK(nlohmann::json::parse(read_file(file))["entries"][0]["choice"]["measured"][0]["kernel_ms"].get<double>() >= 0);
}

TEST_CASE("read back: a cached winner that cannot run on this device is measured again, not 'nothing ran' until --retune") {
  if (skipped_unless_opencl("a candidate the device cannot run (shuffle without sub-group shuffles)")) return;
  TempDir dir("hostile"), cache("hostile-cache");
  check_validated(auto_run(cache, dir.file("first.json")));
  const std::string file = tuning_cache_file(cache);
  REQUIRE_FALSE(file.empty());
  nlohmann::json entries = nlohmann::json::parse(read_file(file));
  nlohmann::json& choice = entries["entries"][0]["choice"];
  nlohmann::json& left_out = choice["left_out"];
  const auto shuffle = std::ranges::find_if(left_out, [](const nlohmann::json& e) { return e["variant"] == "shuffle"; });
  if (shuffle == left_out.end()) {
    MESSAGE("skipped: this device offers sub-group shuffles, so a cached shuffle can run here");
    return;
  }
  // The entry as a cache of another device (or an older driver under the same versions) would hold it.
  left_out.erase(shuffle);
  choice["variant"] = "shuffle";
  choice["measured"].insert(choice["measured"].begin(), nlohmann::json{{"variant", "shuffle"}, {"kernel_ms", 0.001}});
  write_file(file, entries.dump());
  const CommandResult again = auto_run(cache, dir.file("again.json"));
  check_validated(again);
  const nlohmann::json run = auto_record(dir.file("again.json"));
  CHECK(run["status"] == "ok");
  const std::string note = run["compile_time"];
  CHECK(note.find("(measured;") != std::string::npos);
  CHECK(note.find("measured again: the cached shuffle cannot run here [the device offers no sub-group shuffle") !=
        std::string::npos);
  // The stale entry is replaced: the next run takes the fresh winner from the cache.
  const nlohmann::json stored = nlohmann::json::parse(read_file(file))["entries"][0]["choice"];
  CHECK(stored["variant"] != "shuffle");
  check_validated(auto_run(cache, dir.file("third.json")));
  const std::string third = auto_record(dir.file("third.json"))["compile_time"];
  CHECK(third.find("(cached;") != std::string::npos);
}
