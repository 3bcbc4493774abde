// kernel_description.h: what the variant table says of a kernel of ours, for both GPU APIs (entry point, source file, argument roles, CUDA's build), read by the one generic variant.
#pragma once

#include <array>
#include <cstddef>
#include <initializer_list>
#include <string_view>

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
  constexpr ArgRoles() = default;
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

// A kernel of ours, as its variant's line of the table (common/domain/variants.h) describes it; empty
// (no entry) where a library does the work (fft, npp) or the variant is no GPU kernel (naive, auto).
struct KernelDescription {
  std::string_view entry;  // the kernel's name in both files
  std::string_view file;   // kernels_cuda/<file>.cu and kernels_cl/<file>.cl
  ArgRoles args;
  CudaBuild cuda_build = CudaBuild::Offline;
};

}  // namespace cc
