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
