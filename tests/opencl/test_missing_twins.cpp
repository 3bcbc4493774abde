// test_missing_twins.cpp: what OpenCL lacks (the CUDA-only variants) shown as skipped rows with the reason, in the console and JSON reports.
#include <cstdio>
#include <string>

#include <sys/wait.h>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/domain/variants.h"
#include "tests/opencl/opencl_suite.h"

namespace {

struct Piped {
  int status = -1;
  std::string out;
};

// `arguments` to convcompare through the shell, its standard output captured (stderr to /dev/null).
Piped run_convcompare(const std::string& arguments) {
  Piped result;
  const std::string command = fmt::format("'{}' {} 2>/dev/null", CONVCOMPARE_EXE, arguments);
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe);
  char chunk[4096];
  for (std::size_t got; (got = std::fread(chunk, 1, sizeof chunk, pipe)) > 0;) result.out.append(chunk, got);
  const int status = ::pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

}  // namespace

TEST_CASE("missing twins: tma and cluster on OpenCL are skipped rows saying what OpenCL lacks") {
  cc::testing::name_device();
  const std::string device = cc::testing::opencl().devices()[cc::testing::device_under_test()].id;
  const std::string job =
      fmt::format("--backend opencl --device {} --variant tma,cluster --size 9x7 --filter box:r=1 --no-peaks", device);
  // Nothing runs, so the status says so (exit 2) after the reports are written.
  const Piped json = run_convcompare(job + " --quiet --json -");
  CHECK(json.status == 2);
  const nlohmann::json report = nlohmann::json::parse(json.out);
  REQUIRE(report["runs"].size() == 2);
  for (const nlohmann::json& run : report["runs"]) {
    const std::string variant = run["variant"];
    CAPTURE(variant);
    CHECK(run["backend"] == "opencl");
    CHECK(run["device"] == device);
    CHECK(run["status"] == "skipped");
    CHECK(run["reason"] == std::string(cc::find_variant(variant)->absent_reason));
  }
  CHECK(report["runs"][0]["reason"] == "OpenCL has no thread-block clusters");
  CHECK(std::string(report["runs"][1]["reason"]).starts_with("OpenCL has no tensor memory accelerator"));

  const Piped console = run_convcompare(job);
  CHECK(console.status == 2);
  CHECK(console.out.find("cluster  skipped  OpenCL has no thread-block clusters") != std::string::npos);
  CHECK(console.out.find("tma      skipped  OpenCL has no tensor memory accelerator") != std::string::npos);
}
