// embedded_sources.h: kernel sources compiled into the binary for run-time compilation (see cmake/embed_sources.cmake).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cc {

struct EmbeddedSource {
  std::string_view name;  // file name: "conv_args.h", "tiled.cl", "fast.cu", ...
  std::string_view text;
};

// common/geometry/conv_args.h and kernels_cl/*.cl, for clBuildProgram.
const std::vector<EmbeddedSource>& embedded_cl_sources();
// common/geometry/conv_args.h and the kernels_cuda/ files NVRTC compiles at run time (fast.cu, separable.cu).
const std::vector<EmbeddedSource>& embedded_cuda_sources();

// The named source of a set; throws std::logic_error when it is not embedded (a build error).
std::string embedded_source(const std::vector<EmbeddedSource>& sources, std::string_view name);

}  // namespace cc
