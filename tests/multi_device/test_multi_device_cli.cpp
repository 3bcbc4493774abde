// test_multi_device_cli.cpp: --split and a dealt --stream as a user runs them on PoCL's devices: --list, the rows, the refusals, the halo route within a platform and across two.
#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <stdlib.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "tests/cli/run_command.h"
#include "tests/support/scoped_env.h"
#include "tests/support/temp_dir.h"

using cc::test::convcompare;

namespace {

using nlohmann::json;

std::size_t lines(const std::string& text) { return static_cast<std::size_t>(std::ranges::count(text, '\n')); }

}  // namespace

TEST_CASE("multi-device: POCL_DEVICES=\"pthread pthread\" makes two PoCL devices, opencl:0:0 and opencl:0:1") {
  const auto result = [] {  // the suite's main set three
    const cc::test::ScopedEnv two("POCL_DEVICES", "pthread pthread");
    return convcompare({"--list", "--backend", "opencl"});
  }();
  CHECK(result.status == 0);
  CHECK(result.out.find("  opencl:0:0  ") != std::string::npos);
  CHECK(result.out.find("  opencl:0:1  ") != std::string::npos);
  CHECK(result.out.find("  opencl:0:2  ") == std::string::npos);
}

TEST_CASE("multi-device: --split and --stream over two devices: one row each beside every device's own") {
  const cc::test::TempDir dir("multi-device");
  const std::string path = dir.file("report.json");
  const auto result = convcompare({"--device", "opencl:0:0,opencl:0:1", "--variant", "global,tiled", "--size", "64x40",
                                   "--filter", "box:r=3", "--border", "wrap", "--split", "--stream", "9", "--no-peaks",
                                   "--time-budget", "0.3", "--quiet", "--json", path});
  REQUIRE_MESSAGE(result.status == 0, result.err);
  std::ifstream file(path);
  const json report = json::parse(file);
  int splits = 0, dealt = 0;
  for (const json& run : report["runs"]) {
    if (run["device"] != "opencl:0:0+0:1") continue;
    ++splits;
    CHECK(run["status"] == "ok");
    // Each pixel is computed as on one device, from the same rows in the same order: the same error.
    for (const json& single : report["runs"])
      if (single["device"] == "opencl:0:0" && single["variant"] == run["variant"])
        CHECK(single["max_abs_error"] == run["max_abs_error"]);
  }
  for (const json& stream : report["streams"]) {
    if (stream["device"] != "opencl:0:0+0:1") continue;
    ++dealt;
    CHECK(stream["status"] == "ok");
    CHECK(stream["queues"] == 6);
    CHECK(stream["frames_per_device"] == "opencl:0:0=5 opencl:0:1=4");
  }
  CHECK(splits == 2);  // one per variant
  CHECK(dealt == 2);
  CHECK(report["runs"].size() == 6);  // each device alone, and the split, per variant
}

TEST_CASE("multi-device: --split refuses one device, and devices of two backends, in one line with exit 2") {
  const auto one = convcompare({"--device", "opencl:0:0", "--split", "--size", "32x32", "--no-peaks"});
  CHECK(one.status == 2);
  CHECK(lines(one.err) == 1);
  CHECK(one.err.find("--split needs two or more devices of one backend") != std::string::npos);
  const auto two_apis = convcompare({"--device", "cpu,opencl:0:0", "--split", "--size", "32x32", "--no-peaks"});
  CHECK(two_apis.status == 2);
  CHECK(lines(two_apis.err) == 1);
  CHECK(two_apis.err.find("a frame is not split across backends") != std::string::npos);
}

TEST_CASE("multi-device: a split over PoCL and Rusticl (two platforms) sends its halos through the host, saying so") {
  // RUSTICL_ENABLE=llvmpipe adds Mesa's Rusticl beside PoCL (docs/portability.md): its device is on
  // another platform, so the two share no context and every halo row crosses through the host.
  const cc::test::ScopedEnv rusticl_enable("RUSTICL_ENABLE", "llvmpipe");
  const auto listed = convcompare({"--list", "--backend", "opencl"});
  std::smatch found;
  const bool rusticl =
      std::regex_search(listed.out, found, std::regex(R"(  (opencl:[0-9]+:[0-9]+)  [^\n]*\(rusticl\))"));
  if (!rusticl) {
    // CI installs Mesa's OpenCL ICD (tools/install-deps.sh): there its absence is a failure.
    if (std::getenv("CI")) FAIL("RUSTICL_ENABLE=llvmpipe gave no Rusticl device: " << listed.out);
    MESSAGE("skipped: no Rusticl device (mesa-opencl-icd) to split across platforms with");
    return;
  }
  const std::string rusticl_id = found[1].str();
  const cc::test::TempDir dir("multi-device-platforms");
  const std::string path = dir.file("report.json");
  const auto result = convcompare({"--device", "opencl:0:0," + rusticl_id, "--variant", "global,texture", "--size",
                                   "48x30", "--filter", "box:r=4", "--split", "--no-peaks", "--time-budget", "0.2",
                                   "--quiet", "--json", path});
  REQUIRE_MESSAGE(result.status == 0, result.err);
  std::ifstream file(path);
  const json report = json::parse(file);
  int splits = 0;
  for (const json& run : report["runs"]) {
    if (run["device"].get<std::string>().find('+') == std::string::npos) continue;
    ++splits;
    CHECK(run["status"] == "ok");
    CHECK(run["memory_note"] ==
          "halo rows through the host: opencl:0:0 and " + rusticl_id + " are on different platforms");
  }
  CHECK(splits == 2);
}
