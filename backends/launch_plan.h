// launch_plan.h: one planning rule for both GPU APIs: a problem and the device's limits in, a launch shape or a reasoned skip out.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "common/domain/filter.h"
#include "common/domain/problem.h"
#include "common/domain/variants.h"
#include "common/geometry/conv_args.h"
#include "common/geometry/fast_shape.h"
#include "common/geometry/fft_shape.h"
#include "common/geometry/lowrank_shape.h"
#include "common/geometry/separable_shape.h"
#include "common/geometry/tensor_shape.h"

namespace cc {

// A device's limits, read once at discovery (docs/architecture.md, "Planning"), with the API's own
// names for them so that a skip reason says which limit, in words its users look up.
struct DeviceLimits {
  std::uint64_t memory = 0;          // CUDA: free now; OpenCL: CL_DEVICE_GLOBAL_MEM_SIZE
  std::uint64_t max_allocation = 0;  // one buffer
  std::size_t on_chip_bytes = 0;     // shared / local memory a group may use (CUDA: with the opt-in)
  std::size_t on_chip_default = 0;   // what a CUDA block gets without opting in (OpenCL: all of it)
  std::size_t constant_bytes = 0;    // the filter in constant memory
  std::size_t max_group = 0;         // work-items per group
  std::size_t max_group_x = 0, max_group_y = 0;
  // Why this device lacks each capability (common/domain/capability.h), in the API's words, or "" where it
  // has it: a variant that needs one it lacks is skipped with this reason. Images: no support, or (OpenCL,
  // per problem) no image format for the pixel type.
  PerCapability<std::string> missing;
  // Why fast's RGBA8 kernels must not be built here: a fault of the implementation that no query finds
  // out and that ends the process (docs/portability.md, "Implementation faults"), or "".
  std::string no_fast_rgba8;
  std::string lane_shuffle_define; // the -D that picks the shuffle a kernel calls (OpenCL: the device's
                                   // extension, kernels_cl/shuffle.cl), or "" (CUDA: warps always shuffle)
  // The tensor variant's matrix product (tensor_shape.h): mma.sync's, or (OpenCL) Intel's sub-group
  // products at the device's sub-group size; emulated: the tests' stand-in for them
  // (tests/opencl/matrix_emulation.cl, CONVCOMPARE_TEST_MATRIX), built with -DCC_TENSOR_EMULATED.
  TensorProduct tensor_product;
  bool tensor_emulated = false;
  std::size_t image_max_width = 0, image_max_height = 0;
  // --memory mapped / managed / managed-faults here (README.md, --memory): why not, in the API's words
  // (canMapHostMemory, managedMemory, CL_DEVICE_SVM_CAPABILITIES: coarse- or fine-grained), or "".
  std::string no_mapped, no_managed, no_managed_faults;
  // Why managed frames cannot overlap here (--stream): CUDA without concurrentManagedAccess forbids the
  // host any managed memory while a kernel runs, and one slot's frame is packed while another's runs.
  std::string no_overlapped_managed;
  // What a mapped or managed run's figures hold on this device, for the report's memory_note:
  // whether the kernel reaches host memory over the host link (CL_DEVICE_HOST_UNIFIED_MEMORY),
  // whether pages are prefetched (concurrentManagedAccess) or fault over (managed-faults).
  std::string mapped_note, managed_note, managed_faults_note;

  std::string memory_name;      // "free" / "CL_DEVICE_GLOBAL_MEM_SIZE"
  std::string allocation_name;  // "" (CUDA: no limit of its own) / "CL_DEVICE_MAX_MEM_ALLOC_SIZE"
  std::string on_chip_name;     // "shared memory" / "local memory (CL_DEVICE_LOCAL_MEM_SIZE)"
  std::string constant_name;    // "the 64 KB of constant memory" / "CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE (65536 bytes)"
  std::string image_name;       // "the largest 2D texture" / "CL_DEVICE_IMAGE2D_MAX_WIDTH/HEIGHT"
  std::string group_name;       // "threads per block" / "CL_KERNEL_WORK_GROUP_SIZE"
};

// What a built kernel reports about itself (cudaFuncGetAttributes / clGetKernelWorkGroupInfo).
struct KernelLimits {
  std::size_t max_group = 0;         // work-items per group this kernel can take
  std::size_t static_on_chip_bytes = 0;  // on-chip memory it declares itself
  bool on_chip_is_dynamic = true;    // the plan's on_chip_bytes is passed at launch (else: declared, counted above)
};

struct GroupShape {
  std::size_t x = 1, y = 1;
  std::size_t items() const { return x * y; }
};

struct LaunchPlan {
  const VariantTraits* variant = nullptr;
  ConvArgs args{};
  GroupShape group;   // work-items per group
  GroupShape groups;  // groups per axis (CUDA's grid; OpenCL's global range is groups x group)
  // groups per thread-block cluster where the variant launches in clusters (CUDA: the launch's
  // cudaLaunchAttributeClusterDimension); `groups` is then a whole number of clusters on each axis
  std::optional<GroupShape> cluster;
  std::size_t on_chip_bytes = 0;             // tiled, fast, separable: the tile per group
  std::size_t pixel_bytes = sizeof(float);   // one pixel of a frame unit, as a tile stages it (u8: 1 or 4)
  std::optional<SeparableFactors> factors;   // rank-1 variants
  FastShape fast;
  SeparableShape separable;
  FftShape fft;
  // compile-time radius and shape, and the pixel format when not f32 (common/geometry/pixel_format.h):
  // the same -D for NVRTC and clBuildProgram
  std::vector<std::string> defines;
  std::size_t filter_bytes = 0;      // the filter where the kernels read it (fft: none, it is a spectrum)
  std::size_t frame_bytes = 0;       // one frame in flight: its planes and buffers, without library work areas
  HostMemory memory = HostMemory::Pinned;  // where the frames live: copied, mapped or managed (--memory)
};

// Why `variant` cannot keep its frames in `memory` on a device of `limits` (a texture reads device
// memory; a library allocates its own buffers; the device's capability), or "" when it can.
std::string memory_refusal(const VariantTraits& variant, const DeviceLimits& limits, HostMemory memory);

// The report's note on a run in `memory` on a device of `limits` (RunRecord::memory_note), "" for copies.
std::string memory_note(const DeviceLimits& limits, HostMemory memory);

// Builds the program or module for a plan (its defines), returning the built kernels' limits.
using BuildKernels = std::function<KernelLimits(const LaunchPlan& plan)>;

// The rule: checks the variant's traits against the problem and the limits, in plan_before_building's
// order (docs/architecture.md, "Planning"), and memory for `frames_in_flight` frames, chooses the compile-time
// shape, builds, then fits the group to what the built kernel takes (a compile-time shape the kernel
// cannot take is chosen again for its limit and built again). Fills `plan`; returns why the variant
// cannot run here, or "" when it can. `build` is not called for a skip found before building.
std::string plan_launch(LaunchPlan& plan, const VariantTraits& variant, const Problem& problem,
                        const DeviceLimits& limits, int frames_in_flight, const BuildKernels& build);

}  // namespace cc
