// test_lowrank_shape.cpp: which tiles, bands and strips the lowrank kernel compiles for each radius, rank and image size.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "common/geometry/lowrank_shape.h"
#include "tests/support/fixtures.h"
#include "tests/support/separable_layout.h"

using cc::testing::kH100CudaOptIn;
using cc::testing::kH100OpenClLocal;

using cc::testing::check_separable_layout;

TEST_CASE("lowrank: LoG and DoG sizes (8192x8192, two terms, r = 16 and 32) run strips of 32-row tiles in 48 KB, "
          "the same shape in both APIs") {
  for (const int radius : {16, 32}) {
    CAPTURE(radius);
    const std::optional<cc::SeparableShape> opencl = cc::lowrank_shape(radius, radius, 8192, 8192, kH100OpenClLocal, 1024, 2);
    const std::optional<cc::SeparableShape> cuda = cc::lowrank_shape(radius, radius, 8192, 8192, kH100CudaOptIn, 1024, 2);
    REQUIRE(opencl);
    REQUIRE(cuda);
    check_separable_layout(*opencl, radius, radius, kH100OpenClLocal, 2);
    CHECK(opencl->tile_h == 32);
    CHECK(opencl->chunks * opencl->tile_h == cc::kLowRankStripRows);
    CHECK(cc::lowrank_defines(*opencl, radius, radius, 2) == cc::lowrank_defines(*cuda, radius, radius, 2));
  }
  // r = 32: 32x32 tiles of 128 threads in three bands of 32 rows, 37760 bytes (the single tile that fits
  // was 32x64 with 64 threads, its row pass on 128 rows for 64)
  const cc::SeparableShape r32 = *cc::lowrank_shape(32, 32, 8192, 8192, kH100OpenClLocal, 1024, 2);
  CHECK(r32.threads == 128);
  CHECK(r32.tile_w == 32);
  CHECK(r32.band == 32);
  CHECK(r32.bands == 3);
  CHECK(cc::separable_on_chip_bytes(r32, 32, 2) == (32 * 97 + 2 * 96 * 33) * sizeof(float));
}

TEST_CASE("lowrank: a strip costs fewer issue slots per output than the best single tile where the apron is large") {
  for (const int radius : {16, 32}) {
    CAPTURE(radius);
    const cc::SeparableShape strip = *cc::lowrank_shape(radius, radius, 8192, 8192, kH100OpenClLocal, 1024, 2);
    const cc::SeparableShape single = *cc::separable_shape(radius, radius, kH100OpenClLocal, 1024, 2);
    REQUIRE(single.chunks == 1);
    CHECK(cc::lowrank_slots_per_output(strip, radius, radius, 2) < cc::lowrank_slots_per_output(single, radius, radius, 2));
  }
  // one tile per strip is the single tile's cost: the strip terms vanish
  cc::SeparableShape tile{.threads = 128, .tile_w = 32, .tile_h = 32, .band = 32, .bands = 3};
  const double one = cc::lowrank_slots_per_output(tile, 32, 32, 2);
  tile.chunks = 16;
  const double sixteen = cc::lowrank_slots_per_output(tile, 32, 32, 2);
  CHECK(sixteen < 0.6 * one);
}

TEST_CASE("lowrank: strips only where they pay: radii under 16 and small images keep one tile per block") {
  // and below kLowRankStripMinRadius, where strips measured slower on the H200 (r = 7, 13)
  for (const int radius : {0, 1, 2, 3, 4, 7, 13, 15}) {
    CAPTURE(radius);
    CHECK(cc::lowrank_shape(radius, radius, 8192, 8192, kH100OpenClLocal, 1024, 2)->chunks == 1);
  }
  CHECK(cc::lowrank_shape(16, 16, 8192, 8192, kH100OpenClLocal, 1024, 2)->chunks > 1);
  // 2048x2048 at r = 16: the grid allows strips of 2 tiles only, which a 64-row tile matches in fewer slots
  CHECK(cc::lowrank_shape(16, 16, 2048, 2048, kH100OpenClLocal, 1024, 2)->chunks == 1);
  CHECK(cc::lowrank_shape(16, 16, 67, 45, kH100OpenClLocal, 1024, 2)->chunks == 1);
  // 4096x2048: strips of 4 tiles (kLowRankMinGroups: 128 columns x 64 tiles down / 2048)
  CHECK(cc::lowrank_shape(16, 16, 4096, 2048, kH100OpenClLocal, 1024, 2)->chunks == 4);
}

TEST_CASE("lowrank: tiles per strip follow the strip's rows, the grid's groups and the image's height") {
  const cc::SeparableShape tile{.threads = 128, .tile_w = 32, .tile_h = 32, .band = 32, .bands = 3};
  CHECK(cc::lowrank_chunks(tile, 8192, 8192) == 16);   // kLowRankStripRows / 32
  CHECK(cc::lowrank_chunks(tile, 4096, 2048) == 4);    // 128 x 64 tiles / kLowRankMinGroups
  CHECK(cc::lowrank_chunks(tile, 67, 45) == 2);        // at least 2 where the image is 2 tiles tall
  CHECK(cc::lowrank_chunks(tile, 67, 32) == 1);        // one tile tall
  CHECK(cc::lowrank_chunks(tile, 64, 20000) == 2);     // narrow: 2 columns leave the grid small
  CHECK(cc::lowrank_chunks(tile, 8192, 8192, 1024) == 32);  // CONVCOMPARE_LOWRANK_STRIP_ROWS's other heights
  CHECK(cc::lowrank_chunks(tile, 8192, 8192, 63) == 1);
  CHECK(cc::lowrank_chunks(tile, 8192, 8192, 0) == 1);
  CHECK(cc::lowrank_shape(32, 32, 8192, 8192, kH100OpenClLocal, 1024, 2, 0)->chunks == 1);
  CHECK(cc::lowrank_shape(32, 32, 8192, 8192, kH100OpenClLocal, 1024, 2, 256)->chunks == 8);
  cc::SeparableShape strip = tile;
  strip.chunks = 16;
  const auto [columns, rows] = cc::separable_groups(strip, 8192, 8192);
  CHECK(columns == 256);
  CHECK(rows == 16);
  strip.chunks = 2;
  CHECK(cc::separable_groups(strip, 300, 200).second == 4);  // 64-row strips, the last one partial
  CHECK(cc::lowrank_defines(strip, 3, 5, 2) ==
        std::vector<std::string>{"-DRADIUS_X=3", "-DRADIUS_Y=5", "-DTHREADS=128", "-DTILE_W=32", "-DTILE_H=32",
                                 "-DROW_OUT=8", "-DCOLUMN_OUT=8", "-DBAND=32", "-DBANDS=3", "-DTERMS=2", "-DCHUNKS=2"});
}

TEST_CASE("lowrank: every radius and rank that separable's shapes fit, lowrank's fit too, at every image size") {
  for (const int terms : {1, 2, 3, 4})
    for (const std::size_t on_chip : {kH100OpenClLocal, kH100CudaOptIn})
      for (int radius_x = 0; radius_x <= cc::kSeparableMaxRadius; radius_x += 9)
        for (const int radius_y : {0, 1, 7, 16, 32, 40})
          for (const auto& [width, height] : {std::pair{67, 45}, {4096, 2048}, {8192, 8192}}) {
            CAPTURE(width);
            CAPTURE(height);
            CAPTURE(on_chip);
            const bool separable_fits = cc::separable_shape(radius_x, radius_y, on_chip, 1024, terms).has_value();
            const std::optional<cc::SeparableShape> shape =
                cc::lowrank_shape(radius_x, radius_y, width, height, on_chip, 1024, terms);
            if (separable_fits) REQUIRE(shape);
            if (shape) check_separable_layout(*shape, radius_x, radius_y, on_chip, terms);
          }
}
