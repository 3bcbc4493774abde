// test_report.cpp: derived rates, the field tables, and the four printers (console, markdown, CSV, JSON) on a small report.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <variant>

#include <fmt/format.h>

#include <fstream>
#include <regex>
#include <set>
#include <nlohmann/json.hpp>

#include "common/domain/variants.h"
#include "common/report/fields.h"
#include "common/report/printer.h"
#include "common/report/report.h"
#include "common/report/report_read.h"
#include "common/report/tables.h"
#include "tests/support/text.h"

using cc::test::lines_of;
using cc::test::words_of;

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
  report.devices = {{"cpu", "cpu", "AMD EPYC 7B13 64-Core Processor", {{"threads", "2"}}, cc::DevicePeaks{}},
                    {"cuda", "cuda:0", "NVIDIA H100 80GB HBM3",
                     {{"sm", "9.0"}, {"multiprocessors", "132"}, {"global memory", "79.1 GB"}, {"constant", "65536"}},
                     cc::DevicePeaks{3012.46, 51234.2, {}}}};
  report.runs.push_back(run("cpu", "naive", cc::Status::Ok, 100.0));
  cc::RunRecord cuda = run("cuda", "global", cc::Status::Ok, 0.5);
  cuda.times.h2d_ms = 0.3, cuda.times.d2h_ms = 0.31, cuda.times.setup_ms = 0.1, cuda.times.build_ms = 12;
  cuda.times.host_to_host_ms = 1.2, cuda.times.reuse_ms = 0.8;
  cuda.memory = "pinned";
  cuda.device_mb = 32.5, cuda.bound = "dram", cuda.bound_percent = 63.4, cuda.direct_bound_percent = 63.4;
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

// Two --stream runs of one problem: one that ran, one its backend skipped.
cc::Report stream_report() {
  cc::Report report;
  cc::StreamRecord ran;
  ran.backend = "cuda", ran.device = "NVIDIA H100 80GB HBM3", ran.variant = "fast", ran.filter = "box:r=2";
  ran.width = 1920, ran.height = 1080, ran.channels = 3, ran.frames = 100, ran.memory = "pinned";
  ran.status = cc::Status::Ok;
  ran.queues = 3, ran.total_ms = 250, ran.frames_per_s = 400, ran.serial_ms_per_frame = 4;
  ran.pcie_floor_ms_per_frame = 2.2, ran.floor_fraction = 0.88, ran.max_abs_error = 1e-6;
  cc::StreamRecord skipped = ran;
  skipped.backend = "cpu", skipped.device = "cpu", skipped.variant = "naive", skipped.status = cc::Status::Skipped;
  skipped.reason = "no transfers to overlap on this backend";
  skipped.queues = 0;
  skipped.total_ms = skipped.frames_per_s = skipped.serial_ms_per_frame = skipped.pcie_floor_ms_per_frame =
      skipped.floor_fraction = skipped.max_abs_error = cc::kNotMeasured;
  report.streams = {ran, skipped};
  return report;
}

// The first line of `text` that starts with `start`, after the line that starts with `after`.
std::string line_starting(const std::string& text, const std::string& start, const std::string& after = "") {
  bool seen = after.empty();
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (seen && line.starts_with(start)) return line;
    seen |= !after.empty() && line.starts_with(after);
  }
  return "";
}

// The n-th field's value of `kind`: none is a default, and no two fields of a kind share one, so a
// field the reader skips, or reads into another's place, differs after a round trip.
cc::FieldValue distinct_value(cc::FieldKind kind, int n) {
  switch (kind) {
    case cc::FieldKind::Text: return fmt::format("text {}", n);
    case cc::FieldKind::Number: return 1000.25 + n;
    case cc::FieldKind::Integer: return 100 + n;
    case cc::FieldKind::Flag: return true;  // the only value that is not the default
    case cc::FieldKind::Status: return cc::Status::Failed;
    case cc::FieldKind::Pairs: return cc::TextPairs{{fmt::format("name {}", n), fmt::format("value {}", n)}};
    case cc::FieldKind::Numbers: return std::vector<double>{1000.5 + n, 0.25};
    case cc::FieldKind::Texts: return std::vector<std::string>{fmt::format("word {}", n), "--flag"};
  }
  return {};
}

template <typename Record>
Record filled(const std::vector<cc::Field<Record>>& fields) {
  Record record;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const cc::FieldValue value = distinct_value(fields[i].kind, static_cast<int>(i));
    CAPTURE(fields[i].column());
    REQUIRE(value != fields[i].get(Record{}));
    fields[i].set(record, value);
  }
  return record;
}

template <typename Record>
void check_same_fields(const Record& written, const Record& read, const std::vector<cc::Field<Record>>& fields) {
  for (const cc::Field<Record>& field : fields) {
    CAPTURE(field.column());
    CHECK(field.get(read) == field.get(written));
  }
}

// A value as a CSV cell, for values that need no quoting.
std::string csv_cell(const cc::FieldValue& value) {
  struct Render {
    std::string operator()(std::monostate) const { return ""; }
    std::string operator()(const std::string& text) const { return text; }
    std::string operator()(double number) const { return fmt::format("{}", number); }
    std::string operator()(int integer) const { return std::to_string(integer); }
    std::string operator()(bool flag) const { return flag ? "true" : "false"; }
    std::string operator()(cc::Status status) const { return std::string(cc::to_string(status)); }
    std::string operator()(const cc::TextPairs&) const { return "(pairs are not CSV cells)"; }
    // Lists: space-separated in one cell.
    std::string operator()(const std::vector<double>& numbers) const { return fmt::format("{}", fmt::join(numbers, " ")); }
    std::string operator()(const std::vector<std::string>& texts) const { return fmt::format("{}", fmt::join(texts, " ")); }
  };
  return std::visit(Render{}, value);
}

std::vector<std::string> split(const std::string& line, char separator) {
  std::vector<std::string> parts;
  std::istringstream in(line);
  for (std::string part; std::getline(in, part, separator);) parts.push_back(part);
  if (!line.empty() && line.back() == separator) parts.push_back("");
  return parts;
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
  // Three channels: MPix/s counts pixels, not samples; bytes and flops count every channel.
  r.channels = 3;
  cc::derive_rates(r);
  CHECK(r.mpix_per_s == doctest::Approx(1000));
  CHECK(r.gb_per_s == doctest::Approx(24));
  CHECK(r.gflop_per_s == doctest::Approx(90));

  cc::RunRecord never_ran = r;
  never_ran.status = cc::Status::Skipped;
  never_ran.mpix_per_s = never_ran.gb_per_s = never_ran.gflop_per_s = cc::kNotMeasured;
  cc::derive_rates(never_ran);
  CHECK(std::isnan(never_ran.mpix_per_s));
  CHECK(std::isnan(never_ran.gflop_per_s));
}

TEST_CASE("record: % bound against DRAM or FP32, whichever takes longer; separable counts its 1D taps") {
  const cc::DevicePeaks peaks{.copy_gb_per_s = 1000, .fma_gflop_per_s = 10000, .untimed = {}};
  cc::RunRecord r;
  r.status = cc::Status::Ok;
  r.variant = "fast";
  r.width = 1000, r.height = 1000, r.channels = 1, r.radius_x = r.radius_y = 1;  // 9 taps
  r.times.kernel_ms = cc::summarize({0.016});
  cc::derive_bound(r, peaks);
  // DRAM: 8 MB at 1000 GB/s = 0.008 ms; FP32: 18 Mflop at 10 TFLOP/s = 0.0018 ms.
  CHECK(r.bound == "dram");
  CHECK(r.bound_percent == doctest::Approx(50));

  r.radius_x = r.radius_y = 16;  // 33 x 33 = 1089 taps: 2.178 Gflop = 0.2178 ms
  r.times.kernel_ms = cc::summarize({0.4356});
  cc::derive_bound(r, peaks);
  CHECK(r.bound == "fp32");
  CHECK(r.bound_percent == doctest::Approx(50));

  CHECK(r.direct_bound_percent == doctest::Approx(50));  // fast does the direct sum's work: the same figure

  r.variant = "separable";  // 33 + 33 taps: 132 Mflop = 0.0132 ms, not the 2D sum's 0.2178
  r.times.kernel_ms = cc::summarize({0.0264});
  cc::derive_bound(r, peaks);
  CHECK(r.bound == "fp32");
  CHECK(r.bound_percent == doctest::Approx(50));
  // Against the problem's work, the 2D sum's 0.2178 ms: 8.25 times what a direct sum could reach, so a
  // separable run and a direct one rank as their times do, whatever each one's own % bound says.
  CHECK(r.direct_bound_percent == doctest::Approx(100 * 0.2178 / 0.0264));
  r.variant = "fft";  // no taps of its own, so no % bound; % direct still ranks it
  r.bound.clear();
  r.bound_percent = cc::kNotMeasured;
  cc::derive_bound(r, peaks);
  CHECK(r.bound.empty());
  CHECK(std::isnan(r.bound_percent));
  CHECK(r.direct_bound_percent == doctest::Approx(100 * 0.2178 / 0.0264));
  r.radius_x = r.radius_y = 1;  // 9 taps: DRAM's 0.008 ms bounds the direct sum
  cc::derive_bound(r, peaks);
  CHECK(r.direct_bound_percent == doctest::Approx(100 * 0.008 / 0.0264));
  r.radius_x = r.radius_y = 16;

  // lowrank's k terms: k x (33 + 33) taps, 2 terms = 264 Mflop = 0.0264 ms, not the 2D sum's 0.2178.
  r.variant = "lowrank";
  r.terms = 2;
  r.times.kernel_ms = cc::summarize({0.0528});
  cc::derive_bound(r, peaks);
  CHECK(r.bound == "fp32");
  CHECK(r.bound_percent == doctest::Approx(50));
  r.terms = 4;  // 528 Mflop = 0.0528 ms
  cc::derive_bound(r, peaks);
  CHECK(r.bound_percent == doctest::Approx(100));
  r.terms = 0;  // unknown (a report from before "terms"): the 2D sum, as any direct variant
  cc::derive_bound(r, peaks);
  CHECK(r.bound_percent == doctest::Approx(100 * 0.2178 / 0.0528));

  // An auto run counts the work of the variant it ran, read from its note.
  r.variant = "auto";
  r.terms = 2;
  r.compile_time = "auto: lowrank (measured; lowrank 0.05 ms, fast 0.2 ms); radius: compile-time";
  cc::derive_bound(r, peaks);
  CHECK(r.bound_percent == doctest::Approx(50));
  r.terms = 0;
  r.compile_time = "auto: separable (measured; separable 0.03 ms); radius: compile-time";
  r.times.kernel_ms = cc::summarize({0.0264});
  cc::derive_bound(r, peaks);
  CHECK(r.bound_percent == doctest::Approx(50));
}

TEST_CASE("variants: find_variant") {
  REQUIRE(cc::find_variant("tiled") != nullptr);
  CHECK(cc::find_variant("tiled")->name == "tiled");
  CHECK(cc::find_variant("tiled")->memory_space.find("__shared__") != std::string_view::npos);
  CHECK(cc::find_variant("naive") == &cc::all_variants()[0]);
  CHECK(cc::find_variant("warp-speed") == nullptr);
}

namespace {

// A report with one device, one run and one stream, every field of each table set to a value not its default.
cc::Report filled_report() {
  cc::Report report = filled(cc::report_fields());
  report.devices = {filled(cc::device_fields())};
  report.runs = {filled(cc::run_fields())};
  report.streams = {filled(cc::stream_fields())};
  return report;
}

}  // namespace

TEST_CASE("report fields: every field of every table reads back from JSON; every run field is a CSV cell") {
  cc::Report report = filled_report();
  std::ostringstream json;
  cc::write_json(report, json);
  const cc::Report back = cc::parse_json_report(json.str(), "fields.json");
  check_same_fields(report, back, cc::report_fields());
  REQUIRE(back.devices.size() == 1);
  check_same_fields(report.devices[0], back.devices[0], cc::device_fields());
  REQUIRE(back.runs.size() == 1);
  check_same_fields(report.runs[0], back.runs[0], cc::run_fields());
  REQUIRE(back.streams.size() == 1);
  check_same_fields(report.streams[0], back.streams[0], cc::stream_fields());

  std::ostringstream csv;
  cc::write_csv(report, csv);
  const auto lines = lines_of(csv.str());
  REQUIRE(lines.size() == 1 + report.devices.size() + 1 + 1);  // the header, the devices, the run, the stream
  const auto run_line = std::ranges::find_if(lines, [](const std::string& line) { return line.starts_with("run,"); });
  REQUIRE(run_line != lines.end());
  const std::vector<std::string> columns = split(lines[0], ','), cells = split(*run_line, ',');
  REQUIRE(cells.size() == columns.size());
  for (const cc::Field<cc::RunRecord>& field : cc::run_fields()) {
    CAPTURE(field.column());
    const auto column = std::find(columns.begin(), columns.end(), field.column());
    REQUIRE(column != columns.end());
    CHECK(cells[column - columns.begin()] == csv_cell(field.get(report.runs[0])));
  }
}

TEST_CASE("report fields: a field whose default means none is written as nothing until it holds a value") {
  struct Probe {
    std::string untimed;
  };
  const cc::Field<Probe> field = cc::field<&Probe::untimed>("untimed", cc::kNullWhenDefault);
  CHECK(field.kind == cc::FieldKind::Text);
  CHECK(std::holds_alternative<std::monostate>(field.written(Probe{})));
  CHECK(field.written(Probe{"no device events"}) == cc::FieldValue(std::string("no device events")));
  CHECK(cc::field<&Probe::untimed>("untimed").written(Probe{}) == cc::FieldValue(std::string()));
}

TEST_CASE("printer: make_printer gives each format's writer behind the one interface") {
  cc::Report report = sample_report();
  report.streams = stream_report().streams;
  using Writer = void (*)(const cc::Report&, std::ostream&);
  const Writer console = [](const cc::Report& r, std::ostream& out) { cc::print_console(r, out); };
  const std::vector<std::pair<cc::ReportFormat, Writer>> formats = {{cc::ReportFormat::Console, console},
                                                                    {cc::ReportFormat::Markdown, cc::write_markdown},
                                                                    {cc::ReportFormat::Csv, cc::write_csv},
                                                                    {cc::ReportFormat::Json, cc::write_json}};
  for (const auto& [format, writer] : formats) {
    CAPTURE(static_cast<int>(format));
    std::ostringstream expected, printed;
    writer(report, expected);
    const std::unique_ptr<cc::Printer> printer = cc::make_printer(format);
    REQUIRE(printer != nullptr);
    printer->print(report, printed);
    CHECK(printed.str() == expected.str());
  }
  std::ostringstream verbose, printed;
  cc::print_console(report, verbose, true);
  cc::make_printer(cc::ReportFormat::Console, true)->print(report, printed);
  CHECK(printed.str() == verbose.str());
  CHECK(printed.str().find("GFLOP/s") != std::string::npos);
}

TEST_CASE("report: JSON carries every docs/json-schema.md field, NaN as null") {
  cc::Report report = sample_report();
  report.streams = stream_report().streams;
  std::ostringstream out;
  cc::write_json(report, out);
  const nlohmann::json j = nlohmann::json::parse(out.str());
  CHECK(j["tool"]["name"] == "convcompare");
  CHECK(j["tool"]["version"] == "0.1.0");
  CHECK(j["environment"]["host"] == "testhost");
  REQUIRE(j["devices"].size() == 2);
  CHECK(j["devices"][1]["id"] == "cuda:0");
  CHECK(j["devices"][1]["backend"] == "cuda");
  CHECK(j["devices"][1]["name"] == "NVIDIA H100 80GB HBM3");
  CHECK(j["devices"][1]["properties"]["constant"] == "65536");
  CHECK(j["devices"][1]["peaks"]["copy_gb_per_s"] == 3012.46);
  CHECK(j["devices"][1]["peaks"]["fma_gflop_per_s"] == 51234.2);
  CHECK(j["devices"][0]["peaks"]["copy_gb_per_s"].is_null());  // not measured
  CHECK(j["devices"][0]["peaks"]["fma_gflop_per_s"].is_null());
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
    // Every run column of the CSV is a key, kernel_ms_* and compare_* nested instead of flat.
    for (const cc::Field<cc::RunRecord>& field : cc::run_fields())
      if (!field.column().starts_with("kernel_ms_") && !field.column().starts_with("compare_"))
        CHECK(r.contains(field.column()));
    CHECK(r["compare"]["verdict"].is_null());  // no --compare
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

  CHECK(cpu["reuse_ms"].is_null());
  CHECK(cpu["device_mb"].is_null());
  CHECK(cpu["bound"] == "");
  CHECK(cpu["bound_percent"].is_null());

  const auto& cuda = j["runs"][1];
  CHECK(cuda["h2d_ms"] == 0.3);
  CHECK(cuda["build_ms"] == 12.0);
  CHECK(cuda["memory"] == "pinned");
  CHECK(cuda["reuse_ms"] == 0.8);
  CHECK(cuda["device_mb"] == 32.5);
  CHECK(cuda["bound"] == "dram");
  CHECK(cuda["bound_percent"] == 63.4);

  // --stream records: JSON only, with StreamRecord's names; absent measurements are null.
  REQUIRE(j["streams"].size() == 2);
  const auto& s = j["streams"][0];
  const std::vector<std::string> stream_keys = {
      "backend", "device", "variant", "filter", "width", "height", "channels", "frames", "pixel", "memory", "memory_note",
      "status", "reason", "queues", "total_ms", "frames_per_s", "serial_ms_per_frame", "pcie_floor_ms_per_frame",
      "floor_fraction", "max_abs_error", "untimed", "frames_per_device"};
  const auto ordered = nlohmann::ordered_json::parse(out.str());
  std::vector<std::string> keys;
  for (const auto& item : ordered["streams"][0].items()) keys.push_back(item.key());
  CHECK(keys == stream_keys);  // record.h's order
  CHECK(s["status"] == "ok");
  CHECK(s["frames"] == 100);
  CHECK(s["queues"] == 3);
  CHECK(s["frames_per_s"] == 400.0);
  CHECK(s["floor_fraction"] == 0.88);
  CHECK(j["streams"][1]["status"] == "skipped");
  CHECK(j["streams"][1]["reason"] == "no transfers to overlap on this backend");
  CHECK(j["streams"][1]["floor_fraction"].is_null());

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
      "record", "backend", "device", "variant", "filter", "width", "height", "channels", "radius_x", "radius_y", "border",
      "flip", "pixel", "status", "reason", "max_abs_error", "rel_l2_error", "tolerance", "exact", "kernel_ms_median",
      "kernel_ms_min", "kernel_ms_max", "kernel_ms_mean", "kernel_ms_stddev", "kernel_ms_samples",
      "kernel_ms_noise_percent", "kernel_samples_ms", "stopped_by", "budget_skipped", "cold",
      "kernel_batch_ms", "h2d_ms", "d2h_ms", "setup_ms", "build_ms", "host_to_host_ms", "reuse_ms", "untimed", "mpix_per_s",
      "gb_per_s", "gflop_per_s", "device_mb", "bound", "bound_percent", "direct_bound_percent", "terms", "memory", "memory_note", "compile_time",
      "output",
      "compare_verdict", "compare_ratio", "compare_p_value", "compare_threshold", "compare_reason",
      // then what only stream runs and devices have (the CSV is complete)
      "frames", "queues", "total_ms", "frames_per_s", "serial_ms_per_frame", "pcie_floor_ms_per_frame",
      "floor_fraction", "frames_per_device", "id", "name", "properties", "peaks_copy_gb_per_s", "peaks_fma_gflop_per_s", "peaks_untimed",
      "compute_units", "global_memory_bytes", "cache_bytes",
      // last, the report's own mark of an interrupted job, on every line
      "incomplete"};
  CHECK(columns == expected);

  // A line per device, per run and per stream run, each saying which in its first cell.
  cc::Report report = sample_report();
  report.streams = stream_report().streams;
  std::ostringstream out;
  cc::write_csv(report, out);
  const auto lines = lines_of(out.str());
  REQUIRE(lines.size() == 1 + 2 + 6 + 2);
  CHECK(lines[0] == fmt::format("{}", fmt::join(columns, ",")));
  CHECK(lines[1].starts_with("device,cpu,"));
  CHECK(lines[2].starts_with("device,cuda,"));
  CHECK(lines[2].find(",3012.46,51234.2") != std::string::npos);  // the measured peaks
  CHECK(lines[3].starts_with("run,cpu,"));
  CHECK(lines[3].find(",naive,") != std::string::npos);
  CHECK(lines[9].starts_with("stream,cuda,"));
  CHECK(lines[9].find(",400,4,2.2,0.88,") != std::string::npos);  // frames/s, serial, floor, fraction
  CHECK(lines[10].starts_with("stream,cpu,"));
  for (std::size_t i = 1; i < lines.size(); ++i) CHECK(lines[i].ends_with(","));  // not interrupted: empty
  report.incomplete = "interrupted by SIGINT after 6 runs";
  std::ostringstream interrupted;
  cc::write_csv(report, interrupted);
  for (const std::string& line : lines_of(interrupted.str()))
    if (!line.starts_with("record,")) CHECK(line.ends_with(",interrupted by SIGINT after 6 runs"));
  CHECK(lines[6].find(",\"image2d_t unsupported, \"\"mirror\"\" needs normalized coordinates\",") != std::string::npos);

  // The CPU row has no quoted field, so a plain split gives the cells.
  std::vector<std::string> cells;
  std::istringstream row(lines[3]);
  for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
  if (lines[3].back() == ',') cells.push_back("");
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
  CHECK(cell("reuse_ms").empty());
  CHECK(cell("bound").empty());
  CHECK(cell("output").empty());
}

TEST_CASE("report: console starts with the device block: units, memory, measured ceilings") {
  std::ostringstream out;
  cc::print_console(sample_report(), out);
  const std::string text = out.str();
  CAPTURE(text);
  CHECK(text.starts_with("devices (copy and FMA rates: measured on the devices that ran)\n"));
  CHECK(text.find("devices (") < text.find("box:r=1  2048x2048x1"));
  CHECK(words_of(line_starting(text, "device ")) ==
        std::vector<std::string>{"device", "name", "units", "memory", "copy", "GB/s", "FMA", "GFLOP/s"});
  CHECK(words_of(line_starting(text, "cuda:0 ")) ==
        std::vector<std::string>{"cuda:0", "NVIDIA", "H100", "80GB", "HBM3", "132", "SMs", "79.1", "GB", "3012", "51234"});
  // The CPU reports its threads and no memory; nothing measured its ceilings.
  CHECK(words_of(line_starting(text, "cpu ")) == std::vector<std::string>{"cpu", "AMD", "EPYC", "7B13", "64-Core",
                                                                          "Proces..", "2", "threads", "-", "-", "-"});
  // The full name in the detail view.
  std::ostringstream verbose;
  cc::print_console(sample_report(), verbose, true);
  CHECK(words_of(line_starting(verbose.str(), "cpu ")) == std::vector<std::string>{"cpu", "AMD", "EPYC", "7B13", "64-Core",
                                                                                   "Processor", "2", "threads", "-", "-", "-"});
}

TEST_CASE("report: console's compact table fits in 100 columns: device, variant, kernel, noise, n, rates, % bound, max err") {
  std::ostringstream out;
  cc::print_console(sample_report(), out);
  const std::string text = out.str();
  CAPTURE(text);
  for (const std::string& line : lines_of(text)) {
    CAPTURE(line);
    CHECK(line.size() <= 100);
  }
  CHECK(words_of(line_starting(text, "device ", "box:r=1")) ==
        std::vector<std::string>{"device", "variant", "status", "kernel", "noise", "n", "MPix/s", "GB/s", "%", "bound",
                                 "%", "direct", "max", "err"});
  CHECK(words_of(line_starting(text, "NVIDIA ", "box:r=1")) ==
        std::vector<std::string>{"NVIDIA", "H100", "80..", "global", "ok", "0.500", "15%", "3", "8389", "67.11", "63%",
                                 "dram", "63%", "1.5e-05"});
  CHECK(text.find("\n  global:   opencl/cuda 1.10\n") != std::string::npos);
  CHECK(text.find("GFLOP/s  ") == std::string::npos);  // the device block's "FMA GFLOP/s" ends its line
}

TEST_CASE("report: the fastest line of a problem: by kernel median, multiples of the fastest, noise said") {
  cc::RunRecord separable = run("opencl", "separable", cc::Status::Ok, 0.1);
  cc::RunRecord fast = run("opencl", "fast", cc::Status::Ok, 0.105);  // 1.05x inside 3 x the 15% noises
  cc::RunRecord naive = run("opencl", "naive", cc::Status::Ok, 1.0);
  cc::RunRecord texture = run("opencl", "texture", cc::Status::Skipped, 0);
  cc::RunRecord wrong = run("opencl", "tiled", cc::Status::Failed, 0.01);  // fastest, but failed: not a winner
  for (cc::RunRecord* r : {&separable, &fast, &naive, &texture, &wrong}) r->device = "opencl:0:0";
  cc::report_tables::Group group{"box", {&naive, &texture, &fast, &wrong, &separable}};
  CHECK(cc::report_tables::fastest_line(group) ==
        "fastest: separable on opencl:0:0, 0.100 ms (15% noise); fast 1.05x (within noise), naive 10.00x");
  // Cut at a whole entry.
  CHECK(cc::report_tables::fastest_line(group, 60) == "fastest: separable on opencl:0:0, 0.100 ms (15% noise), ...");
  // Two devices: each run named by its device too.
  cc::RunRecord cpu = run("cpu", "fast", cc::Status::Ok, 0.3);
  cpu.device = "cpu";
  cpu.times.kernel_ms = cc::summarize({0.3});  // one sample: its noise is not known, so neither is "within"
  group.records = {&cpu, &separable};
  CHECK(cc::report_tables::fastest_line(group) == "fastest: separable on opencl:0:0, 0.100 ms (15% noise); cpu fast 3.00x");
  group.records = {&cpu};
  CHECK(cc::report_tables::fastest_line(group) == "fastest: fast on cpu, 0.300 ms (n = 1)");
  group.records = {&texture, &wrong};
  CHECK(cc::report_tables::fastest_line(group).empty());
}

TEST_CASE("report: console's one-line legend of its columns, once, and a fastest line under each problem") {
  std::ostringstream out;
  cc::print_console(sample_report(), out);
  const std::string text = out.str();
  CAPTURE(text);
  const std::string legend = cc::report_tables::kColumnLegend;
  CHECK(legend.size() <= 100);
  for (const char* column : {"noise", "n samples", "% bound", "% direct", "max err"}) CHECK(legend.find(column) != std::string::npos);
  CHECK(text.find(legend + "\n") != std::string::npos);
  CHECK(text.find(legend) == text.rfind(legend));
  // Its next entry (the OpenCL global, 1.10x) would pass 100 columns: cut.
  CHECK(text.find("\nfastest: global on NVIDIA H100 80.., 0.500 ms (15% noise), ...\n") != std::string::npos);
  CHECK(cc::test::count_of(text, "\nfastest: ") == 2);  // box:r=1 and gaussian:sigma=2
}

TEST_CASE("report: console fits an 80-column terminal: device block, tables and legends") {
  cc::Report report = sample_report();
  report.devices.front().name = "pthread-haswell-AMD EPYC 7B13 64-Core Processor (PoCL 5.0, LLVM 16)";
  {  // --verbose's every column may not fit 80: the compact view does
    std::ostringstream out;
    cc::print_console(report, out, false, 80);
    const std::string text = out.str();
    CAPTURE(text);
    for (const std::string& line : lines_of(text)) {
      CAPTURE(line);
      CHECK(line.size() <= 80);
    }
    CHECK(text.find("setup and transfers (ms); reuse:") != std::string::npos);  // the legend, wrapped
    CHECK(text.find("pthread-haswell") != std::string::npos);                   // the name, shortened
  }
}

// The sample report's first device's runs, each twice: pinned, and in `memory` with its kernel time
// times `slower` and `note` as its memory note.
static cc::Report pinned_and(const std::string& memory, double slower, const std::string& note = "") {
  cc::Report report = sample_report();
  std::vector<cc::RunRecord> one_device;
  for (const cc::RunRecord& run : report.runs)
    if (run.device == report.runs.front().device) {
      one_device.push_back(run);
      one_device.back().memory = "pinned";
      one_device.push_back(run);
      one_device.back().memory = memory;
      one_device.back().memory_note = note;
      one_device.back().times.kernel_ms.median *= slower;
    }
  report.runs = one_device;
  return report;
}

TEST_CASE("report: no kernel ratio between pinned and pageable runs of one kernel on one device") {
  cc::Report report = pinned_and("pageable", 1.2);
  std::ostringstream out;
  cc::print_console(report, out);
  CAPTURE(out.str());
  CHECK(out.str().find("pageable") != std::string::npos);  // both rows are there
  CHECK(out.str().find("kernel time ratios") == std::string::npos);
}

TEST_CASE("report: a mapped run's kernel time is its own figure, with its note") {
  cc::Report report = pinned_and("mapped", 3, "mapped: no upload; the kernel's time holds the host-link traffic");
  std::ostringstream out;
  cc::print_console(report, out);
  CAPTURE(out.str());
  CHECK(out.str().find("mapped: no upload; the kernel's time holds the host-link traffic") != std::string::npos);
  // Kept apart from the pinned run: a ratio names both, not one taken for the other.
  CHECK(out.str().find("kernel time ratios") != std::string::npos);
  CHECK(out.str().find(", mapped]") != std::string::npos);
}

TEST_CASE("report: console names auto's pick and says once that a backend ran nothing") {
  cc::Report report = sample_report();
  cc::RunRecord picked = report.runs[0];
  picked.variant = "auto", picked.compile_time = "auto: fast (measured; fast 0.1 ms); radius: compile time";
  report.runs.push_back(picked);
  for (const char* variant : {"global", "tiled", "fast"}) {
    cc::RunRecord none = report.runs[0];
    none.backend = "cuda", none.device = "-", none.variant = variant, none.status = cc::Status::Skipped;
    none.reason = "no CUDA driver installed";
    none.times = {};
    report.runs.push_back(none);
  }
  std::ostringstream out, markdown;
  cc::print_console(report, out);
  const std::string text = out.str();
  CAPTURE(text);
  CHECK(text.find("auto\u2192fast") != std::string::npos);
  CHECK(std::ranges::count(lines_of(text), std::string("cuda: not run: no CUDA driver installed")) == 1);
  CHECK(text.find("\n-  ") == std::string::npos);  // no row for a device that does not exist
  cc::write_markdown(report, markdown);
  CHECK(markdown.str().find("- cuda: not run: no CUDA driver installed\n") != std::string::npos);
  // The alignment counts "→" as one column: the auto row's status sits under the header's.
  const std::string header = line_starting(text, "device ", "box:r=1");
  const std::string row = line_starting(text, "AMD EPYC 7B13 ..  auto");
  REQUIRE(!row.empty());
  const std::size_t status_byte = row.find(" ok ") + 1;
  const std::size_t status_column = static_cast<std::size_t>(
      std::count_if(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(status_byte),
                    [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
  CHECK(status_column == header.find("status"));
}

TEST_CASE("report: a sweep's console summary: variant columns, a row per radius, one table per device") {
  cc::Report report;
  for (int radius = 1; radius <= 3; ++radius)
    for (const char* variant : {"global", "fast"})
      for (const char* device : {"cuda:0", "opencl:0:0"}) {
        cc::RunRecord r;
        r.backend = std::string(device).starts_with("cuda") ? "cuda" : "opencl";
        r.device = device, r.variant = variant, r.filter = fmt::format("box:r={}", radius);
        r.width = r.height = 256, r.channels = 1, r.radius_x = r.radius_y = radius, r.border = "zero";
        r.status = cc::Status::Ok, r.memory = "pinned";
        r.times.kernel_ms = cc::summarize({0.1 * radius});
        cc::derive_rates(r);
        report.runs.push_back(r);
      }
  report.runs.back().status = cc::Status::Failed;
  report.runs.back().reason = "pixel (0, 0) off";
  std::ostringstream out, verbose, markdown;
  cc::print_console(report, out);
  const std::string text = out.str();
  CAPTURE(text);
  CHECK(text.find("(times in ms)") == std::string::npos);
  CHECK(text.find("sweep summary: box  1 channel  border zero") != std::string::npos);
  CHECK(text.find("failed validation:\n  opencl:0:0 fast box:r=3 256x256 zero: pixel (0, 0) off\n") != std::string::npos);
  CHECK(words_of(line_starting(text, "radius", "cuda:0")) == std::vector<std::string>{"radius", "global", "fast"});
  CHECK(words_of(line_starting(text, "r=1", "cuda:0")) == std::vector<std::string>{"r=1", "655.4", "655.4"});
  CHECK(words_of(line_starting(text, "r=3", "opencl:0:0")) == std::vector<std::string>{"r=3", "218.5", "FAIL"});
  cc::print_console(report, verbose, true);
  CHECK(std::ranges::count(lines_of(verbose.str()), std::string("sweep summary: box  1 channel  border zero")) == 1);
  CHECK(verbose.str().find("(times in ms)") != std::string::npos);
  cc::write_markdown(report, markdown);
  CHECK(markdown.str().find("## Sweep summary: box  1 channel  border zero") != std::string::npos);
  CHECK(markdown.str().find("| r=3 | 218.5 | FAIL |") != std::string::npos);
}

TEST_CASE("report: two machines' plain runs at two sizes are no sweep (a merge)") {
  cc::Report report;
  for (const auto& [device, size] : {std::pair{"amd: opencl:0:0", 1024}, std::pair{"nvidia: cuda:0", 2048}}) {
    cc::RunRecord r = run("opencl", "global", cc::Status::Ok, 1.0);
    r.device = device, r.width = r.height = size;
    report.runs.push_back(r);
  }
  std::ostringstream out, markdown;
  cc::print_console(report, out);
  cc::write_markdown(report, markdown);
  CAPTURE(out.str());
  CHECK(out.str().find("sweep summary") == std::string::npos);
  CHECK(out.str().find("(times in ms)") != std::string::npos);  // the per-problem tables instead
  CHECK(markdown.str().find("Sweep summary") == std::string::npos);
  report.runs.push_back(report.runs.front());  // a second size on one device: a sweep
  report.runs.back().width = report.runs.back().height = 512;
  std::ostringstream sweep;
  cc::print_console(report, sweep);
  CHECK(sweep.str().find("sweep summary") != std::string::npos);
}

TEST_CASE("report: console's verbose table per problem, with % bound, device memory and the OpenCL/CUDA ratio") {
  std::ostringstream out;
  cc::print_console(sample_report(), out, true);
  const std::string text = out.str();
  CAPTURE(text);
  CHECK(text.find("box:r=1  2048x2048x1  r=1x1  border zero") != std::string::npos);
  CHECK(text.find("gaussian:sigma=2  2048x2048x1  r=1x1  border zero") != std::string::npos);
  for (const char* word : {"naive", "global", "texture", "fast", "skipped", "failed", "(times in ms)"}) {
    CAPTURE(word);
    CHECK(text.find(word) != std::string::npos);
  }
  CHECK(words_of(line_starting(text, "backend ")) ==
        std::vector<std::string>{"backend", "device", "variant", "status", "kernel", "noise", "n", "MPix/s", "GB/s",
                                 "GFLOP/s", "%", "bound", "%", "direct", "dev", "MB", "max", "err", "tol"});
  // 0.5 ms for 2048x2048 at r=1: 8389 MPix/s, 67.11 GB/s, 151 GFLOP/s; the driver's bound and memory.
  CHECK(words_of(line_starting(text, "cuda ", "backend ")) ==
        std::vector<std::string>{"cuda", "NVIDIA", "H100", "80..", "global", "ok", "0.500", "15%", "3", "8389", "67.11",
                                 "151.0", "63%", "dram", "63%", "32.50", "1.5e-05", "0.0003"});
  // Not measured: "-" in both new columns.
  CHECK(words_of(line_starting(text, "cpu ", "backend ")) ==
        std::vector<std::string>{"cpu", "AMD", "EPYC", "7B13", "..", "naive", "ok", "100.0", "15%", "3", "41.94", "0.336",
                                 "0.755", "-", "-", "-", "1.5e-05", "0.0003"});
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

TEST_CASE("report: console transfers table lists only the runs that measured transfers, reuse included") {
  std::ostringstream out;
  cc::print_console(sample_report(), out, true);
  const auto lines = lines_of(out.str());
  CAPTURE(out.str());
  const auto legend = std::find_if(lines.begin(), lines.end(),
                                   [](const std::string& l) { return l.starts_with("setup and transfers (ms)"); });
  REQUIRE(lines.end() - legend >= 4);
  CHECK(words_of(*(legend + 1)) == std::vector<std::string>{"backend", "device", "variant", "memory", "setup", "build",
                                                            "h2d", "d2h", "host-to-host", "reuse"});
  CHECK(words_of(*(legend + 2)) == std::vector<std::string>{"cuda", "NVIDIA", "H100", "80..", "global", "pinned",
                                                            "0.100", "12.00", "0.300", "0.310", "1.200", "0.800"});
  CHECK(*(legend + 3) == "");  // the CPU and the untimed OpenCL runs have no row; the next problem follows
  // The second problem (one CPU run) has no transfers table.
  CHECK(std::count_if(lines.begin(), lines.end(), [](const std::string& l) { return l.starts_with("setup and transfers"); }) == 1);
}

TEST_CASE("report: console streams table: rate, serial and PCIe floor per frame, skipped with its reason") {
  std::ostringstream out;
  cc::print_console(stream_report(), out, true);
  const std::string text = out.str();
  CAPTURE(text);
  CHECK(text.find("\nstreams: box:r=2  1920x1080x3  pinned host memory  (times in ms)\n") != std::string::npos);
  CHECK(words_of(line_starting(text, "backend ")) ==
        std::vector<std::string>{"backend", "device", "variant", "status", "frames", "queues", "fps", "ms/frame",
                                 "serial", "floor", "%", "floor", "max", "err"});
  // 100 frames in 250 ms: 2.5 ms a frame against 4 serial; the 2.2 ms floor is 88% of it.
  CHECK(words_of(line_starting(text, "cuda ")) ==
        std::vector<std::string>{"cuda", "NVIDIA", "H100", "80..", "fast", "ok", "100", "3", "400.0", "2.500", "4.000",
                                 "2.200", "88%", "1e-06"});
  CHECK(text.find("skipped  no transfers to overlap on this backend\n") != std::string::npos);
  CHECK(text.find("devices") == std::string::npos);  // no devices in this report, so no block
  // The floor is the host-device link, PCIe only on a GPU (never "floor: PCIe" on a CPU device).
  CHECK(text.find("floor: PCIe") == std::string::npos);
  CHECK(text.find("floor: max(h2d, d2h)") != std::string::npos);

  std::ostringstream without_streams;
  cc::print_console(sample_report(), without_streams);
  CHECK(without_streams.str().find("streams:") == std::string::npos);
}

TEST_CASE("report: markdown keeps a merged report's device names whole in its ratios") {
  cc::Report report;
  for (const char* device : {"nvidia/NVIDIA H100 80GB HBM3", "amd/AMD Instinct MI300X"}) {
    report.runs.push_back(run("opencl", "global", cc::Status::Ok, 1.0));
    report.runs.back().device = device;
  }
  std::ostringstream markdown, console;
  cc::write_markdown(report, markdown);
  CAPTURE(markdown.str());
  CHECK(markdown.str().find("opencl[amd/AMD Instinct MI300X]/opencl[nvidia/NVIDIA H100 80GB HBM3]") != std::string::npos);
  cc::print_console(report, console);
  CHECK(console.str().find("opencl[nvidia/NVIDIA ..]") != std::string::npos);  // the console keeps its columns
}

TEST_CASE("report: markdown has the device block, the same tables and ratios") {
  std::ostringstream out;
  cc::write_markdown(sample_report(), out);
  const std::string text = out.str();
  CAPTURE(text);
  CHECK(text.find("## Devices") < text.find("## box:r=1"));
  CHECK(text.find("\n| device | name | units | memory | copy GB/s | FMA GFLOP/s |\n") != std::string::npos);
  CHECK(text.find("\n| cuda:0 | NVIDIA H100 80GB HBM3 | 132 SMs | 79.1 GB | 3012 | 51234 |\n") != std::string::npos);
  CHECK(text.find("\n| cpu | AMD EPYC 7B13 64-Core Processor | 2 threads | - | - | - |\n") != std::string::npos);
  CHECK(text.find("## box:r=1  2048x2048x1  r=1x1  border zero") != std::string::npos);
  // One host memory among the runs (the CPU has none): no memory column.
  CHECK(text.find("| backend | device | variant | status | kernel | noise | n | stop | MPix/s | GB/s | GFLOP/s | "
                  "% bound | % direct | dev MB | max err | tol | reason |") != std::string::npos);
  CHECK(text.find("| cuda | NVIDIA H100 80GB HBM3 | global | ok | 0.500 | 15% | 3 | - | 8389 | 67.11 | 151.0 | "
                  "63% dram | 63% | 32.50 | 1.5e-05 | 0.0003 |") != std::string::npos);
  CHECK(text.find("\n- global:   opencl/cuda 1.10\n") != std::string::npos);
  CHECK(text.find("\n| backend | device | variant | memory | setup | build | h2d | d2h | host-to-host | reuse |\n") !=
        std::string::npos);
  CHECK(text.find("\n| cuda | NVIDIA H100 80GB HBM3 | global | pinned | 0.100 | 12.00 | 0.300 | 0.310 | 1.200 | 0.800 |\n") !=
        std::string::npos);
  CHECK(text.find("streams") == std::string::npos);

  std::ostringstream streams;
  cc::write_markdown(stream_report(), streams);
  const std::string stream_text = streams.str();
  CAPTURE(stream_text);
  CHECK(stream_text.find("## streams: box:r=2  1920x1080x3  pinned host memory") != std::string::npos);
  CHECK(stream_text.find("\n| cuda | NVIDIA H100 80GB HBM3 | fast | ok | 100 | 3 | 400.0 | 2.500 | 4.000 | 2.200 | "
                         "88% | 1e-06 |  |\n") != std::string::npos);
  CHECK(stream_text.find("\n| cpu | cpu | naive | skipped | - | - | - | - | - | - | - | - | "
                         "no transfers to overlap on this backend |\n") != std::string::npos);
}

namespace {

// Every key path of a written report ("runs[].kernel_ms.median"), not descending into text pairs.
void key_paths(const nlohmann::json& value, const std::string& path, const std::set<std::string>& pairs,
               std::set<std::string>& paths) {
  if (value.is_object() && !pairs.contains(path)) {
    for (const auto& [key, member] : value.items()) {
      const std::string member_path = path.empty() ? key : path + "." + key;
      paths.insert(member_path);
      key_paths(member, member_path, pairs, paths);
    }
  } else if (value.is_array()) {
    for (const nlohmann::json& element : value) key_paths(element, path + "[]", pairs, paths);
  }
}

template <typename Record>
void pair_paths(const std::vector<cc::Field<Record>>& fields, const std::string& prefix, std::set<std::string>& pairs) {
  for (const cc::Field<Record>& field : fields)
    if (field.kind == cc::FieldKind::Pairs) pairs.insert(prefix + std::string(field.name));
}

}  // namespace

TEST_CASE("docs/json-schema.md lists exactly the keys a report is written with") {
  cc::Report report = filled_report();
  std::ostringstream json;
  cc::write_json(report, json);
  std::set<std::string> pairs, written;
  pair_paths(cc::report_fields(), "", pairs);
  pair_paths(cc::device_fields(), "devices[].", pairs);
  key_paths(nlohmann::json::parse(json.str()), "", pairs, written);

  std::ifstream doc(CONVCOMPARE_SOURCE_DIR "/docs/json-schema.md");
  REQUIRE(doc.good());
  std::set<std::string> documented;
  const std::regex row(R"(^\| `([^`]+)` \|)");
  for (std::string line; std::getline(doc, line);)
    if (std::smatch match; std::regex_search(line, match, row)) documented.insert(match[1]);

  for (const std::string& path : written) {
    CAPTURE(path);
    CHECK_MESSAGE(documented.contains(path), "written but not in docs/json-schema.md");
  }
  for (const std::string& path : documented) {
    CAPTURE(path);
    CHECK_MESSAGE(written.contains(path), "in docs/json-schema.md but never written");
  }
  CHECK(written.contains("runs[].kernel_ms.noise_percent"));  // the walk reaches nested groups
}

TEST_CASE("console: runs untimed for one reason say it once, whole, below the table") {
  cc::Report report;
  const std::string reason =
      "the device reported a span of 0 ms, under the 0.001 ms any command takes: its profiling timestamps are not real";
  for (const char* variant : {"global", "tiled", "fast", "texture"}) {
    cc::RunRecord r = run("opencl", variant, cc::Status::Ok, 1.0);
    r.device = "rusticl:0:0";
    r.times.untimed = reason;
    report.runs.push_back(r);
  }
  std::ostringstream out;
  cc::print_console(report, out);
  const std::string text = out.str();
  CAPTURE(text);
  // Wrapped within the line width, so compare the words.
  std::string words;
  std::istringstream in(text.substr(text.find("untimed (")));
  for (std::string word; in >> word;) words += (words.empty() ? "" : " ") + word;
  CHECK(words == "untimed (rusticl:0:0 global, rusticl:0:0 tiled, rusticl:0:0 fast, rusticl:0:0 texture): " + reason);
  CHECK(text.find("profiling timestamps") == text.rfind("profiling timestamps"));
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) CHECK(line.size() <= 100);
}
