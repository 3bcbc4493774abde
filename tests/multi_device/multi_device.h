// multi_device.h: the multi-device suite's devices: the OpenCL backend and its PoCL devices.
#pragma once

#include <string>
#include <vector>

#include "backends/backend.h"

namespace cc::testing {

// The OpenCL backend, made once for the suite.
Backend& opencl_backend();
// Indexes into opencl_backend().devices() of PoCL's devices, in order.
std::vector<int> pocl_devices();

}  // namespace cc::testing
