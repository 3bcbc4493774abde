// cl_probe.h: what the OpenCL probes share: a failed call as one line on stderr and exit 2, a command's device time, a median.
#pragma once

// The includer defines CL_TARGET_OPENCL_VERSION first (1.2 or 2.0, as the calls it makes need).
#include <CL/cl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace cl_probe {

inline const char* program = "probe";  // named in each failure; main sets it first

[[noreturn]] inline void fail(const std::string& why) {
  std::fprintf(stderr, "%s: %s\n", program, why.c_str());
  std::exit(2);
}
inline void check(cl_int status, const char* call) {
  if (status != CL_SUCCESS) fail(std::string(call) + " returned " + std::to_string(status));
}

}  // namespace cl_probe

#define CHECK(call) ::cl_probe::check((call), #call)

namespace cl_probe {

// The command's own time on the device, from its profiling event (its queue made with profiling), once done.
inline double command_ms(cl_event event) {
  cl_ulong start = 0, end = 0;
  CHECK(clWaitForEvents(1, &event));
  CHECK(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr));
  CHECK(clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr));
  return static_cast<double>(end - start) * 1e-6;
}

// The platform at `index` of clGetPlatformIDs' list, or exit 2 saying there is none.
inline cl_platform_id platform_at(cl_uint index) {
  cl_uint platforms = 0;
  CHECK(clGetPlatformIDs(0, nullptr, &platforms));
  std::vector<cl_platform_id> platform(platforms);
  CHECK(clGetPlatformIDs(platforms, platform.data(), nullptr));
  if (index >= platforms) fail("no platform " + std::to_string(index));
  return platform[index];
}

inline double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace cl_probe
