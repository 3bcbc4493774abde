// variants.h: the one table of variants and their traits, read by the CLI, --list, auto, planning, the report and the tests.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "common/domain/backend_names.h"
#include "common/domain/capability.h"
#include "common/domain/kernel_description.h"
#include "common/domain/problem.h"

namespace cc {

// What a variant computes, which decides how it is validated and what bounds it (docs/architecture.md).
enum class VariantKind : std::uint8_t {
  Reference,  // the CPU's one-thread loop, the baseline speed-ups are quoted against
  Direct,     // the 2D sum, (2r+1)^2 taps per pixel
  Separable,  // a row pass and a column pass: needs a rank-1 filter, 2 x (2r+1) taps per pixel
  Fft,        // through the frequency domain: a looser bound, work independent of the taps
  Baseline,   // a vendor library timed beside our kernels (NPP)
  Choice,     // picks another variant per problem (auto): not a kernel of its own
};

// How a GPU variant lays its work out: the planning rule (backends/launch_plan.h) turns this, the
// problem and the device's limits into a launch shape or a reasoned skip.
enum class Geometry : std::uint8_t {
  None,       // no launch of ours: the CPU, a vendor library, auto
  PerPixel,   // one output per work-item, any group shape the device takes
  Tile,       // one output per work-item, the group's tile and apron on chip
  Fast,       // common/geometry/fast_shape.h
  SeparableTile,  // common/geometry/separable_shape.h
  Fft,        // common/geometry/fft_shape.h
  Tensor,     // common/geometry/tensor_shape.h
};

// The backends that implement a variant, by their names in common/domain/backend_names.h, as bits
// (backend_bit): in_backends("cuda", "opencl"). A name not listed there fails the build.
template <typename... Names>
consteval std::uint8_t in_backends(Names... names) {
  return static_cast<std::uint8_t>((backend_bit(names) | ...));
}

// Pixel storage on the device, as bits (common/domain/problem.h's PixelType).
enum PixelBit : std::uint8_t { kF32 = 1, kU8 = 2 };

// Border modes a variant accepts, as bits indexed by Border (common/domain/problem.h).
inline constexpr std::uint8_t kAllBorders = 0xF;
inline constexpr std::uint8_t kClampOnly = 1 << 1;

struct VariantTraits {
  std::string_view name;
  std::string_view memory_space;  // what the variant teaches, for --help, --list and the report
  VariantKind kind = VariantKind::Direct;
  Geometry geometry = Geometry::None;
  std::uint8_t apis = 0;          // in_backends(...): which backends implement it
  bool filter_in_constant = false;  // the filter must fit the device's constant memory
  bool input_as_image = false;      // the input lives in a texture / image2d, not a buffer: needs Capability::Images
  bool rank_one = false;            // needs a separable filter; computes column x row in two 1D passes
  bool low_rank = false;            // runs the filter's SVD terms (Problem::correlation_low_rank), up to
                                    // kMaxLowRank of them, as fused 1D passes; validated with their residual
  bool compile_time_radius = false; // built per radius (NVRTC / clBuildProgram -D)
  bool auto_candidate = false;      // measured by --variant auto (tools/convcompare/autotune.h): a new variant is
                                    // one flag; one that cannot run on a device is left out there with the reason
  Capabilities needs{};             // what the device must offer (common/domain/capability.h): a device lacking
                                    // one skips the variant with the reason in DeviceLimits::missing
  // The API of the twins (CUDA, OpenCL) that has no counterpart, and why: its reports show the variant as a
  // skipped row with this reason, so a reader sees what that API lacks (docs/memory-spaces.md's map).
  std::string_view absent_from = "";
  std::string_view absent_reason = "";
  std::uint8_t borders = kAllBorders;
  std::uint8_t pixels = kF32;       // PixelBit
  std::string_view pixels_note = "";  // why the other pixel types are missing, for the skip reason, where needed
  int scratch_planes = 0;           // device planes besides input and output (npp-separable's row pass)
  std::uint32_t plot_colour = 0;    // 0xRRGGBB of its lines in every plot (common/report/plot.cpp): one per
                                    // variant, so adding a variant moves no other's colour
  // Its kernel where the twins are ours (kernels_cuda/<file>.cu, kernels_cl/<file>.cl), built by the APIs
  // `apis` names: {entry, file, argument roles, CUDA's build} (common/domain/kernel_description.h). None
  // where a library does the work (fft and the NPP baselines: each API launches them its own way) or the
  // variant is no GPU kernel (naive, auto).
  KernelDescription kernel{};

  bool implemented_by(std::string_view backend) const { return (apis & backend_bit(backend)) != 0; }
  bool in_all() const { return kind != VariantKind::Choice; }  // "--variant all": every implementation
};

// In report order. Adding a variant: one kernel file per API and one line here, its kernel's description
// included (docs/architecture.md, "Adding a variant").
inline constexpr VariantTraits kVariants[] = {
    {.name = "naive", .memory_space = "CPU, one thread: the seeds' loop, the baseline speed-ups are quoted against",
     .kind = VariantKind::Reference, .apis = in_backends("cpu"), .pixels = kF32 | kU8, .plot_colour = 0x7f7f7f},
    {.name = "global", .memory_space = "image and filter in global memory", .geometry = Geometry::PerPixel,
     .apis = in_backends("cuda", "opencl"), .auto_candidate = true, .pixels = kF32 | kU8, .plot_colour = 0x1f77b4,
     .kernel = {"convolve_global", "global", {ArgRole::Input, ArgRole::Output, ArgRole::Filter, ArgRole::Args},
                CudaBuild::Offline}},
    {.name = "constant", .memory_space = "filter in constant memory (__constant__ / __constant)",
     .geometry = Geometry::PerPixel, .apis = in_backends("cuda", "opencl"), .filter_in_constant = true, .auto_candidate = true,
     .pixels = kF32 | kU8, .plot_colour = 0xff7f0e,
     .kernel = {"convolve_constant", "constant", {ArgRole::Input, ArgRole::Output, ArgRole::Filter, ArgRole::Args},
                CudaBuild::Offline}},
    {.name = "tiled", .memory_space = "tile + apron in on-chip memory (__shared__ / __local), filter in constant memory",
     .geometry = Geometry::Tile, .apis = in_backends("cuda", "opencl"), .filter_in_constant = true, .auto_candidate = true,
     .pixels = kF32 | kU8, .plot_colour = 0x2ca02c,
     .kernel = {"convolve_tiled", "tiled",
                {ArgRole::Input, ArgRole::Output, ArgRole::Filter, ArgRole::Args, ArgRole::LocalTile}, CudaBuild::Offline}},
    {.name = "texture", .memory_space = "image through the texture path (texture object / image2d_t + sampler)",
     .geometry = Geometry::PerPixel, .apis = in_backends("cuda", "opencl"), .filter_in_constant = true, .input_as_image = true,
     .auto_candidate = true, .needs = {Capability::Images}, .pixels = kF32 | kU8, .plot_colour = 0xd62728,
     .kernel = {"convolve_texture", "texture", {ArgRole::Image, ArgRole::Output, ArgRole::Filter, ArgRole::Args},
                CudaBuild::Offline}},
    {.name = "separable", .memory_space = "row pass then column pass fused on chip, radius compiled in, for rank-1 filters",
     .kind = VariantKind::Separable, .geometry = Geometry::SeparableTile, .apis = in_backends("cuda", "opencl"),
     .filter_in_constant = true, .rank_one = true, .compile_time_radius = true, .auto_candidate = true,
     .pixels = kF32 | kU8, .plot_colour = 0x9467bd,
     .kernel = {"convolve_separable", "separable",
                {ArgRole::Input, ArgRole::Output, ArgRole::RowFactor, ArgRole::ColumnFactor, ArgRole::Args}, CudaBuild::Nvrtc}},
    {.name = "fft", .memory_space = "frequency domain (cuFFT / VkFFT), for large filters", .kind = VariantKind::Fft,
     .geometry = Geometry::Fft, .apis = in_backends("cuda", "opencl"), .auto_candidate = true,
     .pixels_note = "its transforms (cuFFT, VkFFT) compute on float planes whatever the pixels, so 8-bit would "
                    "change only its pad and crop steps, which do not convert; run it with --pixel f32",
     .plot_colour = 0x8c564b},
    {.name = "fast", .memory_space = "the fastest this project can make for each API", .geometry = Geometry::Fast,
     .apis = in_backends("cpu", "cuda", "opencl"), .filter_in_constant = true, .compile_time_radius = true, .auto_candidate = true,
     .pixels = kF32 | kU8, .plot_colour = 0xe377c2,
     .kernel = {"convolve_fast", "fast", {ArgRole::Input, ArgRole::Output, ArgRole::Filter, ArgRole::Args},
                CudaBuild::Nvrtc}},
    {.name = "async", .memory_space = "tiled's tile + apron brought on chip by asynchronous copies (cp.async / async_work_group_copy)",
     .geometry = Geometry::Tile, .apis = in_backends("cuda", "opencl"), .filter_in_constant = true, .auto_candidate = true,
     .needs = {Capability::AsyncCopies}, .pixels = kF32 | kU8, .plot_colour = 0xbcbd22,
     .kernel = {"convolve_async", "async",
                {ArgRole::Input, ArgRole::Output, ArgRole::Filter, ArgRole::Args, ArgRole::LocalTile}, CudaBuild::Offline}},
    {.name = "shuffle", .memory_space = "image from global memory into registers, neighbours exchanged by warp / sub-group shuffles (__shfl_sync / sub_group_shuffle)",
     .geometry = Geometry::PerPixel, .apis = in_backends("cuda", "opencl"), .filter_in_constant = true, .auto_candidate = true,
     .needs = {Capability::LaneShuffles}, .pixels = kF32 | kU8, .plot_colour = 0x3b3b98,
     .kernel = {"convolve_shuffle", "shuffle", {ArgRole::Input, ArgRole::Output, ArgRole::Filter, ArgRole::Args},
                CudaBuild::Offline}},
    {.name = "cluster", .memory_space = "tiled's tile, its apron read from the neighbouring blocks' shared memory in a "
                                        "thread-block cluster (distributed shared memory, CUDA sm_90; OpenCL has no clusters)",
     .geometry = Geometry::Tile, .apis = in_backends("cuda"), .filter_in_constant = true, .auto_candidate = true,
     .needs = {Capability::Clusters}, .absent_from = "opencl", .absent_reason = "OpenCL has no thread-block clusters",
     .pixels = kF32 | kU8, .plot_colour = 0x7b4173,
     .kernel = {"convolve_cluster", "cluster",
                {ArgRole::Input, ArgRole::Output, ArgRole::Filter, ArgRole::Args, ArgRole::LocalTile}, CudaBuild::Offline}},
    {.name = "tma", .memory_space = "tiled's tile + apron copied as one box by the tensor memory accelerator, zeros "
                                    "filled by the hardware (CUDA sm_90: cp.async.bulk.tensor; OpenCL has no TMA: its "
                                    "nearest is async's async_work_group_copy)",
     .geometry = Geometry::Tile, .apis = in_backends("cuda"), .filter_in_constant = true, .auto_candidate = true,
     .needs = {Capability::TensorMaps}, .absent_from = "opencl",
     .absent_reason = "OpenCL has no tensor memory accelerator (its nearest is async's async_work_group_copy)",
     .pixels = kF32 | kU8, .plot_colour = 0xad494a,
     .kernel = {"convolve_tma", "tma",
                {ArgRole::Input, ArgRole::Output, ArgRole::TensorMap, ArgRole::Filter, ArgRole::Args, ArgRole::LocalTile},
                CudaBuild::Offline}},
    {.name = "lowrank",
     .memory_space = "the filter's SVD terms as separable passes fused on chip where its rank is <= 4 (one kernel, "
                     "the image read once, k row-pass planes in shared / local memory), radius and rank compiled in; "
                     "from r = 16 on large one-channel images a block runs a strip of tiles, keeping the 2r apron rows on chip",
     .kind = VariantKind::Separable, .geometry = Geometry::SeparableTile, .apis = in_backends("cuda", "opencl"),
     .filter_in_constant = true, .low_rank = true, .compile_time_radius = true, .auto_candidate = true,
     .pixels = kF32 | kU8, .plot_colour = 0x98df8a,
     .kernel = {"convolve_lowrank", "lowrank",
                {ArgRole::Input, ArgRole::Output, ArgRole::RowFactor, ArgRole::ColumnFactor, ArgRole::Args}, CudaBuild::Nvrtc}},
    {.name = "tensor", .memory_space = "tile + apron on chip, filter rows as Toeplitz blocks, products on the tensor cores "
                                       "in registers (mma.sync TF32, 3xTF32 split; OpenCL: NVIDIA's, by inline PTX, or "
                                       "Intel's sub-group bf16 products, 3xBF16)",
     .geometry = Geometry::Tensor, .apis = in_backends("cuda", "opencl"), .filter_in_constant = true,
     .compile_time_radius = true, .auto_candidate = true, .needs = {Capability::TensorCores}, .pixels = kF32 | kU8,
     .plot_colour = 0xff9896,
     .kernel = {"convolve_tensor", "tensor", {ArgRole::Input, ArgRole::Output, ArgRole::Filter, ArgRole::Args},
                CudaBuild::Nvrtc}},
    {.name = "auto", .memory_space = "measures the candidates once per (size, radius, device), caches the fastest, runs it",
     .kind = VariantKind::Choice, .apis = in_backends("cpu", "cuda", "opencl"), .pixels = kF32 | kU8, .plot_colour = 0x17becf},
    {.name = "npp", .memory_space = "vendor baseline: NPP nppiFilterBorder (CUDA backend, replicate border only)",
     .kind = VariantKind::Baseline, .apis = in_backends("cuda"), .borders = kClampOnly, .pixels = kF32 | kU8,
     .plot_colour = 0x005a64},
    {.name = "npp-separable", .memory_space = "vendor baseline: NPP row + column filters, for rank-1 filters",
     .kind = VariantKind::Baseline, .apis = in_backends("cuda"), .rank_one = true, .borders = kClampOnly, .pixels = kF32 | kU8,
     .scratch_planes = 1, .plot_colour = 0x5a5a5a},
};

// A variant reading its input through an image needs the device's images.
consteval bool image_inputs_need_images() {
  for (const VariantTraits& variant : kVariants)
    if (variant.input_as_image && !variant.needs.has(Capability::Images)) return false;
  return true;
}
static_assert(image_inputs_need_images(), "a variant with input_as_image lists Capability::Images in its needs");

// A line describes its kernel whole or not at all: an entry without its file or its arguments would
// leave the generic variant nothing to build or bind.
consteval bool kernels_described_whole() {
  for (const VariantTraits& variant : kVariants) {
    const bool has_entry = !variant.kernel.entry.empty();
    if (has_entry != !variant.kernel.file.empty() || has_entry != (variant.kernel.args.count != 0)) return false;
  }
  return true;
}
static_assert(kernels_described_whole(), "a variant's kernel names its entry, its file and its arguments, or none");

inline std::span<const VariantTraits> all_variants() { return kVariants; }

// The description of the variant's kernel, read by the one generic variant of each API
// (backends/described_variant.h), or null where a library does its work (fft, npp) or it is no GPU variant.
inline const KernelDescription* kernel_description(const VariantTraits& variant) {
  return variant.kernel.entry.empty() ? nullptr : &variant.kernel;
}

// The bit of a pixel type (PixelType::F32 -> kF32), and the names of a set of bits ("f32, u8").
PixelBit pixel_bit(PixelType pixel);
std::string pixel_names(std::uint8_t pixels);
const VariantTraits* find_variant(std::string_view name);  // nullptr when unknown

// Taps per output pixel the variant computes, which "% of bound" counts: 2D for direct ones, the two
// 1D passes for rank-1 ones, `terms` times the two 1D passes for low-rank ones (the 2D sum when
// `terms` is unknown, 0: a report from before it was recorded); 0 for fft, whose work does not grow
// with them (no bound is given).
double taps_per_pixel(const VariantTraits& variant, int radius_x, int radius_y, int terms = 1);

}  // namespace cc
