// test_compare.cpp: reading JSON reports back (errors, round trip), --compare verdicts and the merged table.
#include <doctest/doctest.h>

#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/report/compare.h"
#include "common/domain/error.h"
#include "common/report/report_read.h"
#include "tests/support/temp_dir.h"
#include "tests/support/text.h"

namespace fs = std::filesystem;

using cc::test::TempDir;
using cc::test::words_of;

namespace {

// Ten samples around `median_ms`, spread by `spread` of it: median x (1 + spread x k) for k from -1.5
// to 1.5, the median exactly `median_ms`.
std::vector<double> planted_samples(double median_ms, double spread) {
  std::vector<double> samples;
  for (const double k : {-1.5, -1.0, -0.5, -0.25, 0.0, 0.0, 0.25, 0.5, 1.0, 1.5}) samples.push_back(median_ms * (1 + spread * k));
  return samples;
}

// A run of box:r=1 on a 2048x2048 grey image whose kernel median is `median_ms`, its 10 raw samples
// planted_samples(median_ms, spread).
cc::RunRecord timed_run(std::string backend, std::string device, std::string variant, cc::Status status,
                        double median_ms, double spread = 0.01) {
  cc::RunRecord r;
  r.backend = std::move(backend), r.device = std::move(device), r.variant = std::move(variant);
  r.filter = "box:r=1", r.border = "zero", r.memory = "pinned";
  r.width = 2048, r.height = 2048, r.channels = 1, r.radius_x = 1, r.radius_y = 1;
  r.status = status;
  if (status != cc::Status::Skipped) {
    r.times.kernel_samples_ms = planted_samples(median_ms, spread);
    r.times.kernel_ms = cc::summarize(r.times.kernel_samples_ms);
    r.times.stopped_by = "max";
    r.max_abs_error = 2e-6, r.rel_l2_error = 1e-7, r.tolerance = 4e-5;
  }
  if (status == cc::Status::Failed) r.reason = "pixel (0, 0) channel 0: got 0, expected 1";
  if (status == cc::Status::Skipped) r.reason = "not on this device";
  cc::derive_rates(r);
  return r;
}

// Every field of every record set, NaN where a measurement can be absent, so a field the reader
// forgets shows up as a difference in the round trip.
cc::Report full_report() {
  cc::Report report;
  report.tool_version = "1.2.3";
  report.environment = {{"host", "gpu-box"}, {"compiler", "GCC 12.2"}, {"OpenCL platforms", "OpenCL 3.0 CUDA"}};
  report.devices = {{"cpu", "cpu", "AMD EPYC 7B13", {{"threads", "2"}}, {}},
                    {"cuda", "cuda:0", "NVIDIA H100 80GB HBM3", {{"sm", "9.0"}, {"constant", "65536"}}, {3012.46, 51234.2, {}}}};
  cc::RunRecord cuda = timed_run("cuda", "NVIDIA H100 80GB HBM3", "tiled", cc::Status::Ok, 0.0421);
  cuda.flip = true, cuda.exact = true, cuda.border = "mirror", cuda.memory = "pageable";
  cuda.times.build_ms = 12.5, cuda.times.setup_ms = 0.11, cuda.times.h2d_ms = 0.3, cuda.times.d2h_ms = 0.31;
  cuda.times.kernel_batch_ms = 0.0401, cuda.times.host_to_host_ms = 1.2, cuda.times.reuse_ms = 0.8;
  cuda.device_mb = 32.5, cuda.bound = "dram", cuda.bound_percent = 63.4;
  cuda.compile_time = "radius: compile-time", cuda.output = "out/cuda-tiled.png";
  cuda.compare_verdict = "slower", cuda.compare_ratio = 1.25, cuda.compare_p_value = 1.1e-5, cuda.compare_threshold = 0.05;
  report.runs = {timed_run("cpu", "cpu", "naive", cc::Status::Ok, 812.25), cuda,
                 timed_run("opencl", "NVIDIA H100", "texture", cc::Status::Skipped, 0),
                 timed_run("opencl", "NVIDIA H100", "global", cc::Status::Failed, 0.05)};
  report.runs[2].reason = "image2d_t unsupported, \"mirror\" needs normalized coordinates";

  cc::StreamRecord stream;
  stream.backend = "cuda", stream.device = "NVIDIA H100 80GB HBM3", stream.variant = "fast", stream.filter = "box:r=2";
  stream.width = 1920, stream.height = 1080, stream.channels = 3, stream.frames = 100, stream.memory = "pinned";
  stream.status = cc::Status::Ok, stream.queues = 3, stream.total_ms = 250, stream.frames_per_s = 400;
  stream.serial_ms_per_frame = 4, stream.pcie_floor_ms_per_frame = 2.2, stream.floor_fraction = 0.88;
  stream.max_abs_error = 1e-6;
  cc::StreamRecord skipped = stream;
  skipped.backend = "cpu", skipped.status = cc::Status::Skipped, skipped.reason = "no transfers to overlap";
  skipped.queues = 0, skipped.total_ms = skipped.frames_per_s = skipped.floor_fraction = cc::kNotMeasured;
  report.streams = {stream, skipped};
  return report;
}

std::string json_text(const cc::Report& report) {
  std::ostringstream out;
  cc::write_json(report, out);
  return out.str();
}

// The InputError message `action` throws, or "" (a failed CHECK) when it throws none.
std::string input_error(const std::function<void()>& action) {
  try {
    action();
  } catch (const cc::InputError& error) {
    CHECK(std::string(error.what()).find('\n') == std::string::npos);  // one line
    return error.what();
  }
  FAIL_CHECK("no InputError");
  return "";
}

std::string parse_error(std::string_view text) {
  return input_error([&] { cc::parse_json_report(text, "baseline.json"); });
}

// full_report()'s JSON with `edit` applied to it.
std::string edited(const std::function<void(nlohmann::ordered_json&)>& edit) {
  auto json = nlohmann::ordered_json::parse(json_text(full_report()));
  edit(json);
  return json.dump(2);
}

// The words of the first line that starts with `first_word` (after the line containing `after`).
std::vector<std::string> row_words(const std::string& text, const std::string& first_word, const std::string& after = "") {
  std::istringstream in(text);
  bool seen = after.empty();
  for (std::string line; std::getline(in, line);) {
    const auto words = words_of(line);
    if (seen && !words.empty() && words[0] == first_word) return words;
    seen |= !after.empty() && line.find(after) != std::string::npos;
  }
  return {};
}

}  // namespace

TEST_CASE("report_read: write, read, write gives the same text, NaN, streams and peaks included") {
  const cc::Report report = full_report();
  const std::string text = json_text(report);
  const cc::Report back = cc::parse_json_report(text, "report.json");
  CHECK(json_text(back) == text);

  REQUIRE(back.runs.size() == 4);
  const cc::RunRecord& cuda = back.runs[1];
  CHECK(cuda.flip);
  CHECK(cuda.exact);
  CHECK(cuda.memory == "pageable");
  CHECK(cuda.times.kernel_ms.median == 0.0421);
  CHECK(cuda.times.kernel_ms.samples == 10);
  CHECK(cuda.times.reuse_ms == 0.8);
  CHECK(cuda.bound == "dram");
  CHECK(cuda.bound_percent == 63.4);
  CHECK(std::isnan(back.runs[0].times.h2d_ms));  // null -> kNotMeasured
  CHECK(std::isnan(back.runs[0].device_mb));
  CHECK(back.runs[2].status == cc::Status::Skipped);
  CHECK(back.runs[2].times.kernel_ms.samples == 0);
  CHECK(back.runs[2].reason == report.runs[2].reason);
  CHECK(back.runs[3].status == cc::Status::Failed);
  CHECK(back.devices[1].peaks.copy_gb_per_s == 3012.46);
  CHECK(std::isnan(back.devices[0].peaks.fma_gflop_per_s));
  CHECK(back.devices[1].properties == report.devices[1].properties);
  CHECK(back.environment == report.environment);  // in the written order
  REQUIRE(back.streams.size() == 2);
  CHECK(back.streams[0].floor_fraction == 0.88);
  CHECK(back.streams[1].status == cc::Status::Skipped);
  CHECK(std::isnan(back.streams[1].total_ms));

  TempDir dir("compare");
  const std::string path = (dir.path / "report.json").string();
  std::ofstream(path) << text;
  CHECK(json_text(cc::read_json_report(path)) == text);
}

TEST_CASE("report_read: a report from before the newer fields reads, the fields not measured") {
  const cc::Report old = cc::parse_json_report(edited([](auto& json) {
    json.erase("streams");
    for (auto& device : json["devices"]) device.erase("peaks");
    for (auto& run : json["runs"])
      for (const char* key : {"reuse_ms", "device_mb", "bound", "bound_percent"}) run.erase(key);
  }), "old.json");
  REQUIRE(old.runs.size() == 4);
  CHECK(std::isnan(old.runs[1].times.reuse_ms));
  CHECK(old.runs[1].bound.empty());
  CHECK(std::isnan(old.devices[1].peaks.copy_gb_per_s));
  CHECK(old.streams.empty());
  CHECK(old.runs[1].times.h2d_ms == 0.3);
}

TEST_CASE("report_read: bad input is one InputError line naming the file and the problem") {
  CHECK(parse_error("{}") == "baseline.json: not a convcompare report (no \"runs\" array)");
  CHECK(parse_error("[1, 2]") == "baseline.json: not a convcompare report (no \"runs\" array)");
  CHECK(parse_error(R"({"runs": {}})") == "baseline.json: not a convcompare report (no \"runs\" array)");
  CHECK(parse_error("{\n  \"runs\": [\n    oops\n  ]\n}").starts_with("baseline.json: line 3: JSON parse error: syntax error"));
  CHECK(parse_error("").starts_with("baseline.json: line 1: JSON parse error: "));
  // A number past double's range fails inside the parser as out_of_range, not parse_error (found by fuzz_report).
  CHECK(parse_error("{\"runs\": [1e999]}") == "baseline.json: JSON parse error: number overflow parsing '1e999'");
  CHECK(parse_error(R"({"runs": [1]})") == "baseline.json: run 1: not an object but number");

  CHECK(parse_error(edited([](auto& json) { json["runs"][1].erase("variant"); })) ==
        "baseline.json: run 2: missing \"variant\"");
  CHECK(parse_error(edited([](auto& json) { json["runs"][0].erase("kernel_ms"); })) ==
        "baseline.json: run 1: missing \"kernel_ms\"");
  CHECK(parse_error(edited([](auto& json) { json["runs"][0]["kernel_ms"].erase("median"); })) ==
        "baseline.json: run 1: kernel_ms: missing \"median\"");
  CHECK(parse_error(edited([](auto& json) { json["runs"][0]["width"] = "wide"; })) ==
        "baseline.json: run 1: \"width\" must be an integer, not string");
  CHECK(parse_error(edited([](auto& json) { json["runs"][0]["height"] = 1.5; })) ==
        "baseline.json: run 1: \"height\" must be an integer, not 1.5");
  CHECK(parse_error(edited([](auto& json) { json["runs"][0]["channels"] = 1e10; })) ==
        "baseline.json: run 1: \"channels\" must be an integer, not 10000000000.0");
  CHECK(parse_error(edited([](auto& json) { json["runs"][3]["status"] = "maybe"; })) ==
        "baseline.json: run 4: \"status\" is \"maybe\", not ok, failed or skipped");
  CHECK(parse_error(edited([](auto& json) { json["runs"][0]["h2d_ms"] = "fast"; })) ==
        "baseline.json: run 1: \"h2d_ms\" must be a number, not string");
  CHECK(parse_error(edited([](auto& json) { json["devices"][1]["peaks"]["copy_gb_per_s"] = true; })) ==
        "baseline.json: device 2: peaks: \"copy_gb_per_s\" must be a number, not boolean");
  CHECK(parse_error(edited([](auto& json) { json["environment"]["host"] = 7; })) ==
        "baseline.json: environment: \"host\" must be a string, not 7");
  CHECK(parse_error(edited([](auto& json) { json["streams"] = "none"; })) ==
        "baseline.json: \"streams\" must be an array, not string");
  CHECK(parse_error(edited([](auto& json) { json["streams"][0].erase("frames_per_s"), json["streams"][1]["status"] = 0; })) ==
        "baseline.json: stream 2: \"status\" must be a string, not 0");

  TempDir dir("compare");
  const std::string missing = (dir.path / "baseline.json").string();
  CHECK(input_error([&] { cc::read_json_report(missing); }) == "cannot open report '" + missing + "': No such file or directory");
  CHECK(input_error([&] { cc::read_json_report(dir.path.string()); }) ==
        "cannot open report '" + dir.path.string() + "': it is a directory");
  // Sparse, so the test writes nothing: the size alone is refused before any byte is read.
  const std::string huge = (dir.path / "huge.json").string();
  std::ofstream(huge).put('{');
  fs::resize_file(huge, cc::kMaxReportBytes + 1);
  CHECK(input_error([&] { cc::read_json_report(huge); }) ==
        "report '" + huge + "': it holds 33554433 bytes, over the 32 MB limit (reports are parsed whole in memory)");
}

// Reference values, up to 20 a side: the exact permutation p, counted over every split of the pooled
// samples (tie groups at their mean rank) by brute force in Python (itertools.combinations), which
// without ties is scipy.stats.mannwhitneyu(a, b, method="exact"). Beyond: the asymptotic p with the tie
// and continuity corrections (scipy's method="asymptotic"), the formula evaluated in Python.
TEST_CASE("Mann-Whitney U: exact two-sided p-values up to 20 a side, ties at their mean rank") {
  const auto check = [](const std::vector<double>& a, const std::vector<double>& b, double u, double p) {
    const cc::UTest test = cc::mann_whitney_u(a, b);
    CHECK(test.u == doctest::Approx(u));
    CHECK(test.p_value == doctest::Approx(p).epsilon(1e-9));
    CHECK(test.exact);
  };
  // Apart, 5 a side: 2 of the C(10, 5) = 252 orders are as extreme (the normal approximation said
  // 0.0122, and by it no 5-sample run could ever reach p < 0.01).
  check({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}, 0, 2.0 / 252);
  check({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}, 25, 2.0 / 252);  // two-sided: the same either way
  check({1, 2, 3, 4, 5}, {1, 2, 3, 4, 5}, 12.5, 1.0);
  check({1.0, 1.1, 1.2, 1.3, 1.0, 1.1}, {1.25, 1.4, 1.3, 1.5, 1.45, 1.35}, 1.5, 0.006493506493506494);  // ties
  check({3, 3, 3, 4, 4, 5, 6}, {4, 4, 5, 5, 6, 7, 7, 8}, 9.5, 0.02937062937062937);  // ties across the sets
  check({1, 2, 2, 3}, {2, 3, 4, 4, 5}, 2.5, 0.0873015873015873);
  check({1}, {2}, 0, 1.0);
  CHECK(cc::mann_whitney_u({2, 2, 2}, {2, 2, 2}).p_value == 1.0);  // every sample tied: nothing to tell apart
  CHECK(cc::mann_whitney_u({}, {1, 2}).p_value == 1.0);
  // The planted runs of the verdict tests below: ten a side apart, 2 / C(20, 10).
  CHECK(cc::mann_whitney_u(planted_samples(1, 0.01), planted_samples(1.10, 0.01)).p_value ==
        doctest::Approx(2.0 / 184756).epsilon(1e-9));
  CHECK(cc::mann_whitney_u(planted_samples(1, 0.2), planted_samples(1.15, 0.2)).p_value ==
        doctest::Approx(0.10088982225205136).epsilon(1e-9));
}

TEST_CASE("Mann-Whitney U: beyond 20 a side, the normal approximation with tie and continuity corrections") {
  std::vector<double> a, b;
  for (int i = 0; i < 21; ++i) a.push_back(i), b.push_back(i + 8);
  const cc::UTest test = cc::mann_whitney_u(a, b);
  CHECK_FALSE(test.exact);
  CHECK(test.u == doctest::Approx(84.5));
  CHECK(test.p_value == doctest::Approx(0.0006486778021165878).epsilon(1e-9));
}

TEST_CASE("Mann-Whitney U: the smallest p a sample count allows") {
  CHECK(cc::smallest_u_test_p(3, 3) == doctest::Approx(0.1));  // 2 / C(6, 3): 3 a side can never reach 0.01
  CHECK(cc::smallest_u_test_p(4, 4) == doctest::Approx(2.0 / 70));
  CHECK(cc::smallest_u_test_p(5, 5) == doctest::Approx(2.0 / 252));
  CHECK(cc::smallest_u_test_p(3, 12) == doctest::Approx(2.0 / 455));
  CHECK(cc::smallest_u_test_p(0, 5) == 1.0);
  // Exact while the smaller run has up to 20 and both up to 60, either way round.
  CHECK(cc::smallest_u_test_p(2, 27) == doctest::Approx(2.0 / 406));
  CHECK(cc::smallest_u_test_p(27, 2) == doctest::Approx(2.0 / 406));
  CHECK(cc::smallest_u_test_p(20, 40) == doctest::Approx(2.0 / 4191844505805495.0));
}

TEST_CASE("compare: one slow sample does not hide a 20% slowdown") {
  // Ten samples near 1 ms and one at 3 ms: a stddev rule read the spread as ~60% and let anything
  // short of a 2x slowdown pass; the U test ranks the outlier as one sample of ten.
  cc::Report baseline, current;
  baseline.runs = {timed_run("cuda", "cuda:0", "global", cc::Status::Ok, 1.0)};
  current.runs = baseline.runs;
  baseline.runs[0].times.kernel_samples_ms = {1.0, 1.01, 0.99, 1.02, 1.0, 0.98, 1.01, 1.0, 0.99, 3.0};
  current.runs[0].times.kernel_samples_ms = {1.2, 1.21, 1.19, 1.22, 1.2, 1.18, 1.21, 1.2, 1.19, 1.2};
  for (cc::Report* report : {&baseline, &current})
    report->runs[0].times.kernel_ms = cc::summarize(report->runs[0].times.kernel_samples_ms);
  CHECK(baseline.runs[0].times.kernel_ms.stddev / baseline.runs[0].times.kernel_ms.median > 0.6);
  const auto comparisons = cc::compare_reports(baseline, current);
  REQUIRE(comparisons.size() == 1);
  // The 3 ms sample is an outlier (without_outliers): nine baseline samples against ten, apart.
  CHECK(comparisons[0].p_value == doctest::Approx(2.0 / 92378).epsilon(1e-9));
  CHECK(comparisons[0].verdict == cc::Verdict::Slower);
  CHECK(cc::any_slower(comparisons));
  // --significance 1e-5 asks for more than nine and ten samples give here (2e-5 at best): inconclusive,
  // not unchanged; --min-change 25 asks for more than 20%.
  CHECK(cc::compare_reports(baseline, current, {.min_change = 0.05, .significance = 1e-5})[0].verdict ==
        cc::Verdict::Inconclusive);
  CHECK(cc::compare_reports(baseline, current, {.min_change = 0.25, .significance = 0.01})[0].verdict ==
        cc::Verdict::Unchanged);
  // A baseline of schema 1 has no raw samples: the verdict says so instead of guessing.
  baseline.runs[0].times.kernel_samples_ms.clear();
  const auto untested = cc::compare_reports(baseline, current);
  CHECK(untested[0].verdict == cc::Verdict::Untested);
  CHECK_FALSE(cc::any_slower(untested));
}

TEST_CASE("compare: verdicts by identity, status and time beyond the noise") {
  const std::string h100 = "NVIDIA H100 80GB HBM3";
  cc::Report baseline, current;
  auto both = [&](cc::RunRecord before, cc::RunRecord after) {
    baseline.runs.push_back(std::move(before));
    current.runs.push_back(std::move(after));
  };
  using cc::Status;
  both(timed_run("cuda", h100, "global", Status::Ok, 1.0), timed_run("cuda", h100, "global", Status::Ok, 1.10));
  both(timed_run("cuda", h100, "tiled", Status::Ok, 1.0), timed_run("cuda", h100, "tiled", Status::Ok, 1.04));
  both(timed_run("cuda", h100, "fast", Status::Ok, 1.0), timed_run("cuda", h100, "fast", Status::Ok, 0.90));
  // 15% slower medians, but samples spread by 20% overlap: the U test gives p = 0.10.
  both(timed_run("opencl", h100, "global", Status::Ok, 1.0, 0.2), timed_run("opencl", h100, "global", Status::Ok, 1.15, 0.2));
  both(timed_run("cuda", h100, "texture", Status::Ok, 1.0), timed_run("cuda", h100, "texture", Status::Failed, 1.0));
  both(timed_run("opencl", h100, "texture", Status::Failed, 1.0), timed_run("opencl", h100, "texture", Status::Ok, 1.0));
  both(timed_run("opencl", h100, "tiled", Status::Ok, 1.0), timed_run("opencl", h100, "tiled", Status::Skipped, 0));
  both(timed_run("cpu", "cpu", "naive", Status::Skipped, 0), timed_run("cpu", "cpu", "naive", Status::Skipped, 0));
  baseline.runs.push_back(timed_run("cuda", h100, "npp", Status::Ok, 1.0));
  current.runs.push_back(timed_run("opencl", h100, "fast", Status::Ok, 1.0));
  // The same run with pageable host memory is another run: new here, and its pinned twin missing.
  cc::RunRecord pageable = timed_run("cuda", h100, "separable", Status::Ok, 1.0);
  baseline.runs.push_back(pageable);
  pageable.memory = "pageable";
  current.runs.push_back(pageable);

  const std::vector<cc::Comparison> comparisons = cc::compare_reports(baseline, current);
  using cc::Verdict;
  const std::vector<Verdict> expected = {
      Verdict::Slower,        Verdict::Unchanged,    Verdict::Faster, Verdict::Inconclusive,
      Verdict::StoppedValidating, Verdict::NowValidating, Verdict::NewlySkipped, Verdict::Unchanged,
      Verdict::New,           Verdict::New,          Verdict::Missing, Verdict::Missing};
  REQUIRE(comparisons.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i);
    CHECK(cc::to_string(comparisons[i].verdict) == cc::to_string(expected[i]));
  }
  CHECK(comparisons[0].ratio == doctest::Approx(1.10));
  CHECK(comparisons[0].p_value == doctest::Approx(2.0 / 184756).epsilon(1e-9));
  CHECK(comparisons[1].p_value < 0.01);  // 4% apart without overlap: real, but under --min-change
  CHECK(comparisons[3].p_value == doctest::Approx(0.10088982225205136).epsilon(1e-9));
  // Samples spread by 20% have a noise of 14.8% each: the threshold is 3 x their combined 21%, not 5%.
  CHECK(comparisons[3].threshold == doctest::Approx(3 * std::hypot(0.14826, 0.14826)).epsilon(1e-6));
  CHECK(comparisons[0].threshold == doctest::Approx(0.05));
  // That threshold is over --min-change: the row could not have seen a 15% change, and says so.
  CHECK(comparisons[3].reason == "noise 21%: can only see changes over 63%");
  CHECK(comparisons[0].reason.empty());
  CHECK(std::isnan(comparisons[4].ratio));  // no time compared for a failed run
  CHECK_FALSE(comparisons[8].baseline);
  CHECK(comparisons[8].current->variant == "fast");
  CHECK(comparisons[10].baseline->variant == "npp");
  CHECK_FALSE(comparisons[10].current);
  CHECK(comparisons[11].baseline->memory == "pinned");

  std::ostringstream out;
  cc::print_comparison(comparisons, {}, out);
  const std::string text = out.str();
  CAPTURE(text);
  CHECK(text.ends_with("\n1 slower, 1 stopped validating, 1 newly skipped, 2 missing, 1 inconclusive, 1 faster, "
                       "1 now validating, 2 new, 2 unchanged\n"));
  // The inconclusive row's reason below its table.
  CHECK(text.find("\n? NVIDIA H100 80.. global: noise 21%: can only see changes over 63%\n") != std::string::npos);
  // Regressions are the lines marked "!": the slower run and the one that stopped validating.
  std::vector<std::vector<std::string>> marked;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.starts_with("!")) marked.push_back(words_of(line));
  REQUIRE(marked.size() == 2);
  CHECK(marked[0] == std::vector<std::string>{"!", "cuda", "NVIDIA", "H100", "80..", "global", "pinned", "1.000", "1.100",
                                              "1.10", "1.1e-05", "5.0%", "slower"});
  CHECK(marked[1] == std::vector<std::string>{"!", "cuda", "NVIDIA", "H100", "80..", "texture", "pinned", "1.000", "FAILED",
                                              "-", "-", "-", "stopped", "validating"});
  CHECK(text.find("\nbox:r=1  2048x2048x1  border zero\n") != std::string::npos);
  CHECK(row_words(text, "?") == std::vector<std::string>{"?", "opencl", "NVIDIA", "H100", "80..", "global", "pinned",
                                                               "1.000", "1.150", "1.15", "0.1", "63%", "inconclusive"});
}

TEST_CASE("compare: pairs the runs one identity has twice in order, and says when there is nothing") {
  cc::Report baseline, current;
  baseline.runs = {timed_run("cpu", "cpu", "fast", cc::Status::Ok, 1.0), timed_run("cpu", "cpu", "fast", cc::Status::Ok, 2.0)};
  current.runs = {timed_run("cpu", "cpu", "fast", cc::Status::Ok, 1.0), timed_run("cpu", "cpu", "fast", cc::Status::Ok, 1.0)};
  const auto comparisons = cc::compare_reports(baseline, current);
  REQUIRE(comparisons.size() == 2);
  CHECK(comparisons[0].verdict == cc::Verdict::Unchanged);
  CHECK(comparisons[1].verdict == cc::Verdict::Faster);
  // The device id "cpu" names its backend, one memory tells no rows apart: neither column (with
  // them the table is 83 columns, too wide for an 80-column terminal).
  std::ostringstream table;
  cc::print_comparison(comparisons, {}, table);
  CAPTURE(table.str());
  CHECK(table.str().find("\n  device  variant  baseline  current") != std::string::npos);
  CHECK(table.str().find("backend") == std::string::npos);
  CHECK(table.str().find("memory") == std::string::npos);

  std::ostringstream out;
  cc::print_comparison({}, {}, out);
  CHECK(out.str() == "nothing to compare: neither report has runs\n");
}

namespace {

// A run of timed_run's problem with exactly these raw samples.
cc::RunRecord sampled_run(const std::vector<double>& samples) {
  cc::RunRecord r = timed_run("opencl", "pocl-cpu", "tiled", cc::Status::Ok, 1.0);
  r.times.kernel_samples_ms = samples;
  r.times.kernel_ms = cc::summarize(samples);
  cc::derive_rates(r);
  return r;
}

cc::Verdict verdict_of(const std::vector<double>& before, const std::vector<double>& after, const cc::CompareRule& rule = {}) {
  cc::Report baseline, current;
  baseline.runs = {sampled_run(before)};
  current.runs = {sampled_run(after)};
  const auto comparisons = cc::compare_reports(baseline, current, rule);
  REQUIRE(comparisons.size() == 1);
  return comparisons[0].verdict;
}

// `samples` times `factor`.
std::vector<double> scaled(std::vector<double> samples, double factor) {
  for (double& x : samples) x *= factor;
  return samples;
}

}  // namespace

TEST_CASE("compare gate, 3 samples a side: a 2x regression is never 'unchanged'; --compare raises the floor") {
  const std::vector<double> before = {1.00, 1.02, 0.99};
  // 2 / C(6, 3) = 0.1 at best: three a side cannot decide at p < 0.01, and says so.
  CHECK(verdict_of(before, scaled(before, 2.0)) == cc::Verdict::Inconclusive);
  // Nor can they say "unchanged": they could not have seen a change.
  CHECK(verdict_of(before, {1.01, 0.99, 1.0}) == cc::Verdict::Inconclusive);
  // --compare asks the current run for enough samples to decide against a 3-sample baseline.
  cc::Report baseline;
  baseline.runs = {sampled_run(before)};
  const int floor = cc::compare_sample_floor(baseline, {});
  CHECK(floor == 15);  // 12 decide with one sample out of order, and a quarter more for outliers
  std::vector<double> after;
  for (int i = 0; i < floor; ++i) after.push_back(2.0 + 0.01 * (i % 4));
  CHECK(verdict_of(before, after) == cc::Verdict::Slower);
  // The default 10-sample baseline needs no more than the default --repetitions 10.
  baseline.runs = {sampled_run(planted_samples(1.0, 0.01))};
  CHECK(cc::compare_sample_floor(baseline, {}) <= 10);
  CHECK(cc::compare_sample_floor(cc::Report{}, {}) == 0);
}

TEST_CASE("compare gate, 5 samples a side: apart is enough at p < 0.01") {
  const std::vector<double> before = {1.00, 1.01, 0.99, 1.02, 0.98};
  CHECK(verdict_of(before, scaled(before, 2.0)) == cc::Verdict::Slower);
  CHECK(verdict_of(before, scaled(before, 1.10)) == cc::Verdict::Slower);
  CHECK(verdict_of(scaled(before, 1.10), before) == cc::Verdict::Faster);
  // Noise 1.5% a side: the threshold is 6.3%, over --min-change: inconclusive; with --min-change 7, unchanged.
  CHECK(verdict_of(before, {1.01, 0.98, 1.00, 0.99, 1.02}) == cc::Verdict::Inconclusive);
  CHECK(verdict_of(before, {1.01, 0.98, 1.00, 0.99, 1.02}, {.min_change = 0.07, .significance = 0.01}) == cc::Verdict::Unchanged);
}

TEST_CASE("compare gate, 10 samples a side: two slow baseline samples do not hide a 36% regression") {
  const std::vector<double> before = {1.00, 1.01, 0.99, 1.02, 0.98, 1.00, 1.01, 0.99, 1.50, 1.52};
  const std::vector<double> after = {1.36, 1.37, 1.35, 1.38, 1.34, 1.36, 1.37, 1.35, 1.36, 1.36};
  // The U test on every sample: the two slow ones rank above the current run, p ~0.02.
  CHECK(cc::mann_whitney_u(before, after).p_value > 0.01);
  CHECK(cc::without_outliers(before).size() == 8);
  CHECK(cc::without_outliers(after).size() == 10);
  CHECK(cc::without_outliers({1.0, 1.01, 1.2}).size() == 3);  // too few to judge
  CHECK(cc::without_outliers({1.0, 1.0, 1.0, 1.0, 1.3}).size() == 5);  // MAD 0: no spread to judge by
  // Two modes, 8 tight samples and 7 a few percent away: not outliers; at most a quarter (3) go, the farthest.
  const std::vector<double> two_modes = {1.000, 1.001, 0.999, 1.000, 1.001, 0.999, 1.000, 1.001,
                                         1.030, 1.031, 1.032, 1.029, 1.030, 1.050, 1.040};
  const std::vector<double> kept = cc::without_outliers(two_modes);
  CHECK(kept.size() == 12);
  CHECK(std::ranges::find(kept, 1.050) == kept.end());
  CHECK(std::ranges::find(kept, 1.040) == kept.end());
  CHECK(std::ranges::find(kept, 1.030) != kept.end());
  CHECK(verdict_of(before, after) == cc::Verdict::Slower);
  CHECK(verdict_of(before, {1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.01, 0.99, 1.00, 1.01}, {.min_change = 0.09, .significance = 0.01}) ==
        cc::Verdict::Unchanged);
  CHECK(verdict_of(planted_samples(1.0, 0.01), planted_samples(1.0, 0.01)) == cc::Verdict::Unchanged);
}

TEST_CASE("compare gate: the threshold grows with the runs' noise, for the drift between runs") {
  // A CPU device's samples spread by 3% (noise 2.2% each): 8% slower with p < 0.01 is within 3 x
  // their combined noise (9.4%), the drift unchanged reruns show on a shared host.
  const std::vector<double> noisy = planted_samples(1.0, 0.03);
  const std::vector<double> drifted = planted_samples(1.08, 0.03);
  CHECK(cc::mann_whitney_u(noisy, drifted).p_value < 0.01);
  // It could not see 8%, nor anything under 9.4%: inconclusive, not unchanged.
  CHECK(verdict_of(noisy, drifted) == cc::Verdict::Inconclusive);
  CHECK(verdict_of(noisy, drifted, {.min_change = 0.10, .significance = 0.01}) == cc::Verdict::Unchanged);
  CHECK(verdict_of(noisy, drifted, {.min_change = 0.05, .significance = 0.01, .noise_factor = 0}) == cc::Verdict::Slower);
  CHECK(verdict_of(noisy, planted_samples(1.15, 0.03)) == cc::Verdict::Slower);
  // A quiet GPU (0.5% spread): the threshold stays --min-change, and 10% is caught.
  CHECK(verdict_of(planted_samples(1.0, 0.005), planted_samples(1.10, 0.005)) == cc::Verdict::Slower);
}

TEST_CASE("compare gate: on a GPU the threshold is the medians' noise; on the host's CPUs the samples' spread") {
  // A 20-microsecond GPU kernel's 50 samples jitter by 3-4% (its event timer and launch), while twenty
  // unchanged reruns on the H200 kept its median within 2.1%: the medians' noise
  // (kMedianStandardError x 3.7% / sqrt(50), about 0.7% a side) keeps the threshold at --min-change.
  const auto jittery = [](double median_ms) {
    std::vector<double> samples;
    for (const double wobble : {0.998, 0.999, 1.0, 1.001, 1.002})
      for (const double sample : planted_samples(median_ms * wobble, 0.05)) samples.push_back(sample);
    return samples;
  };
  const auto judged = [&](std::string type, double planted) {
    cc::Report baseline, current;
    cc::DeviceInfo device;
    device.id = "dev", device.backend = "opencl", device.properties = {{"type", type}};
    baseline.devices = current.devices = {device};
    baseline.runs = {sampled_run(jittery(1.0))};
    current.runs = {sampled_run(jittery(planted))};
    baseline.runs[0].device = current.runs[0].device = "dev";
    return cc::compare_reports(baseline, current)[0];
  };
  CHECK(cc::summarize(jittery(1.0)).noise_percent > 3);
  const cc::Comparison gpu_rerun = judged("GPU", 1.02);
  CHECK(gpu_rerun.threshold == doctest::Approx(0.05));
  CHECK(gpu_rerun.verdict == cc::Verdict::Unchanged);
  CHECK(judged("GPU", 1.10).verdict == cc::Verdict::Slower);
  // The same samples on a CPU device: its spread is the proxy for a shared host's drift, so it cannot see 10%.
  const cc::Comparison cpu_rerun = judged("CPU", 1.02);
  CHECK(cpu_rerun.threshold > 0.10);
  CHECK(cpu_rerun.verdict == cc::Verdict::Inconclusive);
  CHECK(cpu_rerun.reason.starts_with("noise "));
  CHECK(judged("CPU", 1.10).verdict == cc::Verdict::Inconclusive);
  // A device the report does not list gets the cautious rule.
  cc::Report baseline, current;
  baseline.runs = {sampled_run(jittery(1.0))};
  current.runs = {sampled_run(jittery(1.02))};
  CHECK(cc::compare_reports(baseline, current)[0].verdict == cc::Verdict::Inconclusive);
}

TEST_CASE("compare gate: what the noise hides is inconclusive, never unchanged; what the test does not confirm too") {
  // A busy host's row: samples spread by 40% (noise 30% a side, threshold 3 x 42% = 126%).
  const std::vector<double> busy = planted_samples(1.0, 0.4);
  cc::Report baseline, current;
  baseline.runs = {sampled_run(busy)};
  for (const double planted : {1.0, 1.10, 2.0}) {
    CAPTURE(planted);
    current.runs = {sampled_run(scaled(busy, planted))};
    const cc::Comparison c = cc::compare_reports(baseline, current)[0];
    CHECK(c.threshold > 1.2);
    // Unchanged, 10% and 2x alike: the row cannot see under 126%, and says how much it can see.
    CHECK(c.verdict == cc::Verdict::Inconclusive);
    CHECK(c.reason == "noise 42%: can only see changes over 126%");
  }
  // A 3x slowdown clears even that threshold, with the samples apart: slower.
  current.runs = {sampled_run(scaled(busy, 3.0))};
  CHECK(cc::compare_reports(baseline, current)[0].verdict == cc::Verdict::Slower);
  // Medians 15% apart past a threshold of 5% (no noise factor), in samples that overlap (p 0.10): inconclusive.
  baseline.runs = {sampled_run(planted_samples(1.0, 0.2))};
  current.runs = {sampled_run(planted_samples(1.15, 0.2))};
  const cc::Comparison overlap = cc::compare_reports(baseline, current, {.min_change = 0.05, .significance = 0.01, .noise_factor = 0})[0];
  CHECK(overlap.verdict == cc::Verdict::Inconclusive);
  CHECK(overlap.reason == "the median moved 15%, but the samples overlap (p = 0.1)");
  // The noise --compare aims at: two runs that noisy have a threshold of --min-change.
  CHECK(cc::compare_noise_target_percent({}) == doctest::Approx(100 * 0.05 / (3 * std::sqrt(2.0))));
  CHECK(cc::compare_noise_target_percent({.min_change = 0.05, .significance = 0.01, .noise_factor = 0}) == 0);
}

TEST_CASE("compare gate: a machine that changed makes its rows inconclusive, not slower, and the verdict line says so") {
  const auto device = [](std::string id, std::string backend, double copy, double fma, std::string type) {
    cc::DeviceInfo d;
    d.id = id, d.backend = backend, d.name = "dev " + id;
    d.peaks.copy_gb_per_s = copy, d.peaks.fma_gflop_per_s = fma;
    d.properties = {{"type", type}, {"driver version", "1.0"}};
    return d;
  };
  cc::Report baseline, current;
  baseline.host = {.load_average = 1.0, .cpus = 2, .cpu_mhz = 2600};
  baseline.devices = {device("cpu", "cpu", NAN, NAN, ""), device("opencl:0:0", "opencl", 33.0, 28.4, "CPU"),
                      device("opencl:1:0", "opencl", 900, 50000, "GPU")};
  current.host = baseline.host;
  current.devices = baseline.devices;
  for (const char* id : {"cpu", "opencl:0:0", "opencl:1:0"}) {
    const std::string backend = std::string(id) == "cpu" ? "cpu" : "opencl";
    baseline.runs.push_back(timed_run(backend, id, "tiled", cc::Status::Ok, 1.0));
    current.runs.push_back(timed_run(backend, id, "tiled", cc::Status::Ok, 2.0));
  }
  const auto verdicts = [&] {
    std::vector<cc::Verdict> found;
    for (const cc::Comparison& c : cc::compare_reports(baseline, current)) found.push_back(c.verdict);
    return found;
  };
  using cc::Verdict;
  // The same machine, within the tolerance: every 2x is slower.
  current.devices[1].peaks.fma_gflop_per_s = 28.4 * 1.15;
  current.host.load_average = 1.9;  // 0.45 per CPU
  CHECK(cc::machine_changes(baseline, current).empty());
  CHECK(verdicts() == std::vector<Verdict>{Verdict::Slower, Verdict::Slower, Verdict::Slower});
  // The CPU device's FMA peak halved: its row is inconclusive, the others stay slower.
  current.devices[1].peaks.fma_gflop_per_s = 13.8;
  const auto changes = cc::machine_changes(baseline, current);
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].device == "opencl:0:0");
  CHECK(changes[0].what == "opencl:0:0 FMA peak 28.40 -> 13.80 GFLOP/s (-51%)");
  CHECK(verdicts() == std::vector<Verdict>{Verdict::Slower, Verdict::Inconclusive, Verdict::Slower});
  CHECK(cc::compare_reports(baseline, current)[1].reason ==
        "slower 2.00, but the machine changed: opencl:0:0 FMA peak 28.40 -> 13.80 GFLOP/s (-51%)");
  // The host's load rose by 1 per CPU: the rows that run on its CPUs (cpu, the OpenCL CPU device), not the GPU's.
  current.devices[1].peaks.fma_gflop_per_s = 28.4;
  current.host.load_average = 3.0;
  CHECK(verdicts() == std::vector<Verdict>{Verdict::Inconclusive, Verdict::Inconclusive, Verdict::Slower});
  // A GPU-only job does not feel the host's load: no change to name.
  {
    cc::Report gpu_base = baseline, gpu_now = current;
    gpu_base.devices = {baseline.devices[2]}, gpu_now.devices = {current.devices[2]};
    CHECK(cc::machine_changes(gpu_base, gpu_now).empty());
  }
  // A new driver on the GPU: its row too.
  current.host.load_average = 1.0;
  current.devices[2].properties[1].second = "2.0";
  CHECK(verdicts() == std::vector<Verdict>{Verdict::Slower, Verdict::Slower, Verdict::Inconclusive});
  std::ostringstream out;
  cc::print_comparison(cc::compare_reports(baseline, current), {}, out, cc::machine_changes(baseline, current));
  CAPTURE(out.str());
  CHECK(out.str().ends_with("\n2 slower, 1 inconclusive;\nthe machine changed beyond 20% (peaks, clocks) or 0.5 load "
                            "per CPU,\nso the rows it touches are inconclusive, not slower or faster:\n"
                            "  opencl:1:0 driver version '1.0' -> '2.0'\n"));
  // The host's state and the reason go into the JSON and come back.
  cc::attach_verdicts(current, cc::compare_reports(baseline, current));
  const auto json = nlohmann::json::parse(json_text(current));
  CHECK(json["host"]["load_average"] == 1.0);
  CHECK(json["host"]["cpus"] == 2);
  CHECK(json["runs"][2]["compare"]["verdict"] == "inconclusive");
  CHECK(json["runs"][2]["compare"]["reason"] == "slower 2.00, but the machine changed: opencl:1:0 driver version '1.0' -> '2.0'");
  CHECK(json["runs"][0]["compare"]["reason"].is_null());
}

TEST_CASE("compare: a baseline that matches no run is an error naming what differs; verdicts go into the report") {
  cc::Report baseline, current;
  baseline.runs = {timed_run("cpu", "cpu", "fast", cc::Status::Ok, 1.0), timed_run("cpu", "cpu", "naive", cc::Status::Ok, 9.0)};
  current.runs = baseline.runs;
  for (cc::RunRecord& run : current.runs) run.width = 1024, run.height = 1024;
  std::vector<cc::Comparison> comparisons = cc::compare_reports(baseline, current);
  CHECK(input_error([&] { cc::check_any_matched(comparisons); }) ==
        "--compare: no run matches one in the baseline (2 runs there, 2 here): size 2048x2048x1 there, 1024x1024x1 here");
  // One run in common: the rest are listed as new and missing, and that is no error.
  current.runs[0].width = current.runs[0].height = 2048;
  comparisons = cc::compare_reports(baseline, current);
  CHECK_NOTHROW(cc::check_any_matched(comparisons));
  CHECK_NOTHROW(cc::check_any_matched({}));

  current.runs[0] = timed_run("cpu", "cpu", "fast", cc::Status::Ok, 1.10);
  comparisons = cc::compare_reports(baseline, current);
  cc::attach_verdicts(current, comparisons);
  CHECK(current.runs[0].compare_verdict == "slower");
  CHECK(current.runs[0].compare_ratio == doctest::Approx(1.10));
  CHECK(current.runs[1].compare_verdict == "new");
  const auto json = nlohmann::json::parse(json_text(current));
  CHECK(json["runs"][0]["compare"]["verdict"] == "slower");
  CHECK(json["runs"][0]["compare"]["threshold"] == doctest::Approx(0.05));
  CHECK(json["runs"][1]["compare"]["verdict"] == "new");
  CHECK(json["runs"][1]["compare"]["p_value"].is_null());
  CHECK(nlohmann::json::parse(json_text(baseline))["runs"][0]["compare"]["verdict"].is_null());
}

TEST_CASE("merge: two runs of one machine compare device by device; a backend with no device is said once, not a column") {
  cc::Report a, b;
  for (cc::Report* report : {&a, &b}) {
    report->environment = {{"host", "box"}};
    const double scale = report == &a ? 1.0 : 1.5;
    report->runs = {timed_run("cpu", "cpu", "naive", cc::Status::Ok, 4.0 * scale),
                    timed_run("opencl", "opencl:0:0", "tiled", cc::Status::Ok, 1.0 * scale),
                    timed_run("opencl", "opencl:0:1", "tiled", cc::Status::Ok, 2.0 * scale),
                    timed_run("cuda", "-", "tiled", cc::Status::Skipped, 0)};
    report->runs.back().reason = "no CUDA driver installed";
  }
  std::ostringstream out;
  cc::print_merged({a, b}, {"boxA", "boxB"}, out);
  const std::string text = out.str();
  CAPTURE(text);
  CHECK(cc::test::count_of(text, "  cuda: not run: no CUDA driver installed\n") == 2);  // under each report
  CHECK(row_words(text, "variant") == std::vector<std::string>{"variant", "boxA", "boxA", "boxA", "boxB", "boxB", "boxB"});
  CHECK(text.find("skipped") == std::string::npos);  // no cuda column
  // Each device of boxB against the same device of boxA: 1.5 each, never boxB's opencl:0:1 over boxA's cpu.
  CHECK(row_words(text, "naive", "ratio to") == std::vector<std::string>{"naive", "-", "-", "-", "1.50", "-", "-"});
  CHECK(row_words(text, "tiled", "ratio to") == std::vector<std::string>{"tiled", "-", "-", "-", "-", "1.50", "1.50"});

  // Without the per-problem tables (a merged sweep prints its summary instead): the machines alone.
  std::ostringstream header;
  cc::print_merged({a, b}, {"boxA", "boxB"}, header, false);
  CHECK(header.str().find("kernel median") == std::string::npos);
  CHECK(header.str().starts_with("boxA: host box\n"));
}

TEST_CASE("merge: an untimed run says why, once, below its table") {
  cc::Report rusticl;
  rusticl.runs = {timed_run("opencl", "rusticl", "global", cc::Status::Ok, 1.0),
                  timed_run("opencl", "rusticl", "tiled", cc::Status::Ok, 1.0)};
  for (cc::RunRecord& run : rusticl.runs) run.times.untimed = "the device reported a span of 0 ms: its profiling timestamps are not real";
  std::ostringstream out;
  cc::print_merged({rusticl}, {"laptop"}, out);
  const std::string text = out.str();
  CAPTURE(text);
  CHECK(row_words(text, "global") == std::vector<std::string>{"global", "untimed"});
  const std::string note = "untimed in laptop opencl rusticl: the device reported a span of 0 ms: its profiling timestamps are not real\n";
  REQUIRE(text.find(note) != std::string::npos);
  CHECK(text.find(note, text.find(note) + 1) == std::string::npos);
}

TEST_CASE("merge: one table per problem, a column per report, backend and device with noise, ratios per matching device") {
  cc::Report amd, nvidia;
  amd.environment = {{"host", "amd-box"}};
  amd.devices = {{"opencl", "opencl:0:0", "gfx1100", {}, {}}};
  nvidia.environment = {{"compiler", "GCC 12"}, {"host", "h100-node"}};
  nvidia.devices = {{"cuda", "cuda:0", "NVIDIA H100", {}, {3000, 50000, {}}}, {"opencl", "opencl:0:0", "NVIDIA H100", {}, {}}};
  using cc::Status;
  amd.runs = {timed_run("opencl", "gfx1100", "global", Status::Ok, 2.0), timed_run("opencl", "gfx1100", "tiled", Status::Ok, 1.0),
              timed_run("opencl", "gfx1100", "texture", Status::Skipped, 0)};
  nvidia.runs = {timed_run("cuda", "NVIDIA H100", "global", Status::Ok, 1.0), timed_run("cuda", "NVIDIA H100", "tiled", Status::Ok, 0.5),
                 timed_run("cuda", "NVIDIA H100", "texture", Status::Failed, 0.4), timed_run("cuda", "NVIDIA H100", "npp", Status::Ok, 0.25),
                 timed_run("opencl", "NVIDIA H100", "global", Status::Ok, 1.1), timed_run("opencl", "NVIDIA H100", "tiled", Status::Ok, 0.6)};
  cc::RunRecord other_problem = timed_run("cuda", "NVIDIA H100", "global", Status::Ok, 3.0);
  other_problem.filter = "gaussian:sigma=2", other_problem.border = "mirror";
  nvidia.runs.push_back(other_problem);

  std::ostringstream out;
  cc::print_merged({amd, nvidia}, {"amd", "nvidia"}, out);
  const std::string text = out.str();
  CAPTURE(text);
  CHECK(text.starts_with("amd: host amd-box\n  opencl:0:0  gfx1100\nnvidia: host h100-node\n"
                         "  cuda:0  NVIDIA H100  (copy 3000 GB/s, FMA 50000 GFLOP/s)\n  opencl:0:0  NVIDIA H100\n"));
  CHECK(text.find("\nbox:r=1  2048x2048x1  border zero  (kernel median, ms)\n") != std::string::npos);
  CHECK(row_words(text, "variant") == std::vector<std::string>{"variant", "amd", "nvidia", "nvidia"});
  CHECK(row_words(text, "opencl") == std::vector<std::string>{"opencl", "cuda", "opencl"});
  // Each median with its noise (1.4826 x MAD / median of the planted samples).
  CHECK(row_words(text, "global") == std::vector<std::string>{"global", "2.000", "±0.7%", "1.000", "±0.7%", "1.100", "±0.7%"});
  CHECK(row_words(text, "tiled") == std::vector<std::string>{"tiled", "1.000", "±0.7%", "0.500", "±0.7%", "0.600", "±0.7%"});
  CHECK(row_words(text, "texture") == std::vector<std::string>{"texture", "skipped", "FAILED", "-"});
  CHECK(row_words(text, "npp") == std::vector<std::string>{"npp", "-", "0.250", "±0.7%", "-"});
  // Ratios against the first report's run on the same backend: nvidia's OpenCL over amd's OpenCL (its
  // one OpenCL device), never nvidia's CUDA over amd's OpenCL, nor a column over itself.
  CHECK(text.find("ratio to amd on the matching backend and device (below 1: faster)\n") != std::string::npos);
  CHECK(row_words(text, "global", "ratio to") == std::vector<std::string>{"global", "-", "-", "0.55"});
  CHECK(row_words(text, "tiled", "ratio to") == std::vector<std::string>{"tiled", "-", "-", "0.60"});
  CHECK(row_words(text, "texture", "ratio to").empty());  // nothing timed in both: no ratio line
  CHECK(row_words(text, "npp", "ratio to").empty());

  // The second problem ran on one machine only: one column, nothing to take a ratio of.
  CHECK(text.find("\ngaussian:sigma=2  2048x2048x1  border mirror  (kernel median, ms)\n") != std::string::npos);
  CHECK(row_words(text, "variant", "gaussian") == std::vector<std::string>{"variant", "nvidia"});
  CHECK(row_words(text, "global", "gaussian") == std::vector<std::string>{"global", "3.000", "±0.7%"});
  CHECK(text.find("ratio to nvidia") == std::string::npos);
}
