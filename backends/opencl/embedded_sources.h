// embedded_sources.h: the OpenCL kernel sources compiled into the binary (see cmake/embed_sources.cmake).
#pragma once

#include <string_view>
#include <vector>

namespace cc {

struct EmbeddedSource {
  std::string_view name;  // file name: "conv_args.h", "tiled.cl", ...
  std::string_view text;
};

const std::vector<EmbeddedSource>& embedded_cl_sources();

}  // namespace cc
