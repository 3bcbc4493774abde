// test_read_back.cpp: hostile files convcompare reads back: reports (merge, --compare), baselines and the tuning cache.
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

  // A negative time, in a statistic, a raw sample or a phase, in a baseline and in any report merge reads.
  for (const auto& [group, key] : std::vector<std::pair<std::string, std::string>>{
           {"kernel_ms", "median"}, {"kernel_ms", "min"}, {"", "h2d_ms"}, {"", "kernel_samples_ms"}}) {
    CAPTURE(key);
    nlohmann::ordered_json negative = report;
    nlohmann::ordered_json& run = negative["runs"][0];
    if (key == "kernel_samples_ms")
      run[key] = {0.5, -0.25};
    else
      (group.empty() ? run[key] : run[group][key]) = -3;
    check_refused(compare_with("negative.json", negative), {"negative.json", "run 1", key, "a time cannot be negative"});
    check_refused(convcompare({"merge", dir.file("negative.json")}), {"negative.json", key, "cannot be negative"});
  }
  // The report as written still compares (0, or 4: one sample a side is inconclusive), nothing on stderr.
  const CommandResult itself =
      convcompare(run_args({"--size", "16x8", "--filter", "box:r=1", "--quiet", "--compare", dir.file("one.json")}));
  CHECK((itself.status == 0 || itself.status == 4));
  CHECK(itself.err.empty());
}
