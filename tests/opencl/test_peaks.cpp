// test_peaks.cpp: the OpenCL backend's measured ceilings (kernels_cl/peak.cl) on every device.
#include <doctest/doctest.h>

#include "tests/support/backend_matrix.h"

TEST_CASE("opencl: measure_peaks gives finite positive rates on every device (none, with the reason, where its timestamps are made up), measured once") {
  const std::unique_ptr<cc::Backend> opencl = cc::testing::find_backend("opencl");
  REQUIRE(opencl);
  cc::testing::check_measured_peaks(*opencl);
}
