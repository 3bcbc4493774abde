// test_fast_shape.cpp: which scheme and block the fast variant compiles for each radius and on-chip size.
#include <doctest/doctest.h>

#include "common/geometry/fast_shape.h"
#include "tests/support/fixtures.h"

using cc::testing::kH100CudaOptIn;
using cc::testing::kH100OpenClLocal;

TEST_CASE("fast: quads below radius 5, with no tile and 4 x 4 outputs per thread") {
  for (const int radius : {0, 1, 4}) {
    const cc::FastShape shape = cc::fast_shape(radius, radius, kH100OpenClLocal);
    CHECK(shape.quads());
    CHECK(shape.out_x == 4);
    CHECK(shape.out_y == 4);
    CHECK(cc::fast_tile_bytes(shape, radius, radius) == 0);
  }
  CHECK_FALSE(cc::fast_shape(5, 1, kH100OpenClLocal).quads());  // either axis at 5 leaves the quads' halo
  CHECK_FALSE(cc::fast_shape(1, 5, kH100OpenClLocal).quads());
}

TEST_CASE("fast: RGBA8 quads (a float4 per output) take 2 rows per thread from radius 2, every other format 4") {
  for (const std::size_t limit : {256, 32}) {
    CHECK(cc::fast_shape(1, 1, kH100OpenClLocal, limit, 4).out_y == 4);
    CHECK(cc::fast_shape(2, 0, kH100OpenClLocal, limit, 4).out_y == 2);  // either axis
    CHECK(cc::fast_shape(1, 2, kH100OpenClLocal, limit, 4).out_y == 2);
    CHECK(cc::fast_shape(4, 4, kH100OpenClLocal, limit, 4).out_y == 2);
    CHECK(cc::fast_shape(4, 4, kH100OpenClLocal, limit, 1).out_y == 4);
    CHECK(cc::fast_shape(4, 4, kH100OpenClLocal, limit, 4).quads());
  }
  // the on-chip schemes stage one channel at a time: RGBA8's shape is the others'
  for (const int radius : {5, 16, 32}) {
    const cc::FastShape rgba = cc::fast_shape(radius, radius, kH100OpenClLocal, 256, 4);
    const cc::FastShape one = cc::fast_shape(radius, radius, kH100OpenClLocal, 256, 1);
    CHECK(rgba.out_x == one.out_x);
    CHECK(rgba.out_y == one.out_y);
    CHECK(rgba.block_x == one.block_x);
    CHECK(rgba.block_y == one.block_y);
  }
}

TEST_CASE("fast: rows of 8 x 4 outputs per thread in 8 x 16 blocks from radius 5 to 16") {
  for (const int radius : {5, 7, 13, 16}) {
    for (const std::size_t on_chip : {kH100OpenClLocal, kH100CudaOptIn}) {  // the same shape in both APIs
      const cc::FastShape shape = cc::fast_shape(radius, radius, on_chip);
      CHECK(shape.rows());
      CHECK(shape.out_x == 8);
      CHECK(shape.out_y == 4);
      CHECK(shape.block_x == 8);
      CHECK(shape.block_y == 16);
    }
  }
  CHECK(cc::fast_tile_bytes(cc::fast_shape(7, 7, kH100OpenClLocal), 7, 7) == (8 * 8 + 16) * (16 * 4 + 14) * sizeof(float));
  // r = 16: 96 x 96 floats, 36 KB; either axis over 16 leaves the 4-row scheme
  CHECK(cc::fast_tile_bytes(cc::fast_shape(16, 16, kH100OpenClLocal), 16, 16) == 96 * 96 * sizeof(float));
  CHECK(cc::fast_shape(2, 17, kH100CudaOptIn).out_y == 2);
  CHECK(cc::fast_shape(17, 2, kH100CudaOptIn).out_y == 2);
}

TEST_CASE("fast: rows of 8 x 2 outputs per thread beyond radius 16, in the widest block whose tile fits") {
  const cc::FastShape r20 = cc::fast_shape(20, 20, kH100CudaOptIn);
  CHECK(r20.rows());
  CHECK(r20.out_y == 2);
  CHECK(r20.block_x == 32);
  CHECK(r20.block_y == 8);
  CHECK(cc::fast_tile_bytes(r20, 20, 20) == (32 * 8 + 40) * (8 * 2 + 40) * sizeof(float));
  // 48 KB of OpenCL local memory takes 16 x 16 at r = 20
  const cc::FastShape opencl_r20 = cc::fast_shape(20, 20, kH100OpenClLocal);
  CHECK(opencl_r20.block_x == 16);
  CHECK(opencl_r20.block_y == 16);

  // r = 32: 102 KB in a 32 x 8 block; in OpenCL's 48 KB, 8 x 16 (a tile of exactly 48 KB).
  const cc::FastShape cuda = cc::fast_shape(32, 32, kH100CudaOptIn);
  CHECK(cuda.block_x == 32);
  CHECK(cuda.block_y == 8);
  const cc::FastShape opencl = cc::fast_shape(32, 32, kH100OpenClLocal);
  CHECK(opencl.rows());
  CHECK(opencl.block_x == 8);
  CHECK(opencl.block_y == 16);
  CHECK(cc::fast_tile_bytes(opencl, 32, 32) == kH100OpenClLocal);
}

TEST_CASE("fast: columns where no rows tile fits on chip") {
  const cc::FastShape shape = cc::fast_shape(32, 32, 16 * 1024);
  CHECK(shape.out_x == 1);
  CHECK(shape.out_y == 4);
  const auto [columns, rows] = cc::fast_work_items(shape, 100, 10);
  CHECK(columns == 100);
  CHECK(rows == 3);
}

TEST_CASE("fast: with fewer work-items per group, the same scheme in a smaller block, down to 32") {
  const auto block = [](const cc::FastShape& shape) { return std::pair{shape.block_x, shape.block_y}; };
  using Block = std::pair<int, int>;
  // quads (r = 2): the block keeps its 32-wide rows and loses height
  CHECK(block(cc::fast_shape(2, 2, kH100OpenClLocal, 256)) == Block{32, 8});
  CHECK(block(cc::fast_shape(2, 2, kH100OpenClLocal, 128)) == Block{32, 4});
  CHECK(block(cc::fast_shape(2, 2, kH100OpenClLocal, 64)) == Block{32, 2});
  CHECK(block(cc::fast_shape(2, 2, kH100OpenClLocal, 32)) == Block{32, 1});
  CHECK(cc::fast_shape(2, 2, kH100OpenClLocal, 32).quads());
  // rows of 4 (r = 7): 8 x 16, then 8 x 8, then 8 x 4 (Rusticl's 32)
  CHECK(block(cc::fast_shape(7, 7, kH100OpenClLocal, 128)) == Block{8, 16});
  CHECK(block(cc::fast_shape(7, 7, kH100OpenClLocal, 64)) == Block{8, 8});
  const cc::FastShape r7 = cc::fast_shape(7, 7, kH100OpenClLocal, 32);
  CHECK(block(r7) == Block{8, 4});
  CHECK(r7.out_y == 4);
  CHECK(cc::fast_tile_bytes(r7, 7, 7) == (8 * 8 + 16) * (4 * 4 + 14) * sizeof(float));
  // rows of 2 (r = 20, CUDA's opt-in memory): 32 x 8, 8 x 16 (16 x 16 is 256), 8 x 8, 8 x 4
  CHECK(block(cc::fast_shape(20, 20, kH100CudaOptIn, 256)) == Block{32, 8});
  CHECK(block(cc::fast_shape(20, 20, kH100CudaOptIn, 128)) == Block{8, 16});
  CHECK(block(cc::fast_shape(20, 20, kH100CudaOptIn, 64)) == Block{8, 8});
  CHECK(block(cc::fast_shape(20, 20, kH100CudaOptIn, 32)) == Block{8, 4});
  // a device that takes fewer than 32 gets a block of 32, which its limit check then refuses
  const cc::FastShape too_small = cc::fast_shape(7, 7, kH100OpenClLocal, 16);
  CHECK(too_small.block_x * too_small.block_y == 32);
  // no limit named: CUDA's 1024, the same shapes as at 256
  CHECK(block(cc::fast_shape(20, 20, kH100CudaOptIn)) == block(cc::fast_shape(20, 20, kH100CudaOptIn, 256)));
}

TEST_CASE("fast: columns in the first block whose tile fits, so 32 KB still takes r = 32") {
  // 32 x 8 columns of 4 need (32 + 64) x (32 + 64) floats = 36 KB; 32 x 4 need 96 x 80 = 30 KB
  const cc::FastShape shape = cc::fast_shape(32, 32, 32 * 1024, 256);
  CHECK(shape.out_x == 1);
  CHECK(shape.out_y == 4);
  CHECK(shape.block_x == 32);
  CHECK(shape.block_y == 4);
  CHECK(cc::fast_tile_bytes(shape, 32, 32) == 96 * 80 * sizeof(float));
  CHECK(cc::fast_shape(32, 32, 32 * 1024, 32).block_y == 1);
  // none fits 16 KB: the smallest tile, the least the scheme asks for (the caller skips with that figure)
  const cc::FastShape none = cc::fast_shape(32, 32, 16 * 1024, 256);
  CHECK(none.block_y == 1);
  CHECK(cc::fast_tile_bytes(none, 32, 32) == 96 * 68 * sizeof(float));
}

TEST_CASE("fast: every radius to 32 that has a shape on a device has one at every limit down to 32 work-items") {
  for (const std::size_t on_chip : {32 * 1024, 48 * 1024, 64 * 1024})
    for (int radius_x = 0; radius_x <= cc::kFastMaxRadius; ++radius_x)
      for (int radius_y = 0; radius_y <= cc::kFastMaxRadius; ++radius_y) {
        const cc::FastShape large = cc::fast_shape(radius_x, radius_y, on_chip, 256);
        const bool fits = cc::fast_tile_bytes(large, radius_x, radius_y) <= on_chip;
        for (const std::size_t limit : {128, 64, 32}) {
          const cc::FastShape small = cc::fast_shape(radius_x, radius_y, on_chip, limit);
          CAPTURE(radius_x);
          CAPTURE(radius_y);
          CAPTURE(limit);
          CHECK(static_cast<std::size_t>(small.block_x) * small.block_y <= limit);
          CHECK(small.quads() == large.quads());
          if (fits) CHECK(cc::fast_tile_bytes(small, radius_x, radius_y) <= on_chip);
        }
      }
}
