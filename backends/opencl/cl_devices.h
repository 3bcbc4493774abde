// cl_devices.h: discovery of every OpenCL platform and device, with the limits the variants check.
#pragma once

#include <string>
#include <vector>

#include <CL/opencl.hpp>

#include "common/report/record.h"

namespace cc::opencl {

// The limits a variant is checked against before anything is allocated.
struct DeviceLimits {
  cl_ulong global_memory = 0;
  cl_ulong max_allocation = 0;   // largest single buffer
  cl_ulong local_memory = 0;     // per work-group
  cl_ulong constant_buffer = 0;  // largest __constant argument
  std::size_t max_work_group = 0;
  std::vector<std::size_t> max_work_item_sizes;  // per dimension
  bool image_support = false;
  std::size_t image2d_max_width = 0, image2d_max_height = 0;
};

struct ClDevice {
  cl::Device device;
  DeviceInfo info;  // backend "opencl", id "opencl:P:D", properties for --list
  DeviceLimits limits;
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
