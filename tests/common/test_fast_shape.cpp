// test_fast_shape.cpp: which scheme and block the fast variant compiles for each radius and on-chip size.
#include <doctest/doctest.h>

#include "common/geometry/fast_shape.h"

namespace {

constexpr std::size_t kOpenClLocal = 48 * 1024;   // NVIDIA's OpenCL on the H100
constexpr std::size_t kCudaOptIn = 227 * 1024;    // CUDA's opt-in shared memory on the H100

}  // namespace

TEST_CASE("fast: quads below radius 5, with no tile and 4 x 4 outputs per thread") {
  for (const int radius : {0, 1, 4}) {
    const cc::FastShape shape = cc::fast_shape(radius, radius, kOpenClLocal);
    CHECK(shape.quads());
    CHECK(shape.out_x == 4);
    CHECK(shape.out_y == 4);
    CHECK(cc::fast_tile_bytes(shape, radius, radius) == 0);
  }
  CHECK_FALSE(cc::fast_shape(5, 1, kOpenClLocal).quads());  // either axis at 5 leaves the quads' halo
  CHECK_FALSE(cc::fast_shape(1, 5, kOpenClLocal).quads());
}

TEST_CASE("fast: rows of 8 x 4 outputs per thread in 8 x 16 blocks from radius 5 to 16") {
  for (const int radius : {5, 7, 13, 16}) {
    for (const std::size_t on_chip : {kOpenClLocal, kCudaOptIn}) {  // the same shape in both APIs
      const cc::FastShape shape = cc::fast_shape(radius, radius, on_chip);
      CHECK(shape.rows());
      CHECK(shape.out_x == 8);
      CHECK(shape.out_y == 4);
      CHECK(shape.block_x == 8);
      CHECK(shape.block_y == 16);
    }
  }
  CHECK(cc::fast_tile_bytes(cc::fast_shape(7, 7, kOpenClLocal), 7, 7) == (8 * 8 + 16) * (16 * 4 + 14) * sizeof(float));
  // r = 16: 96 x 96 floats, 36 KB; either axis over 16 leaves the 4-row scheme
  CHECK(cc::fast_tile_bytes(cc::fast_shape(16, 16, kOpenClLocal), 16, 16) == 96 * 96 * sizeof(float));
  CHECK(cc::fast_shape(2, 17, kCudaOptIn).out_y == 2);
  CHECK(cc::fast_shape(17, 2, kCudaOptIn).out_y == 2);
}

TEST_CASE("fast: rows of 8 x 2 outputs per thread beyond radius 16, in the widest block whose tile fits") {
  const cc::FastShape r20 = cc::fast_shape(20, 20, kCudaOptIn);
  CHECK(r20.rows());
  CHECK(r20.out_y == 2);
  CHECK(r20.block_x == 32);
  CHECK(r20.block_y == 8);
  CHECK(cc::fast_tile_bytes(r20, 20, 20) == (32 * 8 + 40) * (8 * 2 + 40) * sizeof(float));
  // 48 KB of OpenCL local memory takes 16 x 16 at r = 20
  const cc::FastShape opencl_r20 = cc::fast_shape(20, 20, kOpenClLocal);
  CHECK(opencl_r20.block_x == 16);
  CHECK(opencl_r20.block_y == 16);

  // r = 32: 102 KB in a 32 x 8 block; in OpenCL's 48 KB, 8 x 16 (a tile of exactly 48 KB).
  const cc::FastShape cuda = cc::fast_shape(32, 32, kCudaOptIn);
  CHECK(cuda.block_x == 32);
  CHECK(cuda.block_y == 8);
  const cc::FastShape opencl = cc::fast_shape(32, 32, kOpenClLocal);
  CHECK(opencl.rows());
  CHECK(opencl.block_x == 8);
  CHECK(opencl.block_y == 16);
  CHECK(cc::fast_tile_bytes(opencl, 32, 32) == kOpenClLocal);
}

TEST_CASE("fast: columns where no rows tile fits on chip") {
  const cc::FastShape shape = cc::fast_shape(32, 32, 16 * 1024);
  CHECK(shape.out_x == 1);
  CHECK(shape.out_y == 4);
  const auto [columns, rows] = cc::fast_work_items(shape, 100, 10);
  CHECK(columns == 100);
  CHECK(rows == 3);
}
