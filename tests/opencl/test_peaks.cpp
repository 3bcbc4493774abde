// test_peaks.cpp: the OpenCL backend's measured ceilings (kernels_cl/peak.cl) on every device found.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "common/error.h"
#include "tests/support/backend_matrix.h"

TEST_CASE("opencl: measure_peaks gives finite positive rates on every device, measured once") {
  const std::unique_ptr<cc::Backend> opencl = cc::testing::find_backend("opencl");
  REQUIRE(opencl);
  const auto& devices = opencl->devices();
  for (int device = 0; device < static_cast<int>(devices.size()); ++device) {
    CAPTURE(devices[device].id);
    const auto start = std::chrono::steady_clock::now();
    const cc::DevicePeaks peaks = opencl->measure_peaks(device);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    MESSAGE(fmt::format("{}: copy {:.1f} GB/s, FMA {:.1f} GFLOP/s, measured in {:.2f} s", devices[device].id,
                        peaks.copy_gb_per_s, peaks.fma_gflop_per_s, seconds));
    CHECK(std::isfinite(peaks.copy_gb_per_s));
    CHECK(peaks.copy_gb_per_s > 0);
    CHECK(std::isfinite(peaks.fma_gflop_per_s));
    CHECK(peaks.fma_gflop_per_s > 0);
    // Cached: the second call measures nothing and returns the same figures.
    const cc::DevicePeaks again = opencl->measure_peaks(device);
    CHECK(again.copy_gb_per_s == peaks.copy_gb_per_s);
    CHECK(again.fma_gflop_per_s == peaks.fma_gflop_per_s);
  }
  CHECK_THROWS_AS(opencl->measure_peaks(static_cast<int>(devices.size())), cc::InputError);
}
