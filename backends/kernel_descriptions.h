// kernel_descriptions.h: each kernel variant described once for both GPU APIs (entry point, source file, argument roles, CUDA's build), reached from its line of the variant table and read by the one generic variant.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <span>
#include <string_view>

#include "common/domain/variants.h"

namespace cc {

// What one kernel argument is, in the OpenCL kernel's parameter order. The generic variant
// (backends/described_variant.h) has each API's kernel wrapper turn a role into what its kernel takes
// (docs/architecture.md, "Kernel descriptions"):
enum class ArgRole {
  Input,         // the unit's input buffer
  Image,         // the unit's input as an image: OpenCL an image2d_t then its sampler; CUDA one texture object
  Output,        // the unit's output buffer
  Filter,        // the weights: OpenCL a buffer; CUDA a buffer, or the file's c_filter where the variant
                 // table says filter_in_constant
  RowFactor,     // the separable factors: OpenCL buffers; CUDA c_row_filter and c_column_filter
  ColumnFactor,
  Args,          // the plan's ConvArgs
  LocalTile,     // OpenCL a __local argument of the plan's on_chip_bytes; CUDA takes those bytes as the
                 // launch's dynamic shared memory (every CUDA launch passes them)
  TensorMap,     // CUDA only: a CUtensorMap of the unit's input whose box is one group's tile, made at launch
                 // (backends/cuda/tensor_map.h) and passed by value (__grid_constant__); no OpenCL kernel has one
};

// The roles of one kernel's arguments, at most kMax of them.
struct ArgRoles {
  static constexpr std::size_t kMax = 8;
  constexpr ArgRoles(std::initializer_list<ArgRole> list) {
    for (const ArgRole role : list) roles[count++] = role;  // more than kMax: not a constant expression
  }
  constexpr const ArgRole* begin() const { return roles.data(); }
  constexpr const ArgRole* end() const { return roles.data() + count; }
  constexpr bool has(ArgRole wanted) const {
    for (const ArgRole role : *this)
      if (role == wanted) return true;
    return false;
  }

  std::array<ArgRole, kMax> roles{};
  std::size_t count = 0;
};

// How the CUDA backend gets the kernel: compiled by nvcc at build time, once per pixel format
// (kernels_cuda/launchers.h's offline table), or by NVRTC at run time with the plan's -D (radius,
// shape, pixel format), as OpenCL always builds. The report's compile_time says which.
enum class CudaBuild { Offline, Nvrtc };

struct KernelDescription {
  std::string_view variant;  // its line in the variant table (common/domain/variants.h)
  std::string_view entry;    // the kernel's name in both files
  std::string_view file;     // kernels_cuda/<file>.cu and kernels_cl/<file>.cl
  ArgRoles args;
  CudaBuild cuda_build;
};

// Every variant whose kernels are our own twins, in the variant table's order, each built by the APIs
// the table's `apis` names (cluster, tma: CUDA only, kernels_cuda/cluster.cu and tma.cu, no .cl). fft and the NPP
// baselines are not here: a library does their work, so each API launches them its own way
// (cuda_variants.cpp, opencl_variants.cpp).
inline constexpr KernelDescription kKernelDescriptions[] = {
    {"global", "convolve_global", "global", {ArgRole::Input, ArgRole::Output, ArgRole::Filter, ArgRole::Args},
     CudaBuild::Offline},
    {"constant", "convolve_constant", "constant", {ArgRole::Input, ArgRole::Output, ArgRole::Filter, ArgRole::Args},
     CudaBuild::Offline},
    {"tiled", "convolve_tiled", "tiled",
     {ArgRole::Input, ArgRole::Output, ArgRole::Filter, ArgRole::Args, ArgRole::LocalTile}, CudaBuild::Offline},
    {"texture", "convolve_texture", "texture", {ArgRole::Image, ArgRole::Output, ArgRole::Filter, ArgRole::Args},
     CudaBuild::Offline},
    {"separable", "convolve_separable", "separable",
     {ArgRole::Input, ArgRole::Output, ArgRole::RowFactor, ArgRole::ColumnFactor, ArgRole::Args}, CudaBuild::Nvrtc},
    {"fast", "convolve_fast", "fast", {ArgRole::Input, ArgRole::Output, ArgRole::Filter, ArgRole::Args},
     CudaBuild::Nvrtc},
    {"async", "convolve_async", "async",
     {ArgRole::Input, ArgRole::Output, ArgRole::Filter, ArgRole::Args, ArgRole::LocalTile}, CudaBuild::Offline},
    {"shuffle", "convolve_shuffle", "shuffle", {ArgRole::Input, ArgRole::Output, ArgRole::Filter, ArgRole::Args},
     CudaBuild::Offline},
    {"cluster", "convolve_cluster", "cluster",
     {ArgRole::Input, ArgRole::Output, ArgRole::Filter, ArgRole::Args, ArgRole::LocalTile}, CudaBuild::Offline},
    {"tma", "convolve_tma", "tma",
     {ArgRole::Input, ArgRole::Output, ArgRole::TensorMap, ArgRole::Filter, ArgRole::Args, ArgRole::LocalTile},
     CudaBuild::Offline},
    {"lowrank", "convolve_lowrank", "lowrank",
     {ArgRole::Input, ArgRole::Output, ArgRole::RowFactor, ArgRole::ColumnFactor, ArgRole::Args}, CudaBuild::Nvrtc},
    {"tensor", "convolve_tensor", "tensor", {ArgRole::Input, ArgRole::Output, ArgRole::Filter, ArgRole::Args},
     CudaBuild::Nvrtc},
};

// Each line of the variant table's description, by the line's place in kVariants (null where a library
// does its work, or it is no GPU variant): matched by name once, when compiling, and every description
// must name a line.
inline constexpr auto kDescriptionOfLine = [] {
  std::array<const KernelDescription*, std::size(kVariants)> of_line{};
  for (const KernelDescription& description : kKernelDescriptions) {
    std::size_t line = 0;
    while (kVariants[line].name != description.variant) ++line;  // past the end: not a constant expression
    of_line[line] = &description;
  }
  return of_line;
}();

// The description of the table's line `variant` (an entry of all_variants(), as every VariantTraits
// the program passes is), or null where a library does its work (fft, npp) or it is no GPU variant.
inline const KernelDescription* kernel_description(const VariantTraits& variant) {
  const std::span<const VariantTraits> table = all_variants();
  if (std::less<>{}(&variant, table.data()) || !std::less<>{}(&variant, table.data() + table.size())) return nullptr;
  return kDescriptionOfLine[static_cast<std::size_t>(&variant - table.data())];
}

}  // namespace cc
