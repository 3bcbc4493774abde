// test_fast_shape.cpp: which scheme and block the fast variant compiles for each radius and on-chip size.
#include <doctest/doctest.h>

#include "common/fast_shape.h"

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

TEST_CASE("fast: rows of 8 x 2 outputs per thread from radius 5, in the widest block whose tile fits") {
  const cc::FastShape r7 = cc::fast_shape(7, 7, kOpenClLocal);
  CHECK(r7.rows());
  CHECK(r7.out_x == 8);
  CHECK(r7.out_y == 2);
  CHECK(r7.block_x == 32);
  CHECK(cc::fast_tile_bytes(r7, 7, 7) == (32 * 8 + 16) * (8 * 2 + 14) * sizeof(float));

  // r = 16: 55 KB in a 32 x 8 block, which CUDA opts in to; 48 KB of OpenCL local memory takes 16 x 16.
  CHECK(cc::fast_shape(16, 16, kCudaOptIn).block_x == 32);
  const cc::FastShape r16 = cc::fast_shape(16, 16, kOpenClLocal);
  CHECK(r16.block_x == 16);
  CHECK(r16.block_y == 16);

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
