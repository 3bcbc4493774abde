// cuda_variants.h: the CUDA backend's API variants: for each variant it implements, how to set it up on a device (described kernels through one generic variant, DescribedVariant).
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include <cuda_runtime_api.h>

#include "backends/api_variant.h"
#include "backends/cuda/runtime_module.h"
#include "backends/device_api.h"
#include "backends/launch_plan.h"
#include "common/domain/problem.h"
#include "common/domain/variants.h"
#include "kernels_cuda/launchers.h"

namespace cc::cuda {

// What a CUDA variant is set up from besides the plan, problem and description: the device's limits and,
// where the description says NVRTC, the module built for the plan.
struct ApiVariantSetup : VariantSetup {
  const DeviceLimits& limits;
  const RuntimeModule* module = nullptr;
};

// The offline kernel of a described variant in the problem's pixel format (kernels_cuda/launchers.h).
const cuda_kernels::OfflineKernel& offline_kernel_of(const KernelDescription& description, const Problem& problem);

// Why `kernel` cannot use an sm_90 feature ("" if it can): CMAKE_CUDA_ARCHITECTURES may name only older
// targets, whose copy of the kernel is empty. `needs` is the feature and its verb, "thread-block clusters need".
std::string lacks_compute_90(const cuda_kernels::OfflineKernel& kernel, std::string_view needs);

// Every variant of the table with a kernel description, and the library variants, in the table's order.
std::span<const ApiVariant> api_variants();

}  // namespace cc::cuda
