// test_tensor_shape.cpp: the tensor variant's tile, pitch and -D options, which the host sizes on-chip memory by and both kernels are built with.
#include <doctest/doctest.h>

#include <map>
#include <string>

#include "common/geometry/tensor_shape.h"

namespace {

// tensor_defines' -DNAME=VALUE options as a map.
std::map<std::string, int> defines_of(int radius_x, int radius_y, cc::TensorProduct product = cc::kTensorMma) {
  std::map<std::string, int> values;
  for (const std::string& option : cc::tensor_defines(radius_x, radius_y, product)) {
    const std::size_t equals = option.find('=');
    REQUIRE(option.rfind("-D", 0) == 0);
    REQUIRE(equals != std::string::npos);
    values[option.substr(2, equals - 2)] = std::stoi(option.substr(equals + 1));
  }
  return values;
}

}  // namespace

TEST_CASE("tensor: the on-chip bytes the host reserves are the tile and filter the kernels lay out with its -D") {
  for (int radius_x = 0; radius_x <= cc::kTensorMaxRadius; ++radius_x) {
    for (const int radius_y : {0, 1, 7, cc::kTensorMaxRadius}) {
      CAPTURE(radius_x);
      CAPTURE(radius_y);
      std::map<std::string, int> d = defines_of(radius_x, radius_y);
      // The kernels' own derivations (kernels_cuda/tensor.cu, kernels_cl/tensor.cl).
      const int tile_w = 8 * (d["SLICES"] + d["BLOCKS"] - 1);
      const int tile_h = d["WARPS"] * 16 + 2 * d["RADIUS_Y"];
      const int filter_h = 2 * d["RADIUS_Y"] + 1;
      CHECK(d["RADIUS_X"] == radius_x);
      CHECK(d["WARPS"] * 16 == cc::kTensorBlockHeight);
      CHECK(d["SLICES"] * 8 == cc::kTensorBlockWidth);
      // Every Toeplitz block's inputs are staged: the last output slice's last block reads up to
      // column 8 * (SLICES + BLOCKS - 1) - 1, which must cover its 8 outputs' 2r apron.
      CHECK(8 * d["BLOCKS"] >= 8 + 2 * radius_x);
      CHECK(tile_w >= d["SLICES"] * 8 + 2 * radius_x);
      CHECK(d["TILE_PITCH"] >= tile_w);
      CHECK(d["TILE_PITCH"] % 8 == 4);  // one fragment load's 8 rows x 4 columns in 32 banks
      // The padded filter row: 7 zeros, then the 2r + 1 taps, then zeros to the last block's end.
      CHECK(d["FILTER_PITCH"] >= 7 + 8 * d["BLOCKS"]);
      CHECK(cc::tensor_on_chip_bytes(radius_x, radius_y) ==
            (static_cast<std::size_t>(tile_h) * d["TILE_PITCH"] + static_cast<std::size_t>(filter_h) * d["FILTER_PITCH"]) *
                sizeof(float));
    }
  }
}

TEST_CASE("tensor: radii past the compile-time limit are refused with the limit named") {
  CHECK(cc::tensor_radius_limit_reason(cc::kTensorMaxRadius, cc::kTensorMaxRadius).empty());
  const std::string reason = cc::tensor_radius_limit_reason(cc::kTensorMaxRadius + 1, 3);
  CHECK(reason.find("compile-time limit of 32") != std::string::npos);
}

TEST_CASE("tensor: Intel's products (8 or 16 columns, 16 deep) stage every column their blocks read, in the bytes the host reserves") {
  for (const int lanes : {8, 16}) {
    const cc::TensorProduct product = cc::tensor_intel_product(lanes);
    for (int radius_x = 0; radius_x <= cc::kTensorMaxRadius; ++radius_x) {
      for (const int radius_y : {0, 3, cc::kTensorMaxRadius}) {
        CAPTURE(lanes);
        CAPTURE(radius_x);
        CAPTURE(radius_y);
        std::map<std::string, int> d = defines_of(radius_x, radius_y, product);
        CHECK(d["CC_TENSOR_INTEL"] == lanes);
        // kernels_cl/tensor.cl's derivations under CC_TENSOR_INTEL: MMA_N = lanes, MMA_K = 16.
        const int tile_w = d["SLICES"] * 8 - lanes + 16 * d["BLOCKS"];
        // The last slice's last block reads 16 columns from (slices - 1) * lanes + 16 * (BLOCKS - 1)...
        const int last_read = (d["SLICES"] * 8 / lanes - 1) * lanes + 16 * (d["BLOCKS"] - 1) + 15;
        CHECK(last_read == tile_w - 1);
        // ...and the blocks reach tap 2r of the slice's last column: 16 * BLOCKS - 1 >= lanes - 1 + 2r.
        CHECK(16 * d["BLOCKS"] >= lanes + 2 * radius_x);
        CHECK(16 * (d["BLOCKS"] - 1) < lanes + 2 * radius_x);  // and no block past it
        CHECK(d["TILE_PITCH"] == tile_w + 4);
        // The padded filter row: lanes - 1 zeros, then the taps, then zeros to the last block's end.
        CHECK(d["FILTER_PITCH"] >= lanes - 1 + 16 * d["BLOCKS"]);
        CHECK(cc::tensor_on_chip_bytes(radius_x, radius_y, product) ==
              (static_cast<std::size_t>(64 + 2 * radius_y) * d["TILE_PITCH"] +
               static_cast<std::size_t>(2 * radius_y + 1) * d["FILTER_PITCH"]) *
                  sizeof(float));
      }
    }
  }
  CHECK(defines_of(3, 3).count("CC_TENSOR_INTEL") == 0);  // mma.sync's options name no Intel product
}
