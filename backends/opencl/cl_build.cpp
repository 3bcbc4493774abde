// cl_build.cpp: clBuildProgram on a watched thread (a build that hung the process under ulimit -v, and one that may never return).
#include "backends/opencl/cl_build.h"

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "backends/device_watchdog.h"
#include "backends/stop_request.h"
#include "backends/watched_call.h"
#include "common/domain/error.h"
#include "common/domain/seconds.h"

namespace cc::opencl {

namespace {

// What the build thread leaves: clBuildProgram's status, and, when the driver threw, what. Shared with
// the thread, which may outlive a build given up on.
struct BuildOutcome {
  cl_int status = CL_BUILD_PROGRAM_FAILURE;
  // "" unless the driver threw. A fixed array: the driver threw
  // std::bad_alloc because memory ran out, so a string's allocation here would throw again.
  char thrown[160] = "";
  bool out_of_memory = false;  // what it threw was std::bad_alloc
};

template <std::size_t N>
void keep(char (&into)[N], const char* text) noexcept {
  std::snprintf(into, N, "%s", text);
}

// Runs clBuildProgram, turning a C++ exception the driver lets out of its C API into `thrown`.
void run_build(BuildOutcome& outcome, cl_program program, cl_device_id device, const std::string& options) noexcept {
  cl_int status = CL_BUILD_PROGRAM_FAILURE;
  try {
    status = ::clBuildProgram(program, 1, &device, options.c_str(), nullptr, nullptr);
  } catch (const std::bad_alloc&) {
    keep(outcome.thrown, "std::bad_alloc: out of host memory");
    outcome.out_of_memory = true;
  } catch (const std::exception& error) {
    keep(outcome.thrown, *error.what() ? error.what() : "a C++ exception");
  } catch (...) {
    keep(outcome.thrown, "an unknown C++ exception");
  }
  outcome.status = status;
}

double seconds(std::chrono::steady_clock::duration span) { return std::chrono::duration<double>(span).count(); }

}  // namespace

WatchLimit build_limit() { return watch_limit("CONVCOMPARE_BUILD_TIMEOUT", kDefaultBuildTimeoutS); }

cl_int build_program(cl_program program, cl_device_id device, const std::string& options, std::string_view what) {
  const WatchLimit limit = build_limit();  // before the build starts: a bad value is refused, not half-used
  auto outcome = std::make_shared<BuildOutcome>();
  const auto start = std::chrono::steady_clock::now();
  run_watched(fmt::format("the OpenCL build of {}", printable(what)), limit,
              [outcome, program, device, options] { run_build(*outcome, program, device, options); }, OnStop::GiveUp);
  if (*outcome->thrown) {
    abandon_device();
    throw DeviceStuckError(fmt::format(
        "the OpenCL driver failed inside its build of {} after {:.1f} s ({}) and is left unusable{}",
        printable(what), seconds(std::chrono::steady_clock::now() - start), printable(outcome->thrown),
        outcome->out_of_memory ? ": " + out_of_memory_advice() : std::string()));
  }
  const cl_int status = outcome->status;
  // Out of memory returned rather than thrown: the driver is in the state it throws from, so it is
  // treated the same (defensive: PoCL throws it), the build log not asked for, the program kept.
  if (status == CL_OUT_OF_HOST_MEMORY || status == CL_OUT_OF_RESOURCES) {
    abandon_device();
    throw DeviceStuckError(fmt::format(
        "the OpenCL driver ran out of memory in its build of {} ({}) and is left unusable: {}", printable(what),
        status == CL_OUT_OF_HOST_MEMORY ? "CL_OUT_OF_HOST_MEMORY" : "CL_OUT_OF_RESOURCES", out_of_memory_advice()));
  }
  return status;
}

}  // namespace cc::opencl
