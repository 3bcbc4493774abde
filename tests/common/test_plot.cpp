// test_plot.cpp: --plot pictures (the text they draw, PNG pixels, SVG and PDF signatures, one page per group, which runs they show) and the contact sheet.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <fmt/format.h>

#include "common/report/canvas.h"
#include "common/report/contact_sheet.h"
#include "common/domain/error.h"
#include "common/domain/image_io.h"
#include "common/report/plot.h"
#include "tests/support/temp_dir.h"
#include "tests/support/text.h"

namespace fs = std::filesystem;

using cc::test::count_of;
using cc::test::read_file;
using cc::test::TempDir;

namespace {

// Draws the plot to `path` and returns every string it drew, each as ">text<" on a line of its own
// (cairo draws text as glyphs: the file holds no searchable text).
std::string drawn(const cc::Report& report, const std::string& path) {
  std::vector<std::string> texts;
  cc::write_plot(report, path, &texts);
  std::string joined;
  for (const std::string& text : texts) joined += ">" + text + "<\n";
  return joined;
}

cc::RunRecord run(std::string backend, std::string device, std::string variant, int radius, double kernel_ms,
                  std::string memory = "pinned", int size = 1024) {
  cc::RunRecord r;
  r.backend = std::move(backend), r.device = std::move(device), r.variant = std::move(variant);
  r.filter = "box:r=" + std::to_string(radius);
  r.width = r.height = size, r.channels = 1, r.radius_x = r.radius_y = radius;
  r.border = "zero";
  r.status = cc::Status::Ok;
  r.memory = std::move(memory);
  r.times.kernel_ms = cc::summarize({kernel_ms});
  if (r.backend != "cpu") r.times.setup_ms = 0.25, r.times.h2d_ms = 0.5, r.times.d2h_ms = 0.125;
  cc::derive_rates(r);
  return r;
}

// CUDA and OpenCL, three variants, radii 1..4, pinned and pageable, plus a CPU run.
cc::Report sweep_report() {
  cc::Report report;
  for (int radius = 1; radius <= 4; ++radius)
    for (const char* variant : {"global", "tiled", "fast"})
      for (const char* memory : {"pinned", "pageable"}) {
        report.runs.push_back(run("cuda", "cuda:0", variant, radius, 0.1 * radius, memory));
        report.runs.push_back(run("opencl", "opencl:0:0", variant, radius, 0.12 * radius, memory));
      }
  report.runs.push_back(run("cpu", "cpu", "naive", 1, 40, ""));
  return report;
}

// Pixels of exactly this colour in a loaded 3-channel PNG.
int count_colour(const cc::Image& image, int r, int g, int b) {
  int count = 0;
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x)
      count += image.at(0, y, x) == r && image.at(1, y, x) == g && image.at(2, y, x) == b;
  return count;
}

cc::Image filled(int width, int height, std::vector<float> values, bool eight_bit = true) {
  cc::Image image(width, height, static_cast<int>(values.size()), eight_bit);
  for (int c = 0; c < image.channels; ++c)
    for (std::size_t i = 0; i < image.plane_size(); ++i) image.plane(c)[i] = values[c];
  return image;
}

}  // namespace

TEST_CASE("plot: check_plot_path accepts .png, .svg and .pdf in an existing directory only") {
  if (!cc::canvas_available()) {  // a build without cairo: --plot is refused, clearly, before any work
    CHECK_THROWS_WITH_AS(cc::check_plot_path("plot.png"), doctest::Contains("built without cairo"), cc::InputError);
    return;
  }
  TempDir dir("plot");
  CHECK_NOTHROW(cc::check_plot_path(dir.file("a.png")));
  CHECK_NOTHROW(cc::check_plot_path(dir.file("a.SVG")));
  CHECK_NOTHROW(cc::check_plot_path(dir.file("a.pdf")));
  CHECK_NOTHROW(cc::check_plot_path("plot.png"));  // the current directory
  CHECK_THROWS_AS(cc::check_plot_path(dir.file("a.jpg")), cc::InputError);
  CHECK_THROWS_AS(cc::check_plot_path(dir.file("png")), cc::InputError);
  CHECK_THROWS_AS(cc::check_plot_path(dir.file("missing/a.png")), cc::InputError);
  CHECK_THROWS_AS(cc::write_plot(sweep_report(), dir.file("a.jpg")), cc::InputError);
}

TEST_CASE("plot: SVG of a radius sweep names every series, the axes and the phase bars") {
  if (!cc::canvas_available()) {  // a build without cairo: --plot is refused, clearly, before any work
    CHECK_THROWS_WITH_AS(cc::check_plot_path("plot.png"), doctest::Contains("built without cairo"), cc::InputError);
    return;
  }
  TempDir dir("plot");
  const std::string svg = drawn(sweep_report(), dir.file("p.svg"));
  const std::string file = read_file(dir.file("p.svg"));
  CHECK(file.starts_with("<?xml"));
  CHECK(count_of(file, "<svg ") == 1);
  // One group: one page, 1013 high: a phase bar per variant (7 bars) outgrows the 900 minimum.
  CHECK(file.find("viewBox=\"0 0 1200 1013\"") != std::string::npos);
  for (const char* name :
       {"cuda global", "cuda tiled", "cuda fast", "opencl global", "opencl tiled", "opencl fast", "cpu naive"})
    CHECK_MESSAGE(svg.find(fmt::format(">{}<", name)) != std::string::npos, name);
  CHECK(svg.find("filter radius") != std::string::npos);
  CHECK(svg.find("MPix/s (log scale)") != std::string::npos);
  CHECK(svg.find("image 1024x1024x1, border zero") != std::string::npos);  // what was held fixed
  // Phase bars: global at the smallest radius, pinned beside pageable; 0.25 + 0.5 + 0.1 + 0.125 ms.
  const std::size_t pinned = svg.find(">cuda global pinned<"), pageable = svg.find(">cuda global pageable<");
  REQUIRE(pinned != std::string::npos);
  REQUIRE(pageable != std::string::npos);
  CHECK(pinned < pageable);
  // A bar per variant, not the first alone.
  for (const char* bar : {">cuda tiled pinned<", ">cuda fast pinned<", ">opencl tiled pinned<"})
    CHECK_MESSAGE(svg.find(bar) != std::string::npos, bar);
  CHECK(svg.find(">0.975 ms<") != std::string::npos);
  CHECK(svg.find(">40.0 ms<") != std::string::npos);  // the CPU: kernel only, no transfers
}

TEST_CASE("plot: which runs are drawn") {
  if (!cc::canvas_available()) {  // a build without cairo: --plot is refused, clearly, before any work
    CHECK_THROWS_WITH_AS(cc::check_plot_path("plot.png"), doctest::Contains("built without cairo"), cc::InputError);
    return;
  }
  TempDir dir("plot");
  const std::string path = dir.file("p.svg");

  SUBCASE("one radius, several sizes: size on a log axis") {
    cc::Report report;
    for (int size : {256, 512, 1024})
      report.runs.push_back(run("cuda", "cuda:0", "global", 2, size / 1000.0, "pinned", size));
    const std::string svg = drawn(report, path);
    CHECK(svg.find("image size, megapixels (log scale)") != std::string::npos);
    CHECK(svg.find("radius 2, 1024x1024") != std::string::npos);  // the phase bars at the largest size
  }
  SUBCASE("the swept filter wins over a one-off, failed runs and other variants' absence are fine") {
    cc::Report report = sweep_report();
    cc::RunRecord other = run("cuda", "cuda:0", "texture", 1, 0.1);
    other.filter = "sobel-x";
    report.runs.push_back(other);
    cc::RunRecord failed = run("cuda", "cuda:0", "constant", 2, 0.1);
    failed.status = cc::Status::Failed;
    report.runs.push_back(failed);
    const std::string svg = drawn(report, path);
    CHECK(svg.find("against filter radius: box,") != std::string::npos);
    CHECK(svg.find(">group 1 of 2<") < svg.find("against filter radius: box,"));  // the sweep, then sobel-x
    CHECK(svg.find("against filter radius: box,") < svg.find(">group 2 of 2<"));
    CHECK(svg.find("Kernel MPix/s: sobel-x") > svg.find(">group 2 of 2<"));
    CHECK(svg.find(">cuda constant<") == std::string::npos);  // failed: no line, no legend entry
    CHECK(svg.find("report says why): cuda constant<") != std::string::npos);  // but named as not drawn
  }
  SUBCASE("one point per series: bars of MPix/s; no global: the first ok variant; two OpenCL devices named") {
    cc::Report report;
    report.runs.push_back(run("opencl", "opencl:0:0", "tiled", 3, 0.2));
    report.runs.push_back(run("opencl", "opencl:1:0", "fast", 3, 0.1));
    const std::string svg = drawn(report, path);
    CHECK(svg.find(">MPix/s, higher is better<") != std::string::npos);
    CHECK(svg.find(">opencl:1:0 fast<") != std::string::npos);
    CHECK(svg.find(">opencl:0:0 tiled pinned<") != std::string::npos);
  }
  SUBCASE("a merged report's series keep their machine") {
    cc::Report report;
    report.runs.push_back(run("cuda", "nvidia/cuda:0", "global", 3, 0.1));
    report.runs.push_back(run("opencl", "amd/opencl:0:0", "global", 3, 0.2));
    report.runs.push_back(run("opencl", "nvidia/opencl:0:0", "global", 3, 0.3));
    const std::string svg = drawn(report, path);
    CHECK(svg.find(">nvidia/cuda global<") != std::string::npos);
    CHECK(svg.find(">amd/opencl:0:0 global<") != std::string::npos);
    CHECK(svg.find(">nvidia/opencl:0:0 global<") != std::string::npos);
  }
  SUBCASE("text reaches cairo as it is, markup characters included") {
    cc::Report report;
    report.runs.push_back(run("cuda", "cuda:0", "global", 1, 0.1));
    report.runs.back().filter = "file:a<b&c.txt";
    const std::string svg = drawn(report, path);
    CHECK(svg.find("file:a<b&c.txt") != std::string::npos);
    CHECK(read_file(path).find("a<b") == std::string::npos);  // the file is well-formed: glyphs, no raw text
  }
  SUBCASE("no validated runs: a picture that says so") {
    cc::Report report;
    report.runs.push_back(run("cuda", "cuda:0", "global", 1, 0.1));
    report.runs.back().status = cc::Status::Skipped;
    CHECK(drawn(report, path).find(">no validated runs<") != std::string::npos);
    CHECK(drawn(cc::Report{}, path).find(">no validated runs<") != std::string::npos);
  }
}

TEST_CASE("plot: the PNG loads back at its size with the series drawn in their colours") {
  if (!cc::canvas_available()) {  // a build without cairo: --plot is refused, clearly, before any work
    CHECK_THROWS_WITH_AS(cc::check_plot_path("plot.png"), doctest::Contains("built without cairo"), cc::InputError);
    return;
  }
  TempDir dir("plot");
  cc::write_plot(sweep_report(), dir.file("p.png"));
  const cc::Image png = cc::load_image(dir.file("p.png"));
  CHECK(png.width == 1200);
  CHECK(png.height == 1013);  // a phase bar per variant
  REQUIRE(png.channels == 3);
  CHECK(count_colour(png, 255, 255, 255) > png.width * png.height / 2);  // mostly background
  CHECK(count_colour(png, 44, 160, 44) > 100);                           // tiled's green: lines, markers, legend
  CHECK(count_colour(png, 227, 119, 194) > 100);                         // fast's pink
  CHECK(count_colour(png, 213, 94, 0) > 100);                            // the kernel segment of the phase bars
  CHECK(count_colour(png, 214, 39, 40) == 0);                            // texture's red: not in this report

  cc::write_plot(cc::Report{}, dir.file("empty.png"));
  const cc::Image empty = cc::load_image(dir.file("empty.png"));
  CHECK(empty.width == 1200);
  CHECK(count_colour(empty, 255, 255, 255) < empty.width * empty.height);  // the message is drawn
}

TEST_CASE("plot: a single point's page is as tall as its bars, and the phase panel has a bar per variant") {
  if (!cc::canvas_available()) return;  // refused before any work: the case above
  TempDir dir("plot");
  cc::Report report;  // one size, one radius: a bar per series, no line chart
  for (const char* variant : {"global", "tiled"}) {
    report.runs.push_back(run("cuda", "cuda:0", variant, 1, 0.1));
    report.runs.push_back(run("opencl", "opencl:0:0", variant, 1, 0.2));
  }
  const std::string texts = drawn(report, dir.file("point.png"));
  const cc::Image png = cc::load_image(dir.file("point.png"));
  // 4 rate bars of 44 under the title (60 + 176), 112 to the phase bars, 4 phase bars of 40 (the second
  // API's first 1.3 x), 75 below: it was 900 high, the rate panel 440 of it, two-thirds empty.
  CHECK(png.width == 1200);
  CHECK(png.height == 60 + 176 + 112 + 172 + 75);
  CHECK(count_colour(png, 0x1f, 0x77, 0xb4) > 4000);  // global's two rate bars
  CHECK(count_colour(png, 213, 94, 0) > 100);          // the phase bars' kernel segments
  for (const char* bar : {">cuda global pinned<", ">cuda tiled pinned<", ">opencl global pinned<", ">opencl tiled pinned<"})
    CHECK_MESSAGE(texts.find(bar) != std::string::npos, bar);
}

TEST_CASE("plot: every filter and border group, a page each: PDF pages, PNG and SVG one below the other") {
  if (!cc::canvas_available()) {  // a build without cairo: --plot is refused, clearly, before any work
    CHECK_THROWS_WITH_AS(cc::check_plot_path("plot.png"), doctest::Contains("built without cairo"), cc::InputError);
    return;
  }
  TempDir dir("plot");
  cc::Report report = sweep_report();  // box, border zero, radius 1..4
  for (cc::RunRecord r : sweep_report().runs) {
    r.border = "mirror";
    report.runs.push_back(r);
    r.filter = "gaussian:sigma=1,r=" + std::to_string(r.radius_x);
    report.runs.push_back(r);
  }
  const std::string pdf = drawn(report, dir.file("groups.pdf"));
  for (const char* page : {">group 1 of 3<", ">group 2 of 3<", ">group 3 of 3<"}) CHECK_MESSAGE(pdf.find(page) != std::string::npos, page);
  CHECK(pdf.find("against filter radius: box, image 1024x1024x1, border zero") != std::string::npos);
  CHECK(pdf.find("against filter radius: box, image 1024x1024x1, border mirror") != std::string::npos);
  CHECK(pdf.find("against filter radius: gaussian:sigma=1, image 1024x1024x1, border mirror") != std::string::npos);
  const std::string file = read_file(dir.file("groups.pdf"));
  CHECK(file.starts_with("%PDF-"));
  CHECK(count_of(file, "/Type /Page") - count_of(file, "/Type /Pages") == 3);  // page objects, not the tree

  drawn(report, dir.file("groups.png"));
  CHECK(read_file(dir.file("groups.png")).starts_with("\x89PNG\r\n\x1a\n"));
  const cc::Image png = cc::load_image(dir.file("groups.png"));
  CHECK(png.width == 1200);
  CHECK(png.height == 3 * 1013);
  drawn(report, dir.file("groups.svg"));
  const std::string svg = read_file(dir.file("groups.svg"));
  CHECK(svg.starts_with("<?xml"));
  CHECK(svg.find("viewBox=\"0 0 1200 3039\"") != std::string::npos);
}

TEST_CASE("contact sheet: rows of at most four tiles") {
  TempDir dir("plot");
  const cc::Image tile = filled(40, 30, {128});
  std::vector<int> widths, heights;
  for (int count = 1; count <= 6; ++count) {
    std::vector<cc::LabelledImage> tiles(count, {"tile", &tile});
    cc::write_contact_sheet(tiles, dir.file("sheet.png"));
    const cc::Image sheet = cc::load_image(dir.file("sheet.png"));
    CHECK(count_colour(sheet, 128, 128, 128) == count * 40 * 30);
    widths.push_back(sheet.width), heights.push_back(sheet.height);
  }
  const int cell = widths[1] - widths[0];
  CHECK(cell > 40);
  CHECK(widths[2] == widths[0] + 2 * cell);
  CHECK(widths[3] == widths[0] + 3 * cell);
  CHECK(widths[4] == widths[3]);
  CHECK(widths[5] == widths[3]);
  CHECK(heights[3] == heights[0]);
  CHECK(heights[4] > heights[0] + 30);
  CHECK(heights[5] == heights[4]);
  CHECK_THROWS_AS(cc::write_contact_sheet({}, dir.file("none.png")), cc::InputError);
}

TEST_CASE("contact sheet: scaling, grey, colour and float tiles") {
  TempDir dir("plot");
  const std::string path = dir.file("sheet.png");
  const cc::Image large = filled(1000, 500, {0, 255, 0});
  const cc::Image rgba = filled(20, 10, {200, 50, 10, 0});
  const cc::Image grey_alpha = filled(20, 10, {90, 255});
  cc::Image grey(20, 10, 1, true);     // left half 100, right half 300 (clamped to 255)
  cc::Image floats(20, 10, 1, false);  // left half -7, right half 3: black and white after stretching
  for (int y = 0; y < 10; ++y)
    for (int x = 0; x < 20; ++x) grey.at(0, y, x) = x < 10 ? 100 : 300, floats.at(0, y, x) = x < 10 ? -7 : 3;
  cc::write_contact_sheet(
      {{"large", &large}, {"rgba", &rgba}, {"grey+alpha", &grey_alpha}, {"grey", &grey}, {"float", &floats}},
      path);
  const cc::Image sheet = cc::load_image(path);
  CHECK(count_colour(sheet, 0, 255, 0) == 384 * 192);  // longer side down to 384, aspect kept
  CHECK(count_colour(sheet, 200, 50, 10) == 200);
  CHECK(count_colour(sheet, 90, 90, 90) == 200);
  CHECK(count_colour(sheet, 100, 100, 100) == 100);
  CHECK(count_colour(sheet, 255, 255, 255) == 200);  // grey's clamped half and the float image's maximum
  CHECK(count_colour(sheet, 0, 0, 0) == 100);
}
