// launch_plan.cpp: the planning rule both GPU backends share: traits, problem and limits to a launch shape or a skip reason.
#include "backends/launch_plan.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <string_view>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/domain/error.h"
#include "common/geometry/pixel_format.h"
#include "common/geometry/tensor_shape.h"
#include "common/geometry/tile_shape.h"

namespace cc {

namespace {

double megabytes(std::uint64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

bool group_allowed(GroupShape shape, std::size_t max_items, const DeviceLimits& limits) {
  return shape.items() <= max_items && shape.x <= limits.max_group_x && shape.y <= limits.max_group_y;
}

// 16x16, halved (longer side first) until the kernel and the device accept it.
GroupShape fit_per_pixel_group(std::size_t max_items, const DeviceLimits& limits) {
  GroupShape shape{16, 16};
  while (!group_allowed(shape, max_items, limits) && shape.items() > 1) {
    if (shape.y >= shape.x) shape.y /= 2;
    else shape.x /= 2;
  }
  return shape;
}

std::size_t divide_up(std::size_t value, std::size_t divisor) { return (value + divisor - 1) / divisor; }

// The most work-items a block fixed at compile time may have: the device's limit on both axes (fast and
// separable chose their blocks under it, before building).
std::size_t compile_time_group_limit(const DeviceLimits& limits) {
  return std::min({limits.max_group, limits.max_group_x, limits.max_group_y});
}

// Why the lowrank variant cannot run this filter, or "": its terms are those of
// Problem::correlation_low_rank, each within the tolerance docs/correctness.md gives it.
std::string low_rank_reason(const Problem& problem) {
  const std::optional<LowRank>& low_rank = problem.correlation_low_rank;
  const Filter& filter = problem.correlation_filter;
  if (!low_rank)
    return filter.width > kMaxDecomposedSide || filter.height > kMaxDecomposedSide
               ? fmt::format("the filter is {}x{}, over the {}-wide side the lowrank variant decomposes", filter.width,
                             filter.height, kMaxDecomposedSide)
               : std::string("the filter has no singular value decomposition (all zero or not finite)");
  if (low_rank->terms.empty()) {
    const std::size_t shown = std::min<std::size_t>(low_rank->singular_values.size(), kMaxLowRank + 1);
    std::vector<std::string> values;
    for (std::size_t i = 0; i < shown; ++i) values.push_back(fmt::format("{:.3g}", low_rank->singular_values[i]));
    return fmt::format("the filter's numerical rank is {} (singular values {}{}), over the lowrank variant's {} terms: "
                       "a truncation to {} would exceed the tolerance (1e-6 of the largest weight per tap)",
                       low_rank->rank, fmt::join(values, ", "), shown < low_rank->singular_values.size() ? ", ..." : "",
                       kMaxLowRank, kMaxLowRank);
  }
  return "";
}

// The terms as the kernels take them: every row factor, then every column factor, term by term.
SeparableFactors packed_terms(const std::vector<SeparableFactors>& terms) {
  SeparableFactors packed;
  for (const SeparableFactors& term : terms) {
    packed.row.insert(packed.row.end(), term.row.begin(), term.row.end());
    packed.column.insert(packed.column.end(), term.column.begin(), term.column.end());
  }
  return packed;
}

std::string border_reason(const VariantTraits& variant, Border border) {
  if (variant.borders & (1u << static_cast<unsigned>(border))) return "";
  std::vector<std::string_view> accepted;
  for (const Border each : {Border::Zero, Border::Clamp, Border::Mirror, Border::Wrap})
    if (variant.borders & (1u << static_cast<unsigned>(each))) accepted.push_back(to_string(each));
  return fmt::format("{} takes the {} border only: use --border {}", variant.name, fmt::join(accepted, ", "),
                     accepted.front());
}

constexpr std::size_t kFftLeastGroup = 64;

// The problem against the variant's table line: border, pixel type, finite input (fft), rank. Fills the
// plan's factors; `terms` is the low rank the kernels unroll (1 for the others).
std::string problem_reason(LaunchPlan& plan, const VariantTraits& variant, const Problem& problem, int& terms) {
  if (std::string reason = border_reason(variant, problem.border); !reason.empty()) return reason;
  if (!(variant.pixels & pixel_bit(problem.pixel)))
    return fmt::format("{} has no {} kernels (pixel types: {}){}{}", variant.name, to_string(problem.pixel),
                       pixel_names(variant.pixels), variant.pixels_note.empty() ? "" : ": ", variant.pixels_note);
  if (variant.kind == VariantKind::Fft && !problem.input_finite)
    return "the input holds NaN or infinity, which a Fourier transform spreads over the whole plane "
           "(the direct variants keep it where it is, as the reference does)";
  if (variant.rank_one) {
    plan.factors = problem.correlation_factors;
    if (!plan.factors) return "filter is not separable";
  }
  if (variant.low_rank) {
    if (std::string reason = low_rank_reason(problem); !reason.empty()) return reason;
    terms = problem.correlation_low_rank->rank;
    plan.factors = packed_terms(problem.correlation_low_rank->terms);
  }
  return "";
}

// fast's compile-time shape (common/geometry/fast_shape.h) for the radius and the device's on-chip memory.
std::string plan_fast(LaunchPlan& plan, const Problem& problem, const DeviceLimits& limits) {
  const ConvArgs& args = plan.args;
  const DeviceFormat& format = problem.format;
  if (std::string reason = fast_radius_limit_reason(args.radius_x, args.radius_y); !reason.empty()) return reason;
  if (format.kernel == KernelFormat::U8x4 && !limits.no_fast_rgba8.empty()) return limits.no_fast_rgba8;
  plan.fast = fast_shape(args.radius_x, args.radius_y, limits.on_chip_bytes, compile_time_group_limit(limits),
                         format.values);
  // RGBA8 in the columns scheme (a device whose on-chip memory holds no rows tile) validates on Rusticl
  // for one channel but not for four (its third and fourth channel passes come out wrong at r = 32,
  // unrolled or not: under investigation, docs/performance.md, "8-bit"): skipped until it does.
  if (!plan.fast.quads() && !plan.fast.rows() && format.kernel == KernelFormat::U8x4)
    return fmt::format("the fast variant's columns scheme (radius {}x{} with {} bytes of {}) has no RGBA8 kernel "
                       "yet; one channel, separable and tiled run here", args.radius_x, args.radius_y,
                       limits.on_chip_bytes, limits.on_chip_name);
  plan.on_chip_bytes = fast_tile_bytes(plan.fast, args.radius_x, args.radius_y);
  if (plan.on_chip_bytes > limits.on_chip_bytes)
    return fmt::format("the fast tile needs {} bytes of {}, the device allows {} per group", plan.on_chip_bytes,
                       limits.on_chip_name, limits.on_chip_bytes);
  plan.group = {static_cast<std::size_t>(plan.fast.block_x), static_cast<std::size_t>(plan.fast.block_y)};
  const auto [columns, rows] = fast_work_items(plan.fast, args.width, args.height);
  plan.groups = {divide_up(columns, plan.group.x), divide_up(rows, plan.group.y)};
  plan.defines = fast_defines(plan.fast, args.radius_x, args.radius_y);
  return "";
}

// tensor's fixed block of warps (common/geometry/tensor_shape.h): its tile and padded filter on chip.
std::string plan_tensor(LaunchPlan& plan, const DeviceLimits& limits) {
  const ConvArgs& args = plan.args;
  if (std::string reason = tensor_radius_limit_reason(args.radius_x, args.radius_y); !reason.empty()) return reason;
  plan.on_chip_bytes = tensor_on_chip_bytes(args.radius_x, args.radius_y, limits.tensor_product);
  if (plan.on_chip_bytes > limits.on_chip_bytes)
    return fmt::format("the tensor tile and filter (radius {}x{}) need {} bytes of {}, the device allows {} per group",
                       args.radius_x, args.radius_y, plan.on_chip_bytes, limits.on_chip_name, limits.on_chip_bytes);
  plan.group = {static_cast<std::size_t>(kTensorLanes), static_cast<std::size_t>(kTensorWarps)};
  plan.groups = {divide_up(args.width, kTensorBlockWidth), divide_up(args.height, kTensorBlockHeight)};
  plan.defines = tensor_defines(args.radius_x, args.radius_y, limits.tensor_product);
  if (limits.tensor_emulated) plan.defines.push_back("-DCC_TENSOR_EMULATED");
  return "";
}

// CONVCOMPARE_LOWRANK_STRIP_ROWS, an experiment's setting (README.md): the most rows a lowrank strip may
// hold instead of kLowRankStripRows; 0 runs one tile per block. Read at each plan; a bad value is refused.
int lowrank_strip_rows() {
  constexpr const char* kVariable = "CONVCOMPARE_LOWRANK_STRIP_ROWS";
  constexpr int kMostRows = 1 << 16;
  const char* text = std::getenv(kVariable);
  if (text == nullptr || *text == '\0') return kLowRankStripRows;
  int rows = -1;
  const std::string_view value(text);
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), rows);
  if (error != std::errc() || end != value.data() + value.size() || rows < 0 || rows > kMostRows)
    throw InputError(fmt::format("{} is '{}': a number of rows from 0 (one tile per block) to {} was expected",
                                 kVariable, value, kMostRows));
  return rows;
}

// separable's and lowrank's bands (common/geometry/separable_shape.h; lowrank's strips of tiles and its
// `terms` planes: common/geometry/lowrank_shape.h).
// RGBA8 keeps lowrank's single tiles: run through a strip channel by channel, its kernel spills 160-296
// bytes under CUDA's 64-register cap at r = 7-32 (ptxas -arch=sm_90), one channel and f32 none or 16.
std::string plan_separable(LaunchPlan& plan, const VariantTraits& variant, const Problem& problem,
                           const DeviceLimits& limits, int terms) {
  const ConvArgs& args = plan.args;
  const std::size_t group_limit = compile_time_group_limit(limits);
  const int strip_rows = variant.low_rank && problem.format.kernel != KernelFormat::U8x4 ? lowrank_strip_rows() : 0;
  const std::optional<SeparableShape> shape =
      variant.low_rank
          ? lowrank_shape(args.radius_x, args.radius_y, args.width, args.height, limits.on_chip_bytes, group_limit, terms,
                          strip_rows)
          : separable_shape(args.radius_x, args.radius_y, limits.on_chip_bytes, group_limit, terms);
  if (!shape) return separable_limit_reason(args.radius_x, args.radius_y, limits.on_chip_bytes, limits.on_chip_name);
  plan.separable = *shape;
  plan.on_chip_bytes = separable_on_chip_bytes(*shape, args.radius_x, terms);
  plan.group = {static_cast<std::size_t>(shape->threads), 1};
  const auto [columns, rows] = separable_groups(*shape, args.width, args.height);
  plan.groups = {columns, rows};
  plan.defines = variant.low_rank ? lowrank_defines(*shape, args.radius_x, args.radius_y, terms)
                                  : separable_defines(*shape, args.radius_x, args.radius_y);
  return "";
}

// The FFT library's transform (common/geometry/fft_shape.h), where the device's groups are large enough.
std::string plan_fft(LaunchPlan& plan, const Problem& problem, const DeviceLimits& limits) {
  // VkFFT plans its kernels for the device's work-group size; on a device allowing few work-items
  // it fails to launch (1-2) or never finishes planning (8, a 48x30 transform: over 10 minutes at
  // 100% CPU). Tried with PoCL's POCL_MAX_WORK_GROUP_SIZE at 1, 2, 4, 8, 16, 32, 64, 128, 256: at 16
  // and 32 the 48x30 plan had not finished after 50 s and 120 s (a cold PoCL cache), at 64
  // it planned and validated in 9 s (cold) and so did every size tried; cuFFT's devices allow 1024.
  if (limits.max_group < kFftLeastGroup)
    return fmt::format("the device allows {} work-items per group; the FFT library needs at least {} to plan",
                       limits.max_group, kFftLeastGroup);
  plan.fft = fft_shape(problem);
  return "";
}

// The first capability the variant needs and the device lacks, in the enum's order: its reason, or "".
// Asked before any shape, so that a device without the capability says so rather than that the shape
// does not fit it (tensor's tile on a CPU device's local memory).
std::string missing_capability(const VariantTraits& variant, const DeviceLimits& limits) {
  for (const CapabilityName& each : kCapabilityNames)
    if (variant.needs.has(each.capability) && !limits.missing[each.capability].empty())
      return limits.missing[each.capability];
  return "";
}

// The filter in constant memory, the shuffle's -D, the image sizes a texture takes.
std::string device_reason(LaunchPlan& plan, const VariantTraits& variant, const Problem& problem,
                          const DeviceLimits& limits) {
  plan.filter_bytes = variant.kind == VariantKind::Fft ? 0 : filter_device_bytes(problem.correlation_filter, plan.factors);
  if (variant.filter_in_constant && plan.filter_bytes > limits.constant_bytes)
    return fmt::format("filter of {} bytes exceeds {}", plan.filter_bytes, limits.constant_name);
  if (variant.needs.has(Capability::LaneShuffles) && !limits.lane_shuffle_define.empty())
    plan.defines.push_back(limits.lane_shuffle_define);
  if (variant.input_as_image) {
    if (static_cast<std::size_t>(problem.width) > limits.image_max_width ||
        static_cast<std::size_t>(problem.height) > limits.image_max_height)
      return fmt::format("image of {}x{} exceeds {} ({}x{})", problem.width, problem.height, limits.image_name,
                         limits.image_max_width, limits.image_max_height);
  }
  return "";
}

// The frames `frames_in_flight` runs hold at once, and the largest single buffer, against the device's memory.
std::string memory_reason(LaunchPlan& plan, const VariantTraits& variant, const Problem& problem,
                          const DeviceLimits& limits, int frames_in_flight) {
  const std::size_t plane_bytes = static_cast<std::size_t>(problem.width) * problem.height * plan.pixel_bytes;
  const bool fft = variant.geometry == Geometry::Fft;
  const std::size_t fft_bytes = fft ? 2 * plan.fft.buffer_bytes() + fft_band_bytes(plan.fft, problem.correlation_filter) : 0;
  plan.frame_bytes = (2 * problem.format.units + variant.scratch_planes) * plane_bytes + fft_bytes;
  const std::size_t largest = std::max({plane_bytes, plan.filter_bytes, fft ? plan.fft.buffer_bytes() : 0});
  if (largest > limits.max_allocation)
    return fmt::format("needs {:.1f} MB in one buffer, the device allows {:.1f} MB ({})", megabytes(largest),
                       megabytes(limits.max_allocation), limits.allocation_name);
  const std::uint64_t total = frames_in_flight * plan.frame_bytes + plan.filter_bytes;
  if (total > limits.memory)
    return fmt::format("needs {:.1f} MB, the device has {:.1f} MB ({})", megabytes(total), megabytes(limits.memory),
                       limits.memory_name);
  return "";
}

// Before building: the traits against the problem and the device, and the compile-time shape, in this
// order (docs/architecture.md, "Planning").
std::string plan_before_building(LaunchPlan& plan, const VariantTraits& variant, const Problem& problem,
                                 const DeviceLimits& limits, int frames_in_flight) {
  plan.variant = &variant;
  plan.args = problem.conv_args();
  // A unit is what one launch reads: a float plane, or the 8-bit interleaved image (FrameLayout).
  plan.pixel_bytes = static_cast<std::size_t>(problem.format.unit_pixel_bytes);
  int terms = 1;
  if (std::string reason = problem_reason(plan, variant, problem, terms); !reason.empty()) return reason;
  if (std::string reason = missing_capability(variant, limits); !reason.empty()) return reason;
  std::string shape_reason;
  switch (variant.geometry) {
    case Geometry::Fast: shape_reason = plan_fast(plan, problem, limits); break;
    case Geometry::SeparableTile: shape_reason = plan_separable(plan, variant, problem, limits, terms); break;
    case Geometry::Fft: shape_reason = plan_fft(plan, problem, limits); break;
    case Geometry::Tensor: shape_reason = plan_tensor(plan, limits); break;
    default: break;
  }
  if (!shape_reason.empty()) return shape_reason;
  if (std::string define = pixel_define(problem); !define.empty()) plan.defines.push_back(std::move(define));
  if (std::string reason = device_reason(plan, variant, problem, limits); !reason.empty()) return reason;
  return memory_reason(plan, variant, problem, limits, frames_in_flight);
}

// A cluster launch takes whole clusters only: kClusterGroups, less where the grid has fewer groups on an
// axis, and the grid rounded up to a whole number of them. The groups added lie past the image's right
// and bottom edges: they stage the border's pixels there, which their neighbours' aprons read, and store
// nothing (kernels_cuda/cluster.cu).
void fit_clusters(LaunchPlan& plan) {
  const GroupShape cluster{std::min<std::size_t>(kClusterGroups.x, plan.groups.x),
                           std::min<std::size_t>(kClusterGroups.y, plan.groups.y)};
  plan.cluster = cluster;
  plan.groups = {divide_up(plan.groups.x, cluster.x) * cluster.x, divide_up(plan.groups.y, cluster.y) * cluster.y};
}

// Once built: the group shape against what the kernel takes.
std::string fit_to_kernel(LaunchPlan& plan, const DeviceLimits& limits, const KernelLimits& kernel) {
  const std::size_t max_items = std::min(limits.max_group, kernel.max_group);
  const ConvArgs& args = plan.args;
  const std::string_view name = plan.variant->name;
  switch (plan.variant->geometry) {
    case Geometry::Tile: {
      // TMA's tile rows are padded to whole 16-byte box rows (tile_shape.h's tma_tile_bytes).
      const auto group_tile_bytes = [&](int radius_x, int radius_y, std::size_t group_x, std::size_t group_y,
                                        std::size_t pixel_bytes) {
        return plan.variant->needs.has(Capability::TensorMaps)
                   ? tma_tile_bytes(radius_x, radius_y, group_x, group_y, pixel_bytes)
                   : tile_bytes(radius_x, radius_y, group_x, group_y, pixel_bytes);
      };
      const std::size_t budget =
          limits.on_chip_bytes > kernel.static_on_chip_bytes ? limits.on_chip_bytes - kernel.static_on_chip_bytes : 0;
      for (const TileGroup candidate : kTileGroups) {
        const GroupShape shape{static_cast<std::size_t>(candidate.x), static_cast<std::size_t>(candidate.y)};
        if (group_tile_bytes(args.radius_x, args.radius_y, shape.x, shape.y, plan.pixel_bytes) <= budget &&
            group_allowed(shape, max_items, limits)) {
          plan.group = shape;
          plan.on_chip_bytes = group_tile_bytes(args.radius_x, args.radius_y, shape.x, shape.y, plan.pixel_bytes);
          plan.groups = {divide_up(args.width, shape.x), divide_up(args.height, shape.y)};
          if (plan.variant->needs.has(Capability::Clusters)) fit_clusters(plan);
          return "";
        }
      }
      const TileGroup smallest = std::end(kTileGroups)[-1];
      const std::size_t smallest_bytes =
          group_tile_bytes(args.radius_x, args.radius_y, smallest.x, smallest.y, plan.pixel_bytes);
      if (smallest_bytes > budget)
        return fmt::format("a {}x{} tile with its apron (radius {}x{}) needs {} bytes of {}, the device allows {} per "
                           "group", smallest.x, smallest.y, args.radius_x, args.radius_y, smallest_bytes,
                           limits.on_chip_name, budget);
      return fmt::format("the tiled kernel takes {} work-items per group ({}), fewer than a {}x{} tile", max_items,
                         limits.group_name, smallest.x, smallest.y);
    }
    case Geometry::Fast:
    case Geometry::SeparableTile:
    case Geometry::Tensor:
      if (!group_allowed(plan.group, max_items, limits))
        return fmt::format("the {} kernel needs groups of {}x{}, the device allows {} work-items ({})", name,
                           plan.group.x, plan.group.y, max_items, limits.group_name);
      break;
    default:
      plan.group = fit_per_pixel_group(max_items, limits);
      plan.groups = {divide_up(args.width, plan.group.x), divide_up(args.height, plan.group.y)};
      break;
  }
  const std::size_t on_chip = kernel.static_on_chip_bytes + (kernel.on_chip_is_dynamic ? plan.on_chip_bytes : 0);
  if (on_chip > limits.on_chip_bytes)
    return fmt::format("the {} kernel needs {} bytes of {}, the device allows {} per group", name, on_chip,
                       limits.on_chip_name, limits.on_chip_bytes);
  return "";
}

}  // namespace

std::string plan_launch(LaunchPlan& plan, const VariantTraits& variant, const Problem& problem,
                        const DeviceLimits& limits, int frames_in_flight, const BuildKernels& build) {
  if (std::string reason = plan_before_building(plan, variant, problem, limits, frames_in_flight); !reason.empty())
    return reason;
  if (variant.geometry == Geometry::None) return "";  // a library: nothing of ours to build or shape
  KernelLimits kernel = build(plan);
  // A built kernel may take fewer work-items than its device (Rusticl on llvmpipe: 32 for every kernel,
  // docs/portability.md): a block fixed at compile time is then chosen again under the kernel's limit
  // and built once more.
  if (variant.compile_time_radius && plan.group.items() > kernel.max_group &&
      kernel.max_group < compile_time_group_limit(limits)) {
    DeviceLimits kernel_bound = limits;
    kernel_bound.max_group = kernel.max_group;
    if (std::string reason = plan_before_building(plan, variant, problem, kernel_bound, frames_in_flight);
        !reason.empty())
      return reason;
    kernel = build(plan);
  }
  // A built kernel may declare more on-chip memory than its tile: the compiler's own (NVIDIA's OpenCL
  // adds 16 bytes to fast's 8-bit kernel, 49168 bytes at r = 32 against 49152). A shape fixed at compile
  // time is then chosen again with that overhead taken off the device's memory and built once more.
  if (variant.compile_time_radius && kernel.static_on_chip_bytes > limits.on_chip_bytes &&
      kernel.static_on_chip_bytes > plan.on_chip_bytes) {
    const std::size_t overhead = kernel.static_on_chip_bytes - plan.on_chip_bytes;
    if (overhead < limits.on_chip_bytes) {
      DeviceLimits without_overhead = limits;
      without_overhead.on_chip_bytes -= overhead;
      without_overhead.max_group = std::min(limits.max_group, kernel.max_group);
      if (std::string reason = plan_before_building(plan, variant, problem, without_overhead, frames_in_flight);
          !reason.empty())
        return reason;
      kernel = build(plan);
    }
  }
  return fit_to_kernel(plan, limits, kernel);
}

}  // namespace cc

namespace cc {

std::string memory_refusal(const VariantTraits& variant, const DeviceLimits& limits, HostMemory memory) {
  if (copies_frames(memory)) return "";
  const std::string_view mode = to_string(memory);
  if (variant.input_as_image)
    return fmt::format("--memory {}: {} reads its input as a texture / image2d, which lives in device memory "
                       "(copies only)", mode, variant.name);
  if (variant.kind == VariantKind::Fft || variant.kind == VariantKind::Baseline)
    return fmt::format("--memory {}: {} runs in a library (cuFFT, VkFFT, NPP) over buffers it places itself "
                       "(copies only)", mode, variant.name);
  if (memory == HostMemory::Mapped) return limits.no_mapped;
  if (memory == HostMemory::ManagedFaults) return limits.no_managed_faults;
  return limits.no_managed;
}

std::string memory_note(const DeviceLimits& limits, HostMemory memory) {
  if (memory == HostMemory::Mapped) return limits.mapped_note;
  if (memory == HostMemory::Managed) return limits.managed_note;
  if (memory == HostMemory::ManagedFaults) return limits.managed_faults_note;
  return "";
}

}  // namespace cc
