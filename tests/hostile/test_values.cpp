// test_values.cpp: hostile pixel and weight values: a NaN in the input (fft skipped, direct variants as the reference) and sums beyond float's range (refused as input, not failed as kernels).
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/hostile/hostile_support.h"
#include "tests/support/image_files.h"
#include "tests/support/temp_dir.h"

using namespace cc::hostile;
using cc::test::TempDir;
using cc::test::write_binary;

TEST_CASE("values: a NaN pixel stays where it is in every direct variant, and fft is skipped with the reason") {
  if (const std::string reason = backend_unavailable(); !reason.empty()) {
    MESSAGE("skipped: " << reason);
    return;
  }
  TempDir dir("hostile");
  write_binary(dir / "nan.pfm", cc::test::pfm_file(23, 17, [](int x, int y) {
                 return x == 11 && y == 8 ? std::numeric_limits<float>::quiet_NaN() : 0.25f * static_cast<float>((x + y) % 5);
               }));
  std::vector<std::string> args = run_args({"--image", dir / "nan.pfm", "--filter", "box:r=2", "--border", "mirror",
                                            "--quiet", "--json", dir / "r.json"});
  if (backend() == "opencl") args.insert(args.end(), {"--variant", "global,tiled,fast,fft"});
  const CommandResult result = convcompare(args);
  check_validated(result);
  const nlohmann::json report = nlohmann::json::parse(read_text(dir / "r.json"));
  int validated = 0, fft_skipped = 0;
  for (const auto& run : report["runs"]) {
    INFO(run.dump());
    if (run["variant"] == "fft") {
      CHECK(run["status"] == "skipped");
      CHECK(run["reason"].get<std::string>().find("NaN or infinity") != std::string::npos);
      ++fft_skipped;
    } else {
      CHECK(run["status"] == "ok");
      ++validated;
    }
  }
  CHECK(validated >= 1);
  CHECK(fft_skipped == (backend() == "opencl" ? 1 : 0));
}

TEST_CASE("values: weights whose sums leave float's range are refused as input, before any run") {
  TempDir dir("hostile");
  // Finite weights whose products overflow (sharpen's centre is 1 + 8 x strength), and a file of 1e38s.
  check_refused(convcompare(run_args({"--size", "16x16", "--filter", "sharpen:strength=3e38"})),
                {"sharpen:strength=3e38", "beyond float"});
  write_binary(dir / "huge.txt", "3 3\n1e38 1e38 1e38\n1e38 1e38 1e38\n1e38 1e38 1e38\n");
  check_refused(convcompare(run_args({"--size", "16x16", "--filter", "file:" + (dir / "huge.txt")})),
                {"huge.txt", "beyond float"});
  // The same weights on an image that keeps them in range run and validate: the bound is the image's too.
  write_binary(dir / "small.pfm", cc::test::pfm_file(9, 7, [](int x, int y) { return 1e-3f * static_cast<float>(x + y); }));
  check_validated(convcompare(run_args({"--image", dir / "small.pfm", "--filter", "file:" + (dir / "huge.txt"), "--quiet"})));
}
