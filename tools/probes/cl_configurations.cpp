// cl_configurations.cpp: the -D options the OpenCL backend can build fast.cl, separable.cl, lowrank.cl and tensor.cl's Intel path with, from the project's own shape code, for the vendor compile check (tools/vendor_kernels.sh).
//
//   cl_configurations          one line per distinct shape, at the extremes of its radii (what CI builds;
//                              the 8-bit formats at the largest only)
//   cl_configurations --all    every distinct option string, radii 0..32 on both axes
//
// Each line: KERNEL_FILE <tab> OPTIONS <tab> what it covers. The shapes are those of
// common/geometry/fast_shape.h and separable_shape.h for every radius pair 0..32 (square or not), every
// on-chip size in kOnChipSizes and every work-group limit in kWorkGroupLimits, exactly as the OpenCL backend
// calls them; configurations the backend would skip (no tile fits) are left out, as it never builds them.
// Each comes once per pixel format (common/geometry/pixel_format.h's pixel_format_define: f32 with no -D, 8-bit,
// RGBA8), whose -D the backend appends after the shape's; the shapes depend on it only in fast's quads
// (RGBA8's are shorter from r = 2), as both kernels stage float whatever the format. tensor.cl comes with
// Intel's sub-group matrix products alone (common/geometry/tensor_shape.h's tensor_intel_product, 8 and 16
// lanes), where its tile fits 64 KB of shared local memory: its mma.sync path is inline PTX, which
// NVIDIA's OpenCL alone compiles. The script builds every other kernels_cl/ file once per
// format it reads (tools/vendor_kernels.sh).
#include <algorithm>
#include <cstdlib>
#include <cstddef>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/geometry/fast_shape.h"
#include "common/geometry/lowrank_shape.h"
#include "common/geometry/pixel_format.h"
#include "common/geometry/separable_shape.h"
#include "common/geometry/tensor_shape.h"

namespace {

constexpr int kMaxRadius = 32;  // fast's compile-time limit; separable's shapes do not change beyond it
constexpr std::size_t kOnChipSizes[] = {32 * 1024, 48 * 1024, 64 * 1024};
// 256 stands for every larger device too: no shape has more work-items. 32 is Rusticl's kernel limit.
constexpr std::size_t kWorkGroupLimits[] = {256, 128, 64, 32};
constexpr int kPixelFormats[] = {CC_PIXEL_F32, CC_PIXEL_U8, CC_PIXEL_U8X4};
constexpr int kIntelMatrixLanes[] = {8, 16};  // acm-g10's and pvc's sub-group size for the products

struct Configuration {
  std::string file;
  std::string options;  // the -D defines, as fast_defines / separable_defines write them
  std::string shape;    // the options less the radii: what the kernel's structure depends on
  int radius_x = 0, radius_y = 0;
};

std::string joined(const std::vector<std::string>& defines, std::size_t skip = 0) {
  return fmt::format("{}", fmt::join(defines.begin() + static_cast<std::ptrdiff_t>(skip), defines.end(), " "));
}

// Every configuration the backend can build, one per (pixel format, radius pair, on-chip size, limit),
// duplicates included.
std::vector<Configuration> every_configuration() {
  std::vector<Configuration> all;
  for (const int format : kPixelFormats) {
    const std::string pixel = cc::pixel_format_define(format);
    for (const std::size_t on_chip : kOnChipSizes)
      for (const std::size_t limit : kWorkGroupLimits)
        for (int radius_x = 0; radius_x <= kMaxRadius; ++radius_x)
          for (int radius_y = 0; radius_y <= kMaxRadius; ++radius_y) {
            const cc::FastShape fast =
                cc::fast_shape(radius_x, radius_y, on_chip, limit, cc::pixel_format_values(format));
            if (cc::fast_tile_bytes(fast, radius_x, radius_y) <= on_chip) {
              std::vector<std::string> defines = cc::fast_defines(fast, radius_x, radius_y);
              if (!pixel.empty()) defines.emplace_back(pixel);
              all.push_back({"fast.cl", joined(defines), joined(defines, 2), radius_x, radius_y});
            }
            if (const auto separable = cc::separable_shape(radius_x, radius_y, on_chip, limit)) {
              std::vector<std::string> defines = cc::separable_defines(*separable, radius_x, radius_y);
              if (!pixel.empty()) defines.emplace_back(pixel);
              // BAND follows the radius; one band or several is the structural difference
              const std::string shape = fmt::format("THREADS={} TILE_W={} TILE_H={} {}{}{}", separable->threads,
                                                    separable->tile_w, separable->tile_h,
                                                    separable->bands == 1 ? "one band" : "bands",
                                                    pixel.empty() ? "" : " ", pixel);
              all.push_back({"separable.cl", joined(defines), shape, radius_x, radius_y});
            }
            // tensor.cl: one shape per product and format; the radii size its tile and unrolled blocks.
            for (const int lanes : kIntelMatrixLanes) {
              const cc::TensorProduct product = cc::tensor_intel_product(lanes);
              if (on_chip != kOnChipSizes[std::size(kOnChipSizes) - 1] ||
                  cc::tensor_on_chip_bytes(radius_x, radius_y, product) > on_chip)
                continue;
              std::vector<std::string> defines = cc::tensor_defines(radius_x, radius_y, product);
              if (!pixel.empty()) defines.emplace_back(pixel);
              all.push_back({"tensor.cl", joined(defines),
                             fmt::format("CC_TENSOR_INTEL={}{}{}", lanes, pixel.empty() ? "" : " ", pixel), radius_x,
                             radius_y});
            }
            // lowrank.cl: its shapes for 2 and 4 terms (the most it takes) on an 8192x8192 image, where
            // the large radii run strips of tiles (CHUNKS > 1), float only: its 8-bit loads and stores
            // are separable's.
            for (const int terms : {2, 4}) {
              if (!pixel.empty()) break;
              const auto low_rank = cc::lowrank_shape(radius_x, radius_y, 8192, 8192, on_chip, limit, terms);
              if (!low_rank) continue;
              all.push_back({"lowrank.cl", joined(cc::lowrank_defines(*low_rank, radius_x, radius_y, terms)),
                             fmt::format("TERMS={} THREADS={} TILE_W={} TILE_H={} {}{}", terms, low_rank->threads,
                                         low_rank->tile_w, low_rank->tile_h, low_rank->bands == 1 ? "one band" : "bands",
                                         low_rank->chunks > 1 ? " strip" : ""),
                             radius_x, radius_y});
            }
          }
  }
  return all;
}

// Per shape, the radius pairs at its extremes: the smallest and largest unrolled bodies and the most
// oblong. The structure (loops, tile layout, work-group) depends on the shape; the radii only
// lengthen the unrolled loops between these extremes. An 8-bit shape differs from its f32 twin only
// in its loads and stores (common/geometry/pixel.h), so it takes the largest body alone, where an
// optimizer is least likely to inline a helper and a missing definition shows (docs/portability.md):
// a third of the builds, for CI's time.
std::vector<Configuration> representatives(const std::vector<Configuration>& all) {
  std::map<std::pair<std::string, std::string>, std::vector<const Configuration*>> by_shape;
  for (const Configuration& c : all) by_shape[{c.file, c.shape}].push_back(&c);
  std::vector<Configuration> chosen;
  for (const auto& [key, group] : by_shape) {
    const auto pick = [&](auto score) {
      return **std::max_element(group.begin(), group.end(),
                                [&](const Configuration* a, const Configuration* b) { return score(*a) < score(*b); });
    };
    const Configuration& largest = pick([](const Configuration& c) { return c.radius_x + c.radius_y; });
    chosen.push_back(largest);
    // lowrank takes its largest body alone too: its structure is separable's, whose extremes are built.
    if (largest.options.find("-DCC_PIXEL=") != std::string::npos || key.first == "lowrank.cl") continue;
    chosen.push_back(pick([](const Configuration& c) { return -(c.radius_x + c.radius_y); }));
    chosen.push_back(pick([](const Configuration& c) { return std::abs(c.radius_x - c.radius_y); }));
  }
  return chosen;
}

}  // namespace

int main(int argc, char** argv) {
  const bool everything = argc > 1 && std::string_view(argv[1]) == "--all";
  if (argc > 2 || (argc == 2 && !everything)) {
    std::fprintf(stderr, "usage: cl_configurations [--all]\n");
    return 2;
  }
  const std::vector<Configuration> all = every_configuration();
  std::map<std::pair<std::string, std::string>, std::string> lines;  // (file, options) -> what it covers
  for (const Configuration& c : everything ? all : representatives(all))
    lines.emplace(std::pair{c.file, c.options}, c.shape);
  for (const auto& [key, shape] : lines) std::printf("%s\t%s\t%s\n", key.first.c_str(), key.second.c_str(), shape.c_str());
  return 0;
}
