// variants.h: the one list of variants. Adding a variant: a kernel file per API plus one line here.
#pragma once

#include <span>
#include <string_view>

namespace cc {

struct VariantInfo {
  std::string_view name;
  std::string_view memory_space;  // what the variant teaches, for --list and the report
};

inline constexpr VariantInfo kVariants[] = {
    {"naive", "CPU, one thread: the seeds' loop, the baseline speed-ups are quoted against"},
    {"global", "image and filter in global memory"},
    {"constant", "filter in constant memory (__constant__ / __constant)"},
    {"tiled", "tile + apron in on-chip memory (__shared__ / __local), filter in constant memory"},
    {"texture", "image through the texture path (texture object / image2d_t + sampler)"},
    {"separable", "row pass then column pass fused on chip, radius compiled in, for rank-1 filters"},
    {"fft", "frequency domain (cuFFT / VkFFT), for large filters"},
    {"fast", "the fastest this project can make for each API"},
    {"auto", "picks fast, separable or fft per (size, radius, device) from measurements cached per device"},
    {"npp", "vendor baseline: NPP nppiFilterBorder (CUDA backend, replicate border only)"},
    {"npp-separable", "vendor baseline: NPP row + column filters, for rank-1 filters"},
};

inline std::span<const VariantInfo> all_variants() { return kVariants; }
const VariantInfo* find_variant(std::string_view name);  // nullptr when unknown

}  // namespace cc
