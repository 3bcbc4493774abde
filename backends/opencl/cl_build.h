// cl_build.h: clBuildProgram within a time limit on a thread of its own, and a driver that throws out of its C API given up on, never called again.
#pragma once

#include <string>
#include <string_view>

#include <CL/opencl.hpp>

#include "backends/watched_call.h"

namespace cc::opencl {

// Builds `program` for `device` with `options` and returns clBuildProgram's status. `what` names the
// build in an error ("tiled.cl for 'tiled' on pthread-..."). Throws DeviceStuckError, with the device
// abandoned (backends/device_watchdog.h, abandon_device: main then ends with _Exit), when
// - the build takes longer than build_limit(): a driver that never returns from a build is left on
//   its thread, which cannot be cancelled; or
// - the driver throws a C++ exception out of clBuildProgram (under ulimit -v, PoCL's LLVM
//   throws std::bad_alloc through the C API with a lock of its own held, and the clReleaseProgram or
//   clGetProgramBuildInfo that followed blocked for good), or returns CL_OUT_OF_HOST_MEMORY or
//   CL_OUT_OF_RESOURCES (the same state, returned rather than thrown).
// Either way `program` must never be passed to the driver again (not even released): the caller leaks it.
cl_int build_program(cl_program program, cl_device_id device, const std::string& options, std::string_view what);

// The longest one build may take: CONVCOMPARE_BUILD_TIMEOUT seconds, else kDefaultBuildTimeoutS. Not
// --kernel-timeout: a run may set that to a second to catch a kernel that never returns, and a cold
// build takes about that long (PoCL, 2 cores: 0.8-1.8 s). InputError for a value that is not a number
// of seconds greater than 0.
WatchLimit build_limit();

// A cold build of one of our kernels took 1-2 s on PoCL and up to 4 s on Oclgrind (fast) on the loaded
// 2-core CI machine; the default is over a hundred times that, so only a driver that never returns meets it.
inline constexpr double kDefaultBuildTimeoutS = 600;

}  // namespace cc::opencl
