// test_eight_bit_plan.cpp: 8-bit frames in the planning rule (-D, tile bytes, skips), shuffle's extension -D beside them, and npp-separable's 8-bit passes.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "backends/launch_plan.h"
#include "backends/npp/eight_bit_passes.h"
#include "common/geometry/pixel_format.h"

namespace {

// A device with everything in plenty but `on_chip` bytes of on-chip memory per group.
cc::DeviceLimits device_with(std::size_t on_chip) {
  cc::DeviceLimits limits;
  limits.memory = limits.max_allocation = 1ull << 32;
  limits.on_chip_bytes = limits.on_chip_default = on_chip;
  limits.constant_bytes = 65536;
  limits.max_group = limits.max_group_x = limits.max_group_y = 1024;
  limits.image_max_width = limits.image_max_height = 16384;
  return limits;
}

cc::Problem eight_bit_problem(int channels, cc::PixelType pixel, int radius) {
  const cc::Image image(45, 31, channels, true);
  const int side = 2 * radius + 1;
  const std::size_t taps = static_cast<std::size_t>(side) * side;
  const cc::Filter box{"box", side, side, std::vector<float>(taps, 1.0f / static_cast<float>(taps))};
  return cc::make_problem(image, box, cc::Border::Zero, false, pixel);
}

struct Planned {
  std::string reason;
  cc::LaunchPlan plan;
};

Planned plan(std::string_view variant, const cc::Problem& problem, const cc::DeviceLimits& limits) {
  Planned planned;
  planned.reason = cc::plan_launch(planned.plan, *cc::find_variant(variant), problem, limits, 1,
                                   [&](const cc::LaunchPlan&) { return cc::KernelLimits{.max_group = 1024}; });
  return planned;
}

}  // namespace

TEST_CASE("pixel formats: f32 planes, u8 for one channel, RGBA8 for two to four, and the -D that builds each") {
  CHECK(cc::pixel_format(eight_bit_problem(3, cc::PixelType::F32, 1)) == CC_PIXEL_F32);
  CHECK(cc::pixel_format(eight_bit_problem(1, cc::PixelType::U8, 1)) == CC_PIXEL_U8);
  for (const int channels : {2, 3, 4})
    CHECK(cc::pixel_format(eight_bit_problem(channels, cc::PixelType::U8, 1)) == CC_PIXEL_U8X4);
  const cc::DeviceLimits limits = device_with(49152);
  const Planned floats = plan("global", eight_bit_problem(3, cc::PixelType::F32, 1), limits);
  REQUIRE(floats.reason.empty());
  CHECK(floats.plan.defines.empty());  // float programs are built as before
  const Planned rgba = plan("global", eight_bit_problem(3, cc::PixelType::U8, 1), limits);
  REQUIRE(rgba.reason.empty());
  CHECK(rgba.plan.defines == std::vector<std::string>{"-DCC_PIXEL=CC_PIXEL_U8X4"});
  // One 8-bit unit in, one out: 45 x 31 pixels of 4 bytes (3 channels padded).
  CHECK(rgba.plan.frame_bytes == 2u * 45 * 31 * 4);
  CHECK(rgba.plan.pixel_bytes == 4);
  CHECK(plan("texture", eight_bit_problem(1, cc::PixelType::U8, 1), limits).plan.defines ==
        std::vector<std::string>{"-DCC_PIXEL=CC_PIXEL_U8"});
}

TEST_CASE("shuffle: the device's shuffle -D beside the format's, nothing on chip, or the device's reason to skip") {
  cc::DeviceLimits limits = device_with(49152);
  limits.lane_shuffle_define = "-DCC_SHUFFLE_KHR";  // an OpenCL device with cl_khr_subgroup_shuffle
  const Planned gray = plan("shuffle", eight_bit_problem(1, cc::PixelType::U8, 3), limits);
  REQUIRE(gray.reason.empty());
  CHECK(gray.plan.defines == std::vector<std::string>{"-DCC_PIXEL=CC_PIXEL_U8", "-DCC_SHUFFLE_KHR"});
  CHECK(gray.plan.on_chip_bytes == 0);
  CHECK(plan("global", eight_bit_problem(1, cc::PixelType::F32, 3), limits).plan.defines.empty());  // only where it shuffles
  limits.lane_shuffle_define.clear();  // CUDA: a warp always shuffles, no -D
  CHECK(plan("shuffle", eight_bit_problem(1, cc::PixelType::F32, 3), limits).plan.defines.empty());
  limits.missing[cc::Capability::LaneShuffles] = "the device offers no sub-group shuffle";
  CHECK(plan("shuffle", eight_bit_problem(4, cc::PixelType::U8, 3), limits).reason ==
        limits.missing[cc::Capability::LaneShuffles]);
  CHECK(plan("global", eight_bit_problem(4, cc::PixelType::U8, 3), limits).reason.empty());
}

TEST_CASE("tiled: the tile is counted in the frame's bytes per pixel, so an 8-bit tile takes larger groups") {
  // 2 KB of local memory, radius 8: a 16x16 group's tile is 32 x 32 pixels.
  const cc::DeviceLimits limits = device_with(2048);
  const Planned floats = plan("tiled", eight_bit_problem(1, cc::PixelType::F32, 8), limits);
  REQUIRE(floats.reason.empty());
  CHECK(floats.plan.group.x == 4);  // 20 x 20 floats = 1600 bytes; 8x8's 24 x 24 floats do not fit
  CHECK(floats.plan.on_chip_bytes == 20u * 20 * 4);
  const Planned gray = plan("tiled", eight_bit_problem(1, cc::PixelType::U8, 8), limits);
  REQUIRE(gray.reason.empty());
  CHECK(gray.plan.group.x == 16);
  CHECK(gray.plan.group.y == 16);
  CHECK(gray.plan.on_chip_bytes == 32u * 32);  // one byte per pixel
  const Planned rgba = plan("tiled", eight_bit_problem(4, cc::PixelType::U8, 8), limits);
  REQUIRE(rgba.reason.empty());
  CHECK(rgba.plan.on_chip_bytes == 20u * 20 * 4);  // four bytes per pixel, as a float
  // Where even a 4x4 tile does not fit, the reason counts its bytes.
  const Planned too_large = plan("tiled", eight_bit_problem(1, cc::PixelType::U8, 30), device_with(2048));
  CHECK(too_large.reason.find("needs 4096 bytes") != std::string::npos);  // (4 + 60)^2 bytes
}

TEST_CASE("u8 skips: a variant without 8-bit kernels says which pixel types it has, fft also why") {
  const cc::DeviceLimits limits = device_with(49152);
  const cc::Problem problem = eight_bit_problem(1, cc::PixelType::U8, 1);
  CHECK(plan("fft", problem, limits).reason ==
        "fft has no u8 kernels (pixel types: f32): its transforms (cuFFT, VkFFT) compute on float planes whatever "
        "the pixels, so 8-bit would change only its pad and crop steps, which do not convert; run it with --pixel f32");
  for (const cc::VariantTraits& variant : cc::all_variants()) {
    CAPTURE(variant.name);
    if (variant.geometry == cc::Geometry::None || (variant.pixels & cc::kU8)) continue;
    CHECK(plan(variant.name, problem, limits).reason.starts_with(std::string(variant.name) + " has no u8 kernels"));
  }
  for (const char* variant : {"global", "constant", "tiled", "texture", "separable", "fast", "npp", "npp-separable"})
    CHECK(cc::find_variant(variant)->pixels == (cc::kF32 | cc::kU8));
}

TEST_CASE("fast and separable on 8-bit: f32's shapes and on-chip bytes (they stage float; RGBA8 quads shorter), 8-bit frames, the format's -D") {
  for (const std::size_t on_chip : {std::size_t{32768}, std::size_t{49152}, std::size_t{232448}}) {
    const cc::DeviceLimits limits = device_with(on_chip);
    for (const int radius : {1, 4, 5, 16, 17, 32}) {
      for (const char* variant : {"fast", "separable"}) {
        CAPTURE(on_chip);
        CAPTURE(radius);
        CAPTURE(variant);
        const Planned floats = plan(variant, eight_bit_problem(1, cc::PixelType::F32, radius), limits);
        REQUIRE(floats.reason.empty());
        for (const int channels : {1, 3, 4}) {
          CAPTURE(channels);
          const Planned bytes = plan(variant, eight_bit_problem(channels, cc::PixelType::U8, radius), limits);
          if (floats.plan.fast.out_x == 1 && std::string_view(variant) == "fast" && channels > 1) {
            // fast's columns scheme has no RGBA8 kernel yet (launch_plan.cpp): a reasoned skip
            CHECK(bytes.reason.find("columns scheme") != std::string::npos);
            continue;
          }
          REQUIRE(bytes.reason.empty());
          // The one difference: RGBA8's quads hold a float4 per output and take 2 rows from r = 2
          // (common/geometry/fast_shape.h), so the 45 x 31 image needs 16 rows of work-items, not 8.
          const bool short_quads = std::string_view(variant) == "fast" && floats.plan.fast.quads() && channels > 1 &&
                                   radius >= cc::kFastShortQuadsRadius;
          std::vector<std::string> defines = floats.plan.defines;
          std::size_t groups_y = floats.plan.groups.y;
          if (short_quads) {
            CHECK(bytes.plan.fast.out_y == 2);
            std::replace(defines.begin(), defines.end(), std::string("-DOUT_Y=4"), std::string("-DOUT_Y=2"));
            groups_y = (16 + floats.plan.group.y - 1) / floats.plan.group.y;
          }
          CHECK(bytes.plan.on_chip_bytes == floats.plan.on_chip_bytes);
          CHECK(bytes.plan.group.items() == floats.plan.group.items());
          CHECK(bytes.plan.groups.x == floats.plan.groups.x);
          CHECK(bytes.plan.groups.y == groups_y);
          defines.emplace_back(channels == 1 ? "-DCC_PIXEL=CC_PIXEL_U8" : "-DCC_PIXEL=CC_PIXEL_U8X4");
          CHECK(bytes.plan.defines == defines);
          const std::size_t pixel_bytes = channels == 1 ? 1 : 4;
          CHECK(bytes.plan.pixel_bytes == pixel_bytes);
          CHECK(bytes.plan.frame_bytes == 2u * 45 * 31 * pixel_bytes);
        }
      }
    }
  }
}

TEST_CASE("npp-separable on 8-bit: the non-negative factor first, scaled to sum 1, the product unchanged") {
  const auto product = [](const cc::npp::EightBitPasses& passes, int r, int c) {
    const float column = passes.column_first ? passes.first[r] : passes.second[r];
    const float row = passes.column_first ? passes.second[c] : passes.first[c];
    return column * row;
  };
  SUBCASE("a gaussian-like filter: rows first, as for floats") {
    const cc::SeparableFactors factors{{1, 2, 1}, {2, 4, 2}};
    const auto passes = cc::npp::eight_bit_passes(factors);
    REQUIRE(passes);
    CHECK_FALSE(passes->column_first);
    CHECK(passes->first == std::vector<float>{0.25f, 0.5f, 0.25f});
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) CHECK(product(*passes, r, c) == doctest::Approx(factors.column[r] * factors.row[c]));
  }
  SUBCASE("sobel-x (row -1 0 1): the column goes first, the row takes the scale") {
    const cc::SeparableFactors factors{{1, 2, 1}, {-1, 0, 1}};
    const auto passes = cc::npp::eight_bit_passes(factors);
    REQUIRE(passes);
    CHECK(passes->column_first);
    CHECK(passes->first == std::vector<float>{0.25f, 0.5f, 0.25f});
    CHECK(passes->second == std::vector<float>{-4, 0, 4});
  }
  SUBCASE("a factor with only negative weights is negated, the other with it") {
    const cc::SeparableFactors factors{{-1, -3}, {1, -2, 1}};
    const auto passes = cc::npp::eight_bit_passes(factors);
    REQUIRE(passes);
    CHECK(passes->column_first);
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 3; ++c) CHECK(product(*passes, r, c) == doctest::Approx(factors.column[r] * factors.row[c]));
  }
  SUBCASE("both factors of mixed sign: declined, as the first pass would saturate at 0") {
    CHECK_FALSE(cc::npp::eight_bit_passes(cc::SeparableFactors{{-1, 0, 1}, {1, 0, -1}}));
    CHECK(cc::npp::kNoEightBitPasses.find("negative") != std::string_view::npos);
  }
}

TEST_CASE("a built kernel declaring more on-chip memory than its tile is planned again with that overhead off") {
  // As NVIDIA's OpenCL builds fast's 8-bit kernel: 16 bytes beyond the tile. The first shape fills 48 KB,
  // so the kernel would not fit; the plan is made again under 48 KB - 16 and the kernel rebuilt.
  const cc::DeviceLimits limits = device_with(49152);
  const cc::Problem problem = eight_bit_problem(1, cc::PixelType::U8, 32);
  cc::LaunchPlan plan;
  int builds = 0;
  const std::string reason =
      cc::plan_launch(plan, *cc::find_variant("fast"), problem, limits, 1, [&](const cc::LaunchPlan& built) {
        ++builds;
        return cc::KernelLimits{
            .max_group = 1024, .static_on_chip_bytes = built.on_chip_bytes + 16, .on_chip_is_dynamic = false};
      });
  CHECK(reason.empty());
  CHECK(plan.on_chip_bytes + 16 <= limits.on_chip_bytes);
  CHECK(builds == 2);
  // A kernel within the device's memory is built once.
  builds = 0;
  cc::LaunchPlan fits;
  CHECK(cc::plan_launch(fits, *cc::find_variant("fast"), eight_bit_problem(1, cc::PixelType::U8, 3), limits, 1,
                        [&](const cc::LaunchPlan& built) {
                          ++builds;
                          return cc::KernelLimits{
            .max_group = 1024, .static_on_chip_bytes = built.on_chip_bytes + 16, .on_chip_is_dynamic = false};
                        })
            .empty());
  CHECK(builds == 1);
}
