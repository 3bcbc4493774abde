// test_tma_plan.cpp: the tma variant in the planning rule: tiled's groups with tile rows padded to whole 16-byte TMA box rows, and the device's reason where it has no TMA.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "backends/launch_plan.h"
#include "common/geometry/tile_shape.h"
#include "tests/support/fixtures.h"

using cc::testing::box_problem;
using cc::testing::plan_variant;

TEST_CASE("tma: tiled's groups, each tile row padded to a whole number of 16-byte box rows") {
  // f32, r = 3: rows of 16 + 6 = 22 pixels, padded to 24 (96 bytes); 22 rows.
  cc::LaunchPlan f32, tiled;
  REQUIRE(plan_variant(f32, "tma", box_problem(640, 360, 3, 3, cc::Border::Clamp, cc::PixelType::F32), cc::testing::h100_limits()) == "");
  REQUIRE(plan_variant(tiled, "tiled", box_problem(640, 360, 3, 3, cc::Border::Clamp, cc::PixelType::F32), cc::testing::h100_limits()) == "");
  CHECK(f32.group.x == tiled.group.x);
  CHECK(f32.group.y == tiled.group.y);
  CHECK(f32.groups.x == tiled.groups.x);
  CHECK(f32.groups.y == tiled.groups.y);
  CHECK(tiled.on_chip_bytes == 22u * 22u * 4u);
  CHECK(f32.on_chip_bytes == 24u * 22u * 4u + cc::kTmaBarrierBytes);  // the box, then its mbarrier
  CHECK(cc::tma_tile_pitch(3, 16, 4) == 24u);
  // 8-bit, one channel, r = 3: the box starts 13 bytes before the tile (16 * block - 3 rounded down to
  // 16), so 13 + 22 bytes a row, padded to 48; RGBA8 as 4-byte pixels, as f32.
  cc::LaunchPlan u8, rgba;
  REQUIRE(plan_variant(u8, "tma", box_problem(640, 360, 3, 3, cc::Border::Clamp, cc::PixelType::U8), cc::testing::h100_limits()) == "");
  CHECK(u8.group.x % 16 == 0);
  CHECK(u8.on_chip_bytes == 48u * 22u + cc::kTmaBarrierBytes);
  REQUIRE(plan_variant(rgba, "tma", box_problem(640, 360, 3, 3, cc::Border::Clamp, cc::PixelType::U8, 4), cc::testing::h100_limits()) == "");
  CHECK(rgba.on_chip_bytes == 24u * 22u * 4u + cc::kTmaBarrierBytes);
  // A radius of whole 16-byte steps needs no lead and no padding: f32, r = 4, 24 pixels.
  CHECK(cc::tma_tile_lead(4, 16, 4) == 0u);
  CHECK(cc::tma_box_bytes(4, 4, 16, 16, 4) == cc::tile_bytes(4, 4, 16, 16, 4));
}

TEST_CASE("tma: every block's box starts on a 16-byte boundary and still holds its whole tile") {
  // The H100 faults ("illegal instruction") copying a box at x = -1 (docs/correctness.md): the first
  // block's box at r = 1 is 24x18 floats at (-4, -1), tools/probes/tma_probe's oob step.
  CHECK(cc::tma_tile_lead(1, 16, 4) == 3u);
  CHECK(cc::tma_tile_pitch(1, 16, 4) == 24u);
  CHECK(cc::tma_tile_lead(2, 16, 4) == 2u);
  CHECK(cc::tma_tile_pitch(2, 16, 4) == 24u);
  CHECK(cc::tma_tile_lead(1, 6, 4) == 3u);  // a group of no whole steps: any lead up to a step less a pixel
  // What tma.cu does per block: its tile's left edge rounded down to a step, the box from there, within the
  // pitch the plan and the tensor map give every block.
  for (const std::size_t pixel_bytes : {std::size_t{1}, std::size_t{4}}) {
    const int step = static_cast<int>(cc::kTmaRowBytes / pixel_bytes);
    for (const int group : {5, 6, 8, 16, 24, 32})
      for (int radius = 0; radius <= 20; ++radius)
        for (int block = 0; block < 40; ++block) {
          const int tile_x0 = block * group - radius;
          const int lead = (tile_x0 % step + step) % step;
          const auto pitch = static_cast<int>(cc::tma_tile_pitch(radius, group, pixel_bytes));
          CAPTURE(pixel_bytes);
          CAPTURE(group);
          CAPTURE(radius);
          CAPTURE(block);
          REQUIRE(((tile_x0 - lead) * static_cast<int>(pixel_bytes)) % 16 == 0);
          REQUIRE(lead <= static_cast<int>(cc::tma_tile_lead(radius, group, pixel_bytes)));
          REQUIRE(lead + group + 2 * radius <= pitch);
          REQUIRE(pitch % step == 0);
        }
  }
}

TEST_CASE("tma: a device without the tensor memory accelerator skips it with the device's reason") {
  cc::DeviceLimits limits = cc::testing::h100_limits();
  limits.missing[cc::Capability::TensorMaps] =
      "the tensor memory accelerator (TMA) needs compute capability 9.0 or later; this device is 8.6";
  cc::LaunchPlan launch;
  CHECK(plan_variant(launch, "tma", box_problem(640, 360, 2, 2, cc::Border::Clamp, cc::PixelType::F32), limits) ==
        limits.missing[cc::Capability::TensorMaps]);
  cc::LaunchPlan tiled;  // the others do not ask
  CHECK(plan_variant(tiled, "tiled", box_problem(640, 360, 2, 2, cc::Border::Clamp, cc::PixelType::F32), limits) == "");
}
