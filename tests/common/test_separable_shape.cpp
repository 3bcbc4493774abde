// test_separable_shape.cpp: which tile and bands the fused separable kernel compiles for each radius and on-chip size.
#include <doctest/doctest.h>

#include <optional>

#include "common/geometry/separable_shape.h"
#include "tests/support/fixtures.h"
#include "tests/support/separable_layout.h"

using cc::testing::kH100CudaOptIn;
using cc::testing::kH100OpenClLocal;

using cc::testing::check_separable_layout;

TEST_CASE("separable: small radii take one band of a 64-wide tile, 256 threads") {
  const std::optional<cc::SeparableShape> r1 = cc::separable_shape(1, 1, kH100OpenClLocal);
  REQUIRE(r1);
  CHECK(r1->tile_w == 64);
  CHECK(r1->tile_h == 32);
  CHECK(r1->threads == 256);
  CHECK(r1->bands == 1);
  CHECK(r1->band == 34);
  // 34 rows of 67 staged floats and 34 of 65 row-pass results.
  CHECK(cc::separable_on_chip_bytes(*r1, 1) == (34 * 67 + 34 * 65) * sizeof(float));
  const std::optional<cc::SeparableShape> r7 = cc::separable_shape(7, 7, kH100OpenClLocal);
  REQUIRE(r7);
  CHECK(r7->tile_h == 64);
  CHECK(r7->bands == 1);
}

TEST_CASE("separable: large radii take a tall 32-wide tile in bands, the same shape in both APIs") {
  for (const int radius : {9, 16, 32, 48, 64, 96, 112}) {
    const std::optional<cc::SeparableShape> opencl = cc::separable_shape(radius, radius, kH100OpenClLocal);
    const std::optional<cc::SeparableShape> cuda = cc::separable_shape(radius, radius, kH100CudaOptIn);
    REQUIRE(opencl);
    REQUIRE(cuda);
    check_separable_layout(*opencl, radius, radius, kH100OpenClLocal);
    CHECK(opencl->tile_w == 32);
    CHECK(cc::separable_defines(*opencl, radius, radius) == cc::separable_defines(*cuda, radius, radius));
  }
  CHECK(cc::separable_shape(32, 32, kH100OpenClLocal)->bands > 1);
}

TEST_CASE("separable: every radius to the limit fits somewhere, non-square ones too") {
  for (int radius_x = 0; radius_x <= cc::kSeparableMaxRadius; radius_x += 7)
    for (const int radius_y : {0, 1, 5, 40, cc::kSeparableMaxRadius}) {
      const std::optional<cc::SeparableShape> shape = cc::separable_shape(radius_x, radius_y, kH100CudaOptIn);
      REQUIRE(shape);
      check_separable_layout(*shape, radius_x, radius_y, kH100CudaOptIn);
    }
}

TEST_CASE("separable: radii that do not fit say why") {
  // r = 128 needs 50 KB even in its thinnest bands: over OpenCL's 48 KB, within CUDA's opt-in.
  CHECK_FALSE(cc::separable_shape(128, 128, kH100OpenClLocal));
  CHECK(cc::separable_shape(128, 128, kH100CudaOptIn));
  CHECK(cc::separable_limit_reason(128, 128, kH100OpenClLocal, "local memory") ==
        "radius 128x128 needs at least 51488 bytes of local memory per block, the device has 49152");
  CHECK_FALSE(cc::separable_shape(129, 1, kH100CudaOptIn));
  CHECK(cc::separable_limit_reason(129, 1, kH100CudaOptIn, "shared memory") ==
        "radius 129x1 is over the separable variant's compile-time limit of 128 (the fft variant takes it)");
}

TEST_CASE("separable: one work-group per tile, rounded up") {
  const cc::SeparableShape shape{.threads = 256, .tile_w = 64, .tile_h = 32, .band = 34, .bands = 1};
  const auto [columns, rows] = cc::separable_groups(shape, 300, 200);
  CHECK(columns == 5);
  CHECK(rows == 7);
  CHECK(cc::separable_defines(shape, 1, 1) ==
        std::vector<std::string>{"-DRADIUS_X=1", "-DRADIUS_Y=1", "-DTHREADS=256", "-DTILE_W=64", "-DTILE_H=32",
                                 "-DROW_OUT=8", "-DCOLUMN_OUT=8", "-DBAND=34", "-DBANDS=1"});
}

TEST_CASE("separable: with fewer work-items per group, the same tile in fewer threads, down to 32") {
  for (const std::size_t limit : {256, 128, 64, 32}) {
    const std::optional<cc::SeparableShape> r1 = cc::separable_shape(1, 1, kH100OpenClLocal, limit);
    REQUIRE(r1);
    CHECK(r1->threads == static_cast<int>(limit));
    CHECK(r1->tile_w == 64);
    CHECK(r1->tile_h == 32);
    CHECK(r1->band == 34);
  }
  // r = 20 on Rusticl's 32 KB and 32 work-items: the tall tile, 32 threads
  const std::optional<cc::SeparableShape> r20 = cc::separable_shape(20, 20, 32 * 1024, 32);
  REQUIRE(r20);
  CHECK(r20->threads == 32);
  CHECK(r20->tile_w == 32);
  CHECK(r20->tile_h == 128);
  // a limit that is not a power of two: the largest power of two under it
  CHECK(cc::separable_shape(1, 1, kH100OpenClLocal, 200)->threads == 128);
  // fewer than 32: 32 threads, which the caller's limit check refuses
  CHECK(cc::separable_shape(1, 1, kH100OpenClLocal, 16)->threads == 32);
  // no limit named: CUDA's 1024, the same shape as at 256
  CHECK(cc::separable_defines(*cc::separable_shape(7, 7, kH100OpenClLocal), 7, 7) ==
        cc::separable_defines(*cc::separable_shape(7, 7, kH100OpenClLocal, 256), 7, 7));
}

TEST_CASE("separable: every radius to 32 that has a shape has one at every limit down to 32 work-items") {
  for (const std::size_t on_chip : {32 * 1024, 48 * 1024, 64 * 1024})
    for (int radius_x = 0; radius_x <= 32; ++radius_x)
      for (int radius_y = 0; radius_y <= 32; ++radius_y) {
        const bool exists = cc::separable_shape(radius_x, radius_y, on_chip, 256).has_value();
        for (const std::size_t limit : {128, 64, 32}) {
          CAPTURE(radius_x);
          CAPTURE(radius_y);
          CAPTURE(limit);
          const std::optional<cc::SeparableShape> shape = cc::separable_shape(radius_x, radius_y, on_chip, limit);
          REQUIRE(shape.has_value() == exists);
          if (!shape) continue;
          CHECK(static_cast<std::size_t>(shape->threads) <= limit);
          check_separable_layout(*shape, radius_x, radius_y, on_chip);
        }
      }
}
