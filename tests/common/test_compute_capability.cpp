// test_compute_capability.cpp: the compute capability each NVIDIA-only capability needs (backends/compute_capability.h), one reason for both APIs.
#include <doctest/doctest.h>

#include "backends/compute_capability.h"

TEST_CASE("compute capability: tensor maps from 9.0, TF32 tensor cores from 8.0, each reason naming the device's") {
  using cc::Capability;
  CHECK(cc::compute_capability_lacks(Capability::TensorMaps, 8, 9) ==
        "the tensor memory accelerator (TMA) needs compute capability 9.0 or later; this device is 8.9");
  CHECK(cc::compute_capability_lacks(Capability::TensorMaps, 9, 0).empty());
  CHECK(cc::compute_capability_lacks(Capability::TensorCores, 7, 5) ==
        "TF32 matrix products (mma.sync .tf32) need compute capability 8.0 or later; this device is 7.5");
  CHECK(cc::compute_capability_lacks(Capability::TensorCores, 8, 0).empty());
  CHECK(cc::compute_capability_lacks(Capability::TensorCores, 12, 0).empty());
  // No rule: clusters are asked by attribute (cudaDevAttrClusterLaunch), images per API.
  CHECK(cc::compute_capability_lacks(Capability::Clusters, 5, 0).empty());
  CHECK(cc::compute_capability_lacks(Capability::Images, 5, 0).empty());
}
