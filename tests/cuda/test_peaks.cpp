// test_peaks.cpp: the CUDA backend's measured ceilings (kernels_cuda/peak.cu) on every device.
#include <doctest/doctest.h>

#include <cmath>

#include <fmt/format.h>

#include "common/error.h"
#include "tests/support/backend_matrix.h"

TEST_CASE("cuda: measure_peaks gives finite positive rates on every device, measured once") {
  const std::unique_ptr<cc::Backend> cuda = cc::testing::find_backend("cuda");
  REQUIRE(cuda);
  const auto& devices = cuda->devices();
  for (int device = 0; device < static_cast<int>(devices.size()); ++device) {
    CAPTURE(devices[device].id);
    const cc::DevicePeaks peaks = cuda->measure_peaks(device);
    MESSAGE(fmt::format("{}: copy {:.1f} GB/s, FMA {:.1f} GFLOP/s", devices[device].id, peaks.copy_gb_per_s,
                        peaks.fma_gflop_per_s));
    CHECK(std::isfinite(peaks.copy_gb_per_s));
    CHECK(peaks.copy_gb_per_s > 0);
    CHECK(std::isfinite(peaks.fma_gflop_per_s));
    CHECK(peaks.fma_gflop_per_s > 0);
    const cc::DevicePeaks again = cuda->measure_peaks(device);
    CHECK(again.copy_gb_per_s == peaks.copy_gb_per_s);
    CHECK(again.fma_gflop_per_s == peaks.fma_gflop_per_s);
  }
  CHECK_THROWS_AS(cuda->measure_peaks(static_cast<int>(devices.size())), cc::InputError);
}
