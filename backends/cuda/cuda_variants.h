// cuda_variants.h: the CUDA backend's API variants: for each variant it implements, how to set it up on a device (described kernels through one generic variant, DescribedVariant).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include <cuda_runtime_api.h>

#include "backends/cuda/runtime_module.h"
#include "backends/device_api.h"
#include "backends/kernel_descriptions.h"
#include "backends/launch_plan.h"
#include "common/domain/problem.h"
#include "kernels_cuda/launchers.h"

namespace cc::cuda {

// What an API variant is set up from: the plan (backends/launch_plan.h), the problem, the device, the
// kernel's description and, where it says NVRTC, the module built for the plan.
struct ApiVariantSetup {
  const LaunchPlan& plan;
  const Problem& problem;
  const DeviceLimits& limits;
  const KernelDescription* description = nullptr;  // null for a library's variant (fft, npp)
  const RuntimeModule* module = nullptr;
};

struct ApiVariant {
  std::string_view variant;  // a name of the variant table (common/domain/variants.h)
  // Sets the variant up with its filter uploads queued on `stream`; null where `missing` says why.
  std::unique_ptr<PreparedVariant> (*prepare)(const ApiVariantSetup& setup, cudaStream_t stream);
  std::string_view missing;  // why this build cannot run it ("cuFFT not found at build time"), or ""
  // Why it cannot run a problem the plan accepted, where a vendor library has a limit of its own, or "".
  std::string (*declines)(const LaunchPlan& plan, const Problem& problem) = nullptr;
  // Our kernel's description (backends/kernel_descriptions.h), launched by the generic variant; null
  // for a library's variant.
  const KernelDescription* description = nullptr;
};

// The offline kernel a plan's variant launches in the problem's pixel format (kernels_cuda/launchers.h).
const cuda_kernels::OfflineKernel& offline_kernel_of(const LaunchPlan& plan, const Problem& problem);

// Why `kernel` cannot use an sm_90 feature ("" if it can): CMAKE_CUDA_ARCHITECTURES may name only older
// targets, whose copy of the kernel is empty. `needs` is the feature and its verb, "thread-block clusters need".
std::string lacks_compute_90(const cuda_kernels::OfflineKernel& kernel, std::string_view needs);

// Every variant of the table with a kernel description, and the library variants, in the table's order.
std::span<const ApiVariant> api_variants();

}  // namespace cc::cuda
