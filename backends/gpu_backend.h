// gpu_backend.h: the one GPU backend (run, stream, peaks, discovery, the plan step) over a per-API interface, GpuApi.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backends/api_variant.h"
#include "backends/backend.h"
#include "backends/device_api.h"
#include "backends/launch_plan.h"

namespace cc {

// What an API's discovery found: the devices --list shows, or why there are none.
struct GpuDiscovery {
  std::vector<DeviceInfo> devices;
  std::string unavailable_reason;  // read only when `devices` is empty
};

// One variant being planned on one device, as the API builds and sets it up (NVRTC or nvcc's kernels
// and their API variant; clBuildProgram's program, its kernels and VkFFT's plan). Made before the planning
// rule runs, built by it, kept until the run ends.
class VariantBuild {
 public:
  virtual ~VariantBuild() = default;
  // The planning rule's build step (backends/launch_plan.h's BuildKernels): builds for the plan's
  // defines (cached per device and options by the API) and says what the built kernels take.
  virtual KernelLimits build(const LaunchPlan& plan) = 0;
  // What the compiler knew, for the report's compile_time, and the build's time (the first build's,
  // for a cached program: docs/architecture.md, "Planning").
  virtual std::string compile_time(const LaunchPlan& plan, const RunOptions& options) const = 0;
  virtual double build_ms() const = 0;
  // Sets the variant up on `queue` (filter uploads queued there): measure.h's PrepareVariant.
  virtual std::unique_ptr<PreparedVariant> prepare(const LaunchPlan& plan, const Problem& problem,
                                                   DeviceQueue& queue) const = 0;
};

// What only an API says: its devices and their limits, its build step and API variants, its peak kernels.
// Device numbers are indexes into discover()'s devices; GpuBackend checks them before asking.
class GpuApi {
 public:
  virtual ~GpuApi() = default;
  virtual std::string_view name() const = 0;          // "cuda", the backend's name
  virtual std::string_view display_name() const = 0;  // "CUDA", in messages
  // Called once, on first use; never throws: a machine without the API is a reason, not an error.
  virtual GpuDiscovery discover() = 0;
  // The variants of the table this API implements, in table order (backends/api_variant.h).
  virtual std::span<const ApiVariant> variants() const = 0;
  // Why `variant` (one of variants(), built: its ApiVariant::missing is empty) cannot run on `device`
  // whatever the problem: a library that did not load here, an OpenCL C too old; or "".
  // (Its ApiVariant::declines, after the plan, is asked by GpuBackend too.)
  virtual std::string refuses(const ApiVariant& variant, int device) = 0;
  // The device's limits for this problem (CUDA: free memory now; OpenCL: the image format texture needs).
  virtual DeviceLimits limits(int device, const Problem& problem) = 0;
  virtual std::unique_ptr<VariantBuild> make_build(const ApiVariant& variant, int device,
                                                   const RunOptions& options) = 0;
  virtual std::unique_ptr<DeviceSession> make_session(int device) = 0;
  // Runs the copy and FMA peak kernels; GpuBackend caches the result per device.
  virtual DevicePeaks measure_peaks(int device) = 0;
  // --split: the devices whose builds and sessions until the next call are one split's ({}: none), so
  // that an API may give them one context (OpenCL; docs/multi-device.md). Never throws for a driver's
  // refusal: the devices then keep their own contexts, and the halo route says why.
  virtual void share_devices(const std::vector<int>& /*devices*/) {}
};

// The Backend of every GPU API: plan_launch with the API's build step, then measure_run or
// measure_stream over the API's session (docs/architecture.md, "The GPU backend").
std::unique_ptr<Backend> make_gpu_backend(std::unique_ptr<GpuApi> api);

}  // namespace cc
