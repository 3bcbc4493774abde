// cl_devices.h: discovery of every OpenCL platform and device, with the limits the variants check.
#pragma once

#include <string>
#include <vector>

#include <CL/opencl.hpp>

#include "backends/launch_plan.h"
#include "common/domain/measurement.h"

namespace cc::opencl {

struct ClDevice {
  cl::Device device;
  DeviceInfo info;       // backend "opencl", id "opencl:P:D", properties for --list
  DeviceLimits limits;   // for the planning rule (backends/launch_plan.h); images checked on first use
  int c_version = 0;     // CL_DEVICE_OPENCL_C_VERSION as 100 * major + 10 * minor (120 for 1.2)
  // What CL_KERNEL_LOCAL_MEM_SIZE overstates the kernel's __local memory by: 2 on Rusticl 22.3, which
  // reports twice the arrays' size (docs/portability.md, "Runtime quirks"), else 1.
  int kernel_local_memory_overstated = 1;
};

struct Discovery {
  std::vector<ClDevice> devices;  // every device of every platform, platform order then device order
  std::string unavailable_reason;  // set when `devices` is empty
};

// Queries every platform for every device type. Never throws: a platform or device whose queries fail
// is left out, and its error becomes part of unavailable_reason when nothing usable remains.
Discovery discover_devices();

// "64 KB", "1.5 GB": binary multiples (1 KB = 1024 bytes), as the drivers and the CUDA backend count.
std::string format_bytes(unsigned long long bytes);

}  // namespace cc::opencl
