// test_radius_plot.cpp: docs/memory-spaces-evidence.md's radius figure, its command at a small size on this machine's OpenCL: every variant at r = 0 ran or says why not, and the PNG has its ceilings.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "common/domain/image_io.h"
#include "common/report/canvas.h"
#include "run_command.h"
#include "tests/support/temp_dir.h"

using cc::test::TempDir;
using nlohmann::json;

#ifdef CONVCOMPARE_WITH_OPENCL
TEST_CASE("radius figure: every variant at r = 0..3 runs or is skipped with its reason, and the plot draws the ceilings") {
  if (!cc::canvas_available()) return;  // --plot is refused before any work: test_cli.cpp
  const auto list = cc::test::run_command({CONVCOMPARE_EXE, "--list", "--backend", "opencl"});
  if (list.out.find("opencl: no device") != std::string::npos) {
    MESSAGE("no OpenCL device here: the radius figure's command was not run");
    return;
  }
  TempDir dir("radius-plot");
  // docs/memory-spaces-evidence.md's command ("Every variant against the radius"), at 48x48 on r = 0..3.
  const cc::test::CommandResult result = cc::test::run_command(
      {CONVCOMPARE_EXE, "--backend", "opencl", "--size", "48x48", "--filter", "box", "--border", "clamp", "--sweep",
       "radius=0..3", "--variant", "all", "--cold", "--repetitions", "2", "--warmup", "1", "--time-budget", "0.05", "--quiet",
       "--json", dir / "radius.json", "--plot", dir / "radius.png"},
      std::chrono::seconds(240));
  INFO("stderr: " << result.err);
  REQUIRE(result.status == 0);

  std::ifstream file(dir / "radius.json");
  const json report = json::parse(file);
  std::set<std::string> at_zero;
  for (const json& run : report["runs"]) {
    INFO(run["variant"].get<std::string>() << " " << run["filter"].get<std::string>());
    const std::string status = run["status"];
    CHECK((status == "ok" || status == "skipped"));
    if (status == "skipped") CHECK(!run["reason"].get<std::string>().empty());
    if (run["radius_x"] == 0 && run["radius_y"] == 0) at_zero.insert(run["variant"].get<std::string>());
  }
  // A row at r = 0 for each OpenCL variant (a 1x1 filter is a problem like any other, not left out).
  for (const char* variant : {"global", "constant", "tiled", "texture", "separable", "fft", "fast", "async", "shuffle",
                              "lowrank"})
    CHECK_MESSAGE(at_zero.count(variant) == 1, variant);
  for (const json& device : report["devices"])
    if (device["backend"] == "opencl" && device["peaks"]["untimed"].is_null())
      CHECK(device["peaks"]["copy_gb_per_s"].get<double>() > 0);

  const cc::Image png = cc::load_image(dir / "radius.png");
  CHECK(png.width == 1200);
  CHECK(png.height >= 900);
  int black = 0;  // the first device's ceilings' ink (common/report/plot.cpp): nothing else on the page is pure black
  for (int y = 0; y < png.height; ++y)
    for (int x = 0; x < png.width; ++x) black += png.at(0, y, x) == 0 && png.at(1, y, x) == 0 && png.at(2, y, x) == 0;
  CHECK(black > 200);
}
#endif
