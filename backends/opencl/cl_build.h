// cl_build.h: clBuildProgram within a time limit on a thread of its own, and a driver that throws out of its C API given up on, never called again.
#pragma once

#include <string>
#include <string_view>

#include <CL/opencl.hpp>

namespace cc::opencl {

// Builds `program` for `device` with `options` and returns clBuildProgram's status. `what` names the
// build in an error ("tiled.cl for 'tiled' on pthread-..."). Throws DeviceStuckError, with the device
// abandoned (backends/device_watchdog.h, abandon_device: main then ends with _Exit), when
// - the build takes longer than `limit_s` (--kernel-timeout): a driver that never returns from a build
//   is left on its thread, which cannot be cancelled; or
// - the driver throws a C++ exception out of clBuildProgram (issue #30: under ulimit -v, PoCL's LLVM
//   throws std::bad_alloc through the C API with the program's lock held, and the clReleaseProgram or
//   clGetProgramBuildInfo that followed blocked for good).
// Either way `program` must never be passed to the driver again (not even released): the caller leaks it.
cl_int build_program(cl_program program, cl_device_id device, const std::string& options, double limit_s,
                     std::string_view what);

}  // namespace cc::opencl
