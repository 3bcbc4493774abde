// opencl_variants.h: the OpenCL backend's API variants: for each variant it implements, its program, its kernels and how to set it up.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <CL/opencl.hpp>

#include "backends/api_variant.h"
#include "backends/device_api.h"
#include "backends/launch_plan.h"
#include "backends/opencl/opencl_fft.h"
#include "common/domain/variants.h"

namespace cc::opencl {

// What an OpenCL variant is set up from besides the plan, problem and description: the context and the
// variant's built kernels.
struct ApiVariantSetup : VariantSetup {
  const cl::Context& context;
  const cl::Program& program;
  const std::vector<cl::Kernel>& kernels;  // as the API variant names them
  VkFftPlan* fft = nullptr;                // fft: VkFFT's transforms, kept by the backend
  std::string unshared;  // --split: why this device's context is not the other devices' (the halo route), or ""
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
