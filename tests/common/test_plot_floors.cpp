// test_plot_floors.cpp: the radius plot: each device's DRAM and FMA ceilings from its measured peaks, noise bars, and the fastest series at each radius.
#include <algorithm>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include "common/domain/image_io.h"
#include "common/report/canvas.h"
#include "common/report/plot.h"
#include "common/report/plot_data.h"
#include "tests/support/temp_dir.h"

using cc::test::TempDir;
namespace pd = cc::plot_data;

namespace {

cc::DeviceInfo device(std::string backend, std::string id, double copy_gb_per_s, double fma_gflop_per_s) {
  cc::DeviceInfo d;
  d.backend = std::move(backend), d.id = std::move(id), d.name = "a GPU";
  d.peaks.copy_gb_per_s = copy_gb_per_s, d.peaks.fma_gflop_per_s = fma_gflop_per_s;
  return d;
}

cc::RunRecord run_at_rate(const std::string& backend, const std::string& device, const std::string& variant, int radius,
                  double mpix_per_s) {
  cc::RunRecord r;
  r.backend = backend, r.device = device, r.variant = variant;
  r.filter = fmt::format("box:r={}", radius);
  r.width = r.height = 2048, r.channels = 1, r.radius_x = r.radius_y = radius;
  r.border = "clamp";
  r.status = cc::Status::Ok;
  r.memory = "pinned";
  r.times.kernel_ms = cc::summarize({2048.0 * 2048 / 1e6 / mpix_per_s * 1e3});
  cc::derive_rates(r);
  return r;
}

// Seed 004's figure as this tree would draw it on one GPU: 11 variants in each of two APIs (22 lines),
// r = 0..32; fast wins up to r = 7, separable from there, CUDA a little ahead of OpenCL.
cc::Report radius_report() {
  cc::Report report;
  report.devices = {device("cuda", "cuda:0", 3000, 50000), device("opencl", "opencl:0:0", 2900, 51000)};
  const std::vector<std::string> variants = {"global", "constant", "tiled",   "texture", "separable", "fft",
                                             "fast",   "async",    "shuffle", "lowrank", "npp"};
  for (int radius = 0; radius <= 32; ++radius)
    for (const auto& [backend, id, share] : {std::tuple{"cuda", "cuda:0", 1.0}, std::tuple{"opencl", "opencl:0:0", 0.9}})
      for (std::size_t v = 0; v < variants.size(); ++v) {
        double rate = 1e5 / (1 + radius) / (v + 2.0);
        if (variants[v] == "fast") rate = radius <= 7 ? 2e5 : 1e4;
        if (variants[v] == "separable") rate = radius <= 7 ? 5e4 : 3e4;
        report.runs.push_back(run_at_rate(backend, id, variants[v], radius, rate * share));
      }
  return report;
}

}  // namespace

TEST_CASE("plot ceilings: one per device, from its own measured peaks") {
  const cc::Report report = radius_report();
  const std::vector<pd::Selection> pages = pd::select_groups(report);
  REQUIRE(pages.size() == 1);
  const std::vector<pd::Api> apis = pd::find_apis(report);
  const std::vector<pd::Ceiling> ceilings = pd::find_ceilings(report, pages[0], apis);
  REQUIRE(ceilings.size() == 2);  // cuda first, as the APIs are ordered
  CHECK(ceilings[0].label == "cuda");
  CHECK(ceilings[0].device == "cuda:0");
  CHECK(ceilings[0].copy_gb_per_s == 3000);
  CHECK(ceilings[0].fma_gflop_per_s == 50000);
  CHECK(ceilings[1].label == "opencl");
  CHECK(ceilings[1].copy_gb_per_s == 2900);
  CHECK(ceilings[1].fma_gflop_per_s == 51000);
  CHECK(ceilings[0].bytes_per_pixel == doctest::Approx(8));  // f32, read once and written once
  CHECK(ceilings[0].channels == doctest::Approx(1));
  CHECK(ceilings[0].dram_mpix() == doctest::Approx(3000e3 / 8));
  CHECK(ceilings[1].fma_mpix(0) == doctest::Approx(51000e3 / 2));
  CHECK(ceilings[1].fma_mpix(32) == doctest::Approx(51000e3 / (2.0 * 65 * 65)));

  SUBCASE("a device without peaks (the CPU, --no-peaks) has none; a page over sizes has none") {
    cc::Report cpu = report;
    cpu.devices[1].peaks = {};
    const std::vector<pd::Ceiling> one = pd::find_ceilings(cpu, pd::select_groups(cpu)[0], apis);
    REQUIRE(one.size() == 1);
    CHECK(one[0].device == "cuda:0");
    cc::Report bare = report;
    bare.devices.clear();
    CHECK(pd::find_ceilings(bare, pd::select_groups(bare)[0], apis).empty());
    for (cc::DeviceInfo& d : bare.devices = report.devices) d.peaks.untimed = "fake timestamps";
    CHECK(pd::find_ceilings(bare, pd::select_groups(bare)[0], apis).empty());
    pd::Selection by_size = pages[0];
    by_size.x = pd::XAxis::Size;
    CHECK(pd::find_ceilings(report, by_size, apis).empty());
  }
}

TEST_CASE("plot: each point carries its kernel noise, for its bar") {
  cc::Report report = radius_report();
  for (cc::RunRecord& run : report.runs)
    if (run.backend == "cuda" && run.variant == "fast") {
      const double ms = run.times.kernel_ms.median;
      run.times.kernel_ms = cc::summarize({ms, ms * 0.9, ms * 1.2});  // 14.8 % noise
    }
  const std::vector<pd::Api> apis = pd::find_apis(report);
  const std::vector<pd::Series> series = pd::build_series(pd::select_groups(report)[0], apis);
  const auto fast = std::ranges::find(series, "cuda fast", &pd::Series::label);
  REQUIRE(fast != series.end());
  CHECK(fast->noise.size() == 33);
  CHECK(fast->noise.at(4) == doctest::Approx(0.14826));
  const auto tiled = std::ranges::find(series, "cuda tiled", &pd::Series::label);
  REQUIRE(tiled != series.end());
  CHECK(tiled->noise.empty());  // one sample each: no noise known, no bar
}

TEST_CASE("plot: the fastest series at each radius") {
  const cc::Report report = radius_report();
  const std::vector<pd::Selection> pages = pd::select_groups(report);
  const std::vector<pd::Api> apis = pd::find_apis(report);
  const std::vector<pd::Series> series = pd::build_series(pages[0], apis);
  CHECK(series.size() == 22);
  const std::vector<pd::Win> wins = pd::fastest_at_each_x(series);
  REQUIRE(wins.size() == 33);
  for (const pd::Win& win : wins) {
    CAPTURE(win.x);
    CHECK(win.series->label == (win.x <= 7 ? "cuda fast" : "cuda separable"));
  }
}

TEST_CASE("plot ceilings: the picture names the ceilings, each device's measured rates and the winners, with 22 lines") {
  if (!cc::canvas_available()) return;  // --plot is refused before any work: test_plot.cpp
  TempDir dir("plot");
  std::vector<std::string> texts;
  cc::write_plot(radius_report(), dir.file("r.png"), &texts);
  auto has = [&](const std::string& text) { return std::ranges::count(texts, text); };
  CHECK(has("DRAM ceiling: 8 B/pixel") == 1);
  CHECK(has("FMA ceiling: (2r+1)^2 FMA/pixel") == 1);
  CHECK(has("cuda: 3000 GB/s copy, 50000 GFLOP/s FMA") == 1);
  CHECK(has("opencl: 2900 GB/s copy, 51000 GFLOP/s FMA") == 1);
  CHECK(std::ranges::none_of(texts, [](const std::string& t) { return t.find("floor") != std::string::npos; }));
  CHECK(has("fastest") == 1);
  CHECK(has("cuda fast") == 2);       // its legend line and its run of radii in the strip
  CHECK(has("cuda separable") == 2);
  CHECK(has("opencl npp") == 1);      // every one of the 22 lines in the legend: none cut to "... and N more"
  CHECK(std::ranges::none_of(texts, [](const std::string& t) { return t.starts_with("..."); }));
  for (const std::string tick : {"4", "8", "12", "16", "20", "24", "28", "32"})  // r = 0..32 by 4
    CHECK_MESSAGE(has(tick) == 1, tick);
  CHECK(has("35") == 0);

  const cc::Image png = cc::load_image(dir.file("r.png"));
  CHECK(png.width == 1200);
  int black = 0;  // the first device's ceilings' ink: nothing else is drawn pure black
  for (int y = 0; y < png.height; ++y)
    for (int x = 0; x < png.width; ++x) black += png.at(0, y, x) == 0 && png.at(1, y, x) == 0 && png.at(2, y, x) == 0;
  CHECK(black > 500);

  texts.clear();
  cc::Report bare = radius_report();
  bare.devices.clear();
  cc::write_plot(bare, dir.file("bare.png"), &texts);
  CHECK(has("fastest") == 1);
  CHECK(std::ranges::none_of(texts, [](const std::string& t) { return t.starts_with("DRAM ceiling"); }));
}

TEST_CASE("plot: what a radius page does not draw is named, with the radii of each gap; never a backend with no device") {
  cc::Report report = radius_report();
  for (cc::RunRecord& run : report.runs) {
    const bool shuffle = run.backend == "opencl" && run.variant == "shuffle";
    const bool gap = run.backend == "cuda" && run.variant == "lowrank" && (run.radius_x == 5 || run.radius_x >= 20);
    if (shuffle || gap) run.status = cc::Status::Skipped, run.reason = "not here";
    if (run.backend == "cuda" && run.variant == "texture" && run.radius_x == 3) run.status = cc::Status::Failed;
  }
  // A backend with no device here: its placeholders (device "-") at every radius are no gap in a line.
  for (int radius = 0; radius <= 32; ++radius) {
    cc::RunRecord placeholder = run_at_rate("cuda", "-", "tiled", radius, 1);
    placeholder.status = cc::Status::Skipped, placeholder.reason = "no CUDA driver installed";
    report.runs.push_back(placeholder);
  }
  const std::vector<pd::Selection> pages = pd::select_groups(report);
  REQUIRE(pages.size() == 1);
  const std::vector<pd::Api> apis = pd::find_apis(report);
  CHECK(pd::not_drawn_note(pages[0], apis) == "opencl shuffle; cuda texture at r = 3; cuda lowrank at r = 5, 20..32");
  CHECK(pd::not_drawn_note(pd::select_groups(radius_report())[0], apis).empty());

  if (!cc::canvas_available()) return;
  TempDir dir("plot");
  std::vector<std::string> texts;
  cc::write_plot(report, dir.file("gaps.svg"), &texts);
  CHECK(std::ranges::count(texts, "not drawn (skipped or failed; the report says why): opencl shuffle; cuda texture at "
                                  "r = 3; cuda lowrank at r = 5, 20..32") == 1);
}
