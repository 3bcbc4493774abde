// opencl_variants.h: the OpenCL backend's API variants: for each variant it implements, its program, its kernels and how to set it up.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <CL/opencl.hpp>

#include "backends/device_api.h"
#include "backends/kernel_descriptions.h"
#include "backends/launch_plan.h"
#include "backends/opencl/opencl_fft.h"

namespace cc::opencl {

// What an API variant is set up from: the plan, the problem, the context and the variant's built kernels.
struct ApiVariantSetup {
  const LaunchPlan& plan;
  const Problem& problem;
  const cl::Context& context;
  const cl::Program& program;
  const std::vector<cl::Kernel>& kernels;  // as the API variant names them
  VkFftPlan* fft = nullptr;                // fft: VkFFT's transforms, kept by the backend
  const KernelDescription* description = nullptr;  // null for a library's variant (fft)
  std::string unshared;  // --split: why this device's context is not the other devices' (the halo route), or ""
};

struct ApiVariant {
  std::string_view variant;  // a name of the variant table (common/domain/variants.h)
  // Sets the variant up with its filter uploads queued on `queue`; null where `missing` says why.
  std::unique_ptr<PreparedVariant> (*prepare)(const ApiVariantSetup& setup, const cl::CommandQueue& queue);
  std::string_view missing;  // why this build cannot run it ("VkFFT not found at build time"), or ""
  std::string_view file;     // its program's source, kernels_cl/<file>.cl
  std::string_view kernels;  // its kernels, space-separated
  // Our kernel's description (backends/kernel_descriptions.h), launched by the generic variant; null
  // for a library's variant.
  const KernelDescription* description = nullptr;

  std::vector<std::string> kernel_names() const;
};

// Every variant of the table with a kernel description, and the library variant, in the table's order.
std::span<const ApiVariant> api_variants();

// The image2d format texture reads a frame unit through, for a pixel format of common/geometry/pixel.h:
// CL_R / CL_FLOAT (float planes), CL_R / CL_UNORM_INT8 (8-bit), CL_RGBA / CL_UNORM_INT8 (RGBA8), with
// its name for skip reasons. read_imagef returns the 8-bit ones as normalized floats (texture.cl).
struct ClImageFormat {
  cl::ImageFormat format;
  std::string_view name;
};
ClImageFormat image_format(int pixel_format);

}  // namespace cc::opencl
