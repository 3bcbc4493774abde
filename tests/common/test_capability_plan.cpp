// test_capability_plan.cpp: the capability table and the planning rule agree: a device lacking one capability skips exactly the variants whose table line needs it, with the device's reason.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/domain/capability.h"
#include "tests/support/fixtures.h"

namespace {

using cc::testing::box_problem;
using cc::testing::plan_variant;

// The H100's limits with room for texture's image: every GPU variant plans on them.
cc::DeviceLimits capable_device() {
  cc::DeviceLimits limits = cc::testing::h100_limits();
  limits.image_max_width = limits.image_max_height = 1 << 16;
  return limits;
}

// The variants a GPU plans (the table's kernels and libraries, not the CPU's loop or auto's choice).
std::vector<const cc::VariantTraits*> planned_variants() {
  std::vector<const cc::VariantTraits*> variants;
  for (const cc::VariantTraits& variant : cc::all_variants())
    if (variant.implemented_by("cuda") || variant.implemented_by("opencl"))
      if (variant.kind != cc::VariantKind::Choice) variants.push_back(&variant);
  return variants;
}

// A problem every planned variant takes: clamp (npp's one border), f32, a rank-1 box.
std::string plan_on(const cc::VariantTraits& variant, const cc::DeviceLimits& limits) {
  cc::LaunchPlan launch;
  return plan_variant(launch, variant.name, box_problem(640, 360, 2, 2, cc::Border::Clamp), limits);
}

}  // namespace

TEST_CASE("capabilities: a device lacking one skips exactly the variants that need it, with its reason") {
  for (const cc::VariantTraits* variant : planned_variants()) {
    CAPTURE(variant->name);
    REQUIRE(plan_on(*variant, capable_device()) == "");  // the baseline: nothing lacking, everything plans
  }
  for (const cc::CapabilityName& lacking : cc::kCapabilityNames) {
    CAPTURE(lacking.name);
    cc::DeviceLimits limits = capable_device();
    limits.missing[lacking.capability] = "this device has no " + std::string(lacking.name);
    int skipped = 0;
    for (const cc::VariantTraits* variant : planned_variants()) {
      CAPTURE(variant->name);
      const std::string reason = plan_on(*variant, limits);
      if (variant->needs.has(lacking.capability)) {
        CHECK(reason == limits.missing[lacking.capability]);
        ++skipped;
      } else {
        CHECK(reason == "");
      }
    }
    CHECK(skipped >= 1);  // every capability gates some variant of the table: none is left unused
  }
}

TEST_CASE("capabilities: a device lacking all of them still plans every variant that needs none") {
  cc::DeviceLimits limits = capable_device();
  for (const cc::CapabilityName& each : cc::kCapabilityNames)
    limits.missing[each.capability] = "no " + std::string(each.name);
  for (const cc::VariantTraits* variant : planned_variants()) {
    CAPTURE(variant->name);
    const std::string reason = plan_on(*variant, limits);
    CHECK((reason == "") == variant->needs.empty());
  }
}

TEST_CASE("capabilities: a set holds what its table line lists, and each has its own name") {
  const cc::Capabilities shuffles{cc::Capability::LaneShuffles};
  CHECK(shuffles.has(cc::Capability::LaneShuffles));
  CHECK_FALSE(shuffles.has(cc::Capability::Clusters));
  CHECK(cc::Capabilities{}.empty());
  CHECK(cc::find_variant("shuffle")->needs.has(cc::Capability::LaneShuffles));
  CHECK(cc::find_variant("texture")->needs.has(cc::Capability::Images));
  CHECK(cc::find_variant("global")->needs.empty());
  CHECK(cc::to_string(cc::Capability::LaneShuffles) == "sub-group shuffles");  // --list's word, which tests/oclgrind.sh reads
  for (std::size_t i = 0; i < cc::kCapabilityCount; ++i)
    for (std::size_t j = i + 1; j < cc::kCapabilityCount; ++j)
      CHECK(cc::kCapabilityNames[i].name != cc::kCapabilityNames[j].name);
}

TEST_CASE("implementation faults: a device that must not build fast's RGBA8 kernels skips fast on RGBA8 only") {
  cc::DeviceLimits limits = capable_device();
  limits.no_fast_rgba8 = "this implementation aborts building fast's RGBA8 kernel";
  for (const int radius : {1, 2, 5, 20}) {
    CAPTURE(radius);
    cc::LaunchPlan launch;
    const auto plan = [&](std::string_view variant, cc::PixelType pixel, int channels) {
      return plan_variant(launch, variant, box_problem(67, 45, radius, radius, cc::Border::Mirror, pixel, channels),
                          limits);
    };
    CHECK(plan("fast", cc::PixelType::U8, 3) == limits.no_fast_rgba8);
    CHECK(plan("fast", cc::PixelType::U8, 4) == limits.no_fast_rgba8);
    CHECK(plan("fast", cc::PixelType::U8, 1) == "");
    CHECK(plan("fast", cc::PixelType::F32, 3) == "");
    CHECK(plan("separable", cc::PixelType::U8, 3) == "");
    CHECK(plan("tiled", cc::PixelType::U8, 3) == "");
  }
}
