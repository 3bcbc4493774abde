// test_report.cpp: derived rates and the four printers (console, markdown, CSV, JSON) on a small report.
#include <doctest/doctest.h>

#include <cmath>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/report.h"
#include "common/variants.h"

namespace {

cc::RunRecord run(std::string backend, std::string variant, cc::Status status, double kernel_median_ms,
                  std::string filter = "box:r=1") {
  cc::RunRecord r;
  r.backend = std::move(backend);
  r.device = r.backend == "cpu" ? "AMD EPYC 7B13 64-Core Processor" : "NVIDIA H100 80GB HBM3";
  r.variant = std::move(variant);
  r.filter = std::move(filter);
  r.width = 2048, r.height = 2048, r.channels = 1, r.radius_x = 1, r.radius_y = 1;
  r.border = "zero";
  r.status = status;
  if (status != cc::Status::Skipped) {
    r.times.kernel_ms = cc::summarize({kernel_median_ms, kernel_median_ms * 0.9, kernel_median_ms * 1.2});
    r.max_abs_error = 1.5e-5;
    r.rel_l2_error = 2e-7;
    r.tolerance = 3e-4;
  }
  cc::derive_rates(r);
  return r;
}

cc::Report sample_report() {
  cc::Report report;
  report.tool_version = "0.1.0";
  report.environment = {{"host", "testhost"}, {"compiler", "GCC 12"}};
  report.devices = {{"cpu", "cpu", "AMD EPYC 7B13 64-Core Processor", {{"threads", "2"}}},
                    {"cuda", "cuda:0", "NVIDIA H100 80GB HBM3", {{"sm", "9.0"}, {"constant", "65536"}}}};
  report.runs.push_back(run("cpu", "naive", cc::Status::Ok, 100.0));
  cc::RunRecord cuda = run("cuda", "global", cc::Status::Ok, 0.5);
  cuda.times.h2d_ms = 0.3, cuda.times.d2h_ms = 0.31, cuda.times.setup_ms = 0.1, cuda.times.build_ms = 12;
  cuda.memory = "pinned";
  report.runs.push_back(cuda);
  report.runs.push_back(run("opencl", "global", cc::Status::Ok, 0.55));
  cc::RunRecord skipped = run("opencl", "texture", cc::Status::Skipped, 0);
  skipped.reason = "image2d_t unsupported, \"mirror\" needs normalized coordinates";
  report.runs.push_back(skipped);
  cc::RunRecord failed = run("cuda", "texture", cc::Status::Failed, 0.4);
  failed.reason = "pixel (0, 0) channel 0: got nan, expected 1 (non-finite mismatch)";
  report.runs.push_back(failed);
  report.runs.push_back(run("cpu", "fast", cc::Status::Ok, 3.0, "gaussian:sigma=2"));
  return report;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace

TEST_CASE("record: status names and derived rates") {
  CHECK(cc::to_string(cc::Status::Ok) == "ok");
  CHECK(cc::to_string(cc::Status::Failed) == "failed");
  CHECK(cc::to_string(cc::Status::Skipped) == "skipped");

  cc::RunRecord r;
  r.status = cc::Status::Ok;
  r.width = 2000, r.height = 1000, r.channels = 1, r.radius_x = 1, r.radius_y = 2;  // 3 x 5 = 15 taps
  r.times.kernel_ms = cc::summarize({2.0});
  cc::derive_rates(r);
  CHECK(r.mpix_per_s == doctest::Approx(1000));   // 2 Mpix in 2 ms
  CHECK(r.gb_per_s == doctest::Approx(8));        // 2e6 * (4 + 4) bytes in 2 ms
  CHECK(r.gflop_per_s == doctest::Approx(30));    // 2 * 15 * 2e6 flop in 2 ms

  cc::RunRecord never_ran = r;
  never_ran.status = cc::Status::Skipped;
  never_ran.mpix_per_s = never_ran.gb_per_s = never_ran.gflop_per_s = cc::kNotMeasured;
  cc::derive_rates(never_ran);
  CHECK(std::isnan(never_ran.mpix_per_s));
  CHECK(std::isnan(never_ran.gflop_per_s));
}

TEST_CASE("variants: find_variant") {
  REQUIRE(cc::find_variant("tiled") != nullptr);
  CHECK(cc::find_variant("tiled")->name == "tiled");
  CHECK(cc::find_variant("tiled")->memory_space.find("__shared__") != std::string_view::npos);
  CHECK(cc::find_variant("naive") == &cc::all_variants()[0]);
  CHECK(cc::find_variant("warp-speed") == nullptr);
}

TEST_CASE("report: JSON carries every DESIGN.md field, NaN as null") {
  std::ostringstream out;
  cc::write_json(sample_report(), out);
  const nlohmann::json j = nlohmann::json::parse(out.str());
  CHECK(j["tool"]["name"] == "convcompare");
  CHECK(j["tool"]["version"] == "0.1.0");
  CHECK(j["environment"]["host"] == "testhost");
  REQUIRE(j["devices"].size() == 2);
  CHECK(j["devices"][1]["id"] == "cuda:0");
  CHECK(j["devices"][1]["backend"] == "cuda");
  CHECK(j["devices"][1]["name"] == "NVIDIA H100 80GB HBM3");
  CHECK(j["devices"][1]["properties"]["constant"] == "65536");
  REQUIRE(j["runs"].size() == 6);

  for (const auto& r : j["runs"]) {
    for (const char* key : {"backend", "device", "variant", "filter", "width", "height", "channels", "radius_x",
                            "radius_y", "border", "status", "reason", "max_abs_error", "rel_l2_error", "tolerance",
                            "kernel_ms", "h2d_ms", "d2h_ms", "setup_ms", "build_ms", "mpix_per_s", "gb_per_s",
                            "gflop_per_s", "output"}) {
      CAPTURE(key);
      CHECK(r.contains(key));
    }
    for (const char* key : {"median", "min", "max", "mean", "stddev", "samples"}) {
      CAPTURE(key);
      CHECK(r["kernel_ms"].contains(key));
    }
    // Every CSV column is a key, kernel_ms_* nested instead of flat.
    for (const std::string& column : cc::csv_columns())
      if (!column.starts_with("kernel_ms_")) CHECK(r.contains(column));
    CHECK_FALSE(r.contains("kernel_ms_median"));
  }

  const auto& cpu = j["runs"][0];
  CHECK(cpu["backend"] == "cpu");
  CHECK(cpu["status"] == "ok");
  CHECK(cpu["width"] == 2048);
  CHECK(cpu["kernel_ms"]["median"] == 100.0);
  CHECK(cpu["kernel_ms"]["samples"] == 3);
  CHECK(cpu["max_abs_error"] == 1.5e-5);
  CHECK(cpu["h2d_ms"].is_null());  // the CPU has no transfer: NaN in the record
  CHECK(cpu["build_ms"].is_null());
  CHECK(cpu["mpix_per_s"].get<double>() == doctest::Approx(2048 * 2048 / 1e6 / 0.1));

  const auto& cuda = j["runs"][1];
  CHECK(cuda["h2d_ms"] == 0.3);
  CHECK(cuda["build_ms"] == 12.0);
  CHECK(cuda["memory"] == "pinned");

  const auto& skipped = j["runs"][3];
  CHECK(skipped["status"] == "skipped");
  CHECK(skipped["reason"] == "image2d_t unsupported, \"mirror\" needs normalized coordinates");
  CHECK(skipped["kernel_ms"]["median"].is_null());
  CHECK(skipped["kernel_ms"]["samples"] == 0);
  CHECK(skipped["max_abs_error"].is_null());
  CHECK(skipped["gflop_per_s"].is_null());
}

TEST_CASE("report: CSV header is csv_columns, fields quoted per RFC 4180, NaN empty") {
  const std::vector<std::string> columns = cc::csv_columns();
  const std::vector<std::string> expected = {
      "backend", "device", "variant", "filter", "width", "height", "channels", "radius_x", "radius_y", "border",
      "flip", "status", "reason", "max_abs_error", "rel_l2_error", "tolerance", "exact", "kernel_ms_median",
      "kernel_ms_min", "kernel_ms_max", "kernel_ms_mean", "kernel_ms_stddev", "kernel_ms_samples",
      "kernel_batch_ms", "h2d_ms", "d2h_ms", "setup_ms", "build_ms", "host_to_host_ms", "mpix_per_s", "gb_per_s",
      "gflop_per_s", "memory", "compile_time", "output"};
  CHECK(columns == expected);

  std::ostringstream out;
  cc::write_csv(sample_report(), out);
  const auto lines = lines_of(out.str());
  REQUIRE(lines.size() == 7);
  CHECK(lines[0] == fmt::format("{}", fmt::join(columns, ",")));
  CHECK(lines[4].find(",\"image2d_t unsupported, \"\"mirror\"\" needs normalized coordinates\",") != std::string::npos);

  // The CPU row has no quoted field, so a plain split gives the cells.
  std::vector<std::string> cells;
  std::istringstream row(lines[1]);
  for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
  if (lines[1].back() == ',') cells.push_back("");
  REQUIRE(cells.size() == columns.size());
  auto cell = [&](std::string_view name) {
    return cells[std::find(columns.begin(), columns.end(), name) - columns.begin()];
  };
  CHECK(cell("backend") == "cpu");
  CHECK(cell("variant") == "naive");
  CHECK(cell("flip") == "false");
  CHECK(cell("kernel_ms_median") == "100");
  CHECK(cell("kernel_ms_samples") == "3");
  CHECK(cell("max_abs_error") == "1.5e-05");
  CHECK(cell("h2d_ms").empty());
  CHECK(cell("output").empty());
}

TEST_CASE("report: console table per problem, with the OpenCL/CUDA ratio") {
  std::ostringstream out;
  cc::print_console(sample_report(), out);
  const std::string text = out.str();
  CAPTURE(text);
  CHECK(text.find("box:r=1  2048x2048x1  r=1x1  border zero") != std::string::npos);
  CHECK(text.find("gaussian:sigma=2  2048x2048x1  r=1x1  border zero") != std::string::npos);
  for (const char* word : {"naive", "global", "texture", "fast", "skipped", "failed", "kernel", "GFLOP/s", "(times in ms)"}) {
    CAPTURE(word);
    CHECK(text.find(word) != std::string::npos);
  }
  // Only the first problem has a variant two backends completed: global, 0.55 / 0.5.
  CHECK(text.find("\n  global:   opencl/cuda 1.10\n") != std::string::npos);
  CHECK(text.find("kernel time ratios") == text.rfind("kernel time ratios"));
  CHECK(text.find("texture:") == std::string::npos);  // one texture run failed, the other skipped
  // Reasons show within 120 columns: a skipped row's in place of its numbers, a failed row's below it.
  CHECK(text.find("skipped  image2d_t unsupported, \"mirror\" needs normalized coordinates\n") != std::string::npos);
  CHECK(text.find("\n         ^ pixel (0, 0) channel 0: got nan, expected 1 (non-finite mismatch)\n") != std::string::npos);
  for (const std::string& line : lines_of(text)) {
    CAPTURE(line);
    CHECK(line.size() <= 120);
  }
  // Columns line up: every row of the first table has "ok"/"skipped"/"failed" at the status column.
  const auto lines = lines_of(text);
  const auto header = std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.starts_with("backend"); });
  REQUIRE(header != lines.end());
  const std::size_t status_column = header->find("status");
  for (int i = 1; i <= 5; ++i) {
    const std::string status = (header + i)->substr(status_column, 7);
    CHECK((status == "ok     " || status == "skipped" || status == "failed "));
  }
}

TEST_CASE("report: markdown has the same tables and ratios") {
  std::ostringstream out;
  cc::write_markdown(sample_report(), out);
  const std::string text = out.str();
  CAPTURE(text);
  CHECK(text.find("## box:r=1  2048x2048x1  r=1x1  border zero") != std::string::npos);
  CHECK(text.find("| backend | device | variant | memory | status | kernel |") != std::string::npos);
  CHECK(text.find("| cuda | NVIDIA H100 80GB HBM3 | global | pinned | ok | 0.500 |") != std::string::npos);
  CHECK(text.find("\n- global:   opencl/cuda 1.10\n") != std::string::npos);
  CHECK(text.find("`cuda:0` (cuda): NVIDIA H100 80GB HBM3") != std::string::npos);
}
