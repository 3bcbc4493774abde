// test_cluster_plan.cpp: the cluster variant in the planning rule: whole clusters of kClusterGroups, fewer on a small grid, and the device's reason where it has no clusters.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "backends/launch_plan.h"
#include "common/geometry/tile_shape.h"
#include "tests/support/fixtures.h"

using cc::testing::box_problem;
using cc::testing::plan_variant;

TEST_CASE("cluster: the grid is whole clusters of 4x2 groups, the groups past the image included") {
  REQUIRE(cc::kClusterGroups.x * cc::kClusterGroups.y <= 8);  // CUDA's portable cluster size
  cc::LaunchPlan launch;
  // 67x45 in 16x16 groups is 5x3 groups: two clusters across, two down, 8x4 groups.
  REQUIRE(plan_variant(launch, "cluster", box_problem(67, 45, 2, 2, cc::Border::Mirror), cc::testing::h100_limits()) == "");
  CHECK(launch.group.x == 16);
  CHECK(launch.group.y == 16);
  REQUIRE(launch.cluster);
  CHECK(launch.cluster->x == 4);
  CHECK(launch.cluster->y == 2);
  CHECK(launch.groups.x == 8);
  CHECK(launch.groups.y == 4);
  // The tile is tiled's: the cluster changes where the apron comes from, not the tile.
  cc::LaunchPlan tiled;
  REQUIRE(plan_variant(tiled, "tiled", box_problem(67, 45, 2, 2, cc::Border::Mirror), cc::testing::h100_limits()) == "");
  CHECK_FALSE(tiled.cluster);
  CHECK(tiled.groups.x == 5);
  CHECK(tiled.groups.y == 3);
  CHECK(launch.on_chip_bytes == tiled.on_chip_bytes);
}

TEST_CASE("cluster: a grid with fewer groups than a cluster on an axis gets a smaller cluster, down to one group") {
  cc::LaunchPlan one;
  REQUIRE(plan_variant(one, "cluster", box_problem(1, 1, 32, 32, cc::Border::Mirror), cc::testing::h100_limits()) == "");
  REQUIRE(one.cluster);
  CHECK(one.cluster->x == 1);
  CHECK(one.cluster->y == 1);
  CHECK(one.groups.x == 1);
  CHECK(one.groups.y == 1);
  cc::LaunchPlan strip;  // 3 groups across, 1 down: one cluster of 3x1
  REQUIRE(plan_variant(strip, "cluster", box_problem(40, 9, 4, 0, cc::Border::Mirror), cc::testing::h100_limits()) == "");
  REQUIRE(strip.cluster);
  CHECK(strip.cluster->x == 3);
  CHECK(strip.cluster->y == 1);
  CHECK(strip.groups.x == 3);
  CHECK(strip.groups.y == 1);
}

TEST_CASE("cluster: a device without thread-block clusters skips it with the device's reason") {
  cc::DeviceLimits limits = cc::testing::h100_limits();
  limits.missing[cc::Capability::Clusters] =
      "thread-block clusters need compute capability 9.0 or later (cudaDevAttrClusterLaunch); this device is 8.6";
  cc::LaunchPlan launch;
  CHECK(plan_variant(launch, "cluster", box_problem(67, 45, 2, 2, cc::Border::Mirror), limits) ==
        limits.missing[cc::Capability::Clusters]);
  cc::LaunchPlan tiled;  // the others do not ask
  CHECK(plan_variant(tiled, "tiled", box_problem(67, 45, 2, 2, cc::Border::Mirror), limits) == "");
}
