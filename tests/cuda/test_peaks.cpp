// test_peaks.cpp: the CUDA backend's measured ceilings (kernels_cuda/peak.cu) on every device.
#include <doctest/doctest.h>

#include "tests/support/backend_matrix.h"

TEST_CASE("cuda: measure_peaks gives finite positive rates on every device (none, with the reason, where its timestamps are made up), measured once") {
  const std::unique_ptr<cc::Backend> cuda = cc::testing::find_backend("cuda");
  REQUIRE(cuda);
  cc::testing::check_measured_peaks(*cuda);
}
