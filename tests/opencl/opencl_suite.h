// opencl_suite.h: what the OpenCL suites share: one backend per process (each program built once, as in the tool) and the device under test.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>

#include "backends/backend.h"
#include "backends/launch_plan.h"
#include "backends/opencl/cl_devices.h"
#include "tests/support/backend_matrix.h"

namespace cc::testing {

inline Backend& opencl() {
  static const std::unique_ptr<Backend> backend = find_backend("opencl");
  REQUIRE(backend);  // compiled with CONVCOMPARE_OPENCL, so it must be registered
  return *backend;
}

// The device under test: the first one found (PoCL in CI), or the one whose id ("opencl:P:D") the
// environment variable CONVCOMPARE_TEST_OPENCL_DEVICE names, so a GPU host can test each platform.
inline int device_under_test() {
  static const int index = [] {
    const char* wanted = std::getenv("CONVCOMPARE_TEST_OPENCL_DEVICE");
    if (wanted == nullptr || *wanted == '\0') return 0;
    const auto& devices = opencl().devices();
    for (std::size_t i = 0; i < devices.size(); ++i)
      if (devices[i].id == wanted) return static_cast<int>(i);
    FAIL("CONVCOMPARE_TEST_OPENCL_DEVICE names no device: " << wanted);
    return 0;
  }();
  return index;
}

// Says which device a case runs on (opencl_main.cpp runs the suite only where there is one).
inline void name_device() {
  MESSAGE("testing " << opencl().devices()[device_under_test()].id << ": "
                     << opencl().devices()[device_under_test()].name);
}

// The device under test's limits as the backend reads them.
inline const DeviceLimits& device_limits() {
  static const opencl::Discovery discovery = opencl::discover_devices();
  REQUIRE(discovery.devices.size() > static_cast<std::size_t>(device_under_test()));
  return discovery.devices[device_under_test()].limits;
}

// Whether a run skipped fast's RGBA8 kernel on an implementation known to abort building it
// (DeviceLimits::no_fast_rgba8, docs/portability.md "Implementation faults"): that skip, and only it.
template <typename Run>
bool skipped_as_known_fault(const Run& run) {
  const std::string& fault = device_limits().no_fast_rgba8;
  return run.status == Status::Skipped && !fault.empty() && run.reason == fault;
}

}  // namespace cc::testing
