// test_cluster_plan.cpp: the cluster variant in the planning rule: whole clusters of kClusterGroups, fewer on a small grid, and the device's reason where it has no clusters.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "backends/launch_plan.h"
#include "common/geometry/tile_shape.h"

namespace {

// An H100's limits as far as the tile plan reads them (227 KB of shared memory with the opt-in).
cc::DeviceLimits hopper() {
  cc::DeviceLimits limits;
  limits.memory = limits.max_allocation = 1ull << 34;
  limits.on_chip_bytes = 232448;
  limits.on_chip_default = 49152;
  limits.constant_bytes = 65536;
  limits.max_group = limits.max_group_x = limits.max_group_y = 1024;
  return limits;
}

cc::Problem problem_of(int width, int height, int radius_x, int radius_y) {
  const cc::Image image(width, height, 1, true);
  const int side_x = 2 * radius_x + 1, side_y = 2 * radius_y + 1;
  const cc::Filter box{"box", side_x, side_y, std::vector<float>(static_cast<std::size_t>(side_x) * side_y, 0.01f)};
  return cc::make_problem(image, box, cc::Border::Mirror, false, cc::PixelType::F32);
}

std::string plan(cc::LaunchPlan& launch, std::string_view variant, const cc::Problem& problem,
                 const cc::DeviceLimits& limits) {
  return cc::plan_launch(launch, *cc::find_variant(variant), problem, limits, 1,
                         [](const cc::LaunchPlan&) { return cc::KernelLimits{.max_group = 1024}; });
}

}  // namespace

TEST_CASE("cluster: the grid is whole clusters of 4x2 groups, the groups past the image included") {
  REQUIRE(cc::kClusterGroups.x * cc::kClusterGroups.y <= 8);  // CUDA's portable cluster size
  cc::LaunchPlan launch;
  // 67x45 in 16x16 groups is 5x3 groups: two clusters across, two down, 8x4 groups.
  REQUIRE(plan(launch, "cluster", problem_of(67, 45, 2, 2), hopper()) == "");
  CHECK(launch.group.x == 16);
  CHECK(launch.group.y == 16);
  REQUIRE(launch.cluster);
  CHECK(launch.cluster->x == 4);
  CHECK(launch.cluster->y == 2);
  CHECK(launch.groups.x == 8);
  CHECK(launch.groups.y == 4);
  // The tile is tiled's: the cluster changes where the apron comes from, not the tile.
  cc::LaunchPlan tiled;
  REQUIRE(plan(tiled, "tiled", problem_of(67, 45, 2, 2), hopper()) == "");
  CHECK_FALSE(tiled.cluster);
  CHECK(tiled.groups.x == 5);
  CHECK(tiled.groups.y == 3);
  CHECK(launch.on_chip_bytes == tiled.on_chip_bytes);
}

TEST_CASE("cluster: a grid with fewer groups than a cluster on an axis gets a smaller cluster, down to one group") {
  cc::LaunchPlan one;
  REQUIRE(plan(one, "cluster", problem_of(1, 1, 32, 32), hopper()) == "");
  REQUIRE(one.cluster);
  CHECK(one.cluster->x == 1);
  CHECK(one.cluster->y == 1);
  CHECK(one.groups.x == 1);
  CHECK(one.groups.y == 1);
  cc::LaunchPlan strip;  // 3 groups across, 1 down: one cluster of 3x1
  REQUIRE(plan(strip, "cluster", problem_of(40, 9, 4, 0), hopper()) == "");
  REQUIRE(strip.cluster);
  CHECK(strip.cluster->x == 3);
  CHECK(strip.cluster->y == 1);
  CHECK(strip.groups.x == 3);
  CHECK(strip.groups.y == 1);
}

TEST_CASE("cluster: a device without thread-block clusters skips it with the device's reason") {
  cc::DeviceLimits limits = hopper();
  limits.no_clusters = "thread-block clusters need compute capability 9.0 or later (cudaDevAttrClusterLaunch); "
                       "this device is 8.6";
  cc::LaunchPlan launch;
  CHECK(plan(launch, "cluster", problem_of(67, 45, 2, 2), limits) == limits.no_clusters);
  cc::LaunchPlan tiled;  // the others do not ask
  CHECK(plan(tiled, "tiled", problem_of(67, 45, 2, 2), limits) == "");
}
