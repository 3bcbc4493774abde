// compute_capability.h: the NVIDIA compute capability a device capability needs, as data, asked by either API with the numbers it reads (CUDA's properties, OpenCL's cl_nv_device_attribute_query).
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

#include "common/domain/capability.h"

namespace cc {

// A capability that NVIDIA devices have from a compute capability on, and no attribute names.
struct ComputeCapabilityRule {
  Capability capability;
  int major;               // from major.0
  std::string_view needs;  // the start of the reason: "TF32 matrix products (mma.sync .tf32) need"
};

inline constexpr ComputeCapabilityRule kComputeCapabilityRules[] = {
    {Capability::TensorMaps, 9, "the tensor memory accelerator (TMA) needs"},  // cp.async.bulk.tensor (tma)
    {Capability::TensorCores, 8, "TF32 matrix products (mma.sync .tf32) need"},  // the tensor variant
};

// Why a device of compute capability `major`.`minor` lacks `capability` (DeviceLimits::missing), or ""
// where it has it or no rule names it.
inline std::string compute_capability_lacks(Capability capability, int major, int minor) {
  for (const ComputeCapabilityRule& rule : kComputeCapabilityRules)
    if (rule.capability == capability && major < rule.major)
      return fmt::format("{} compute capability {}.0 or later; this device is {}.{}", rule.needs, rule.major, major,
                         minor);
  return "";
}

}  // namespace cc
