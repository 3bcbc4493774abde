// test_variants.cpp: the variant table and the backends agree: each backend implements exactly the variants the table gives it.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "common/domain/variants.h"
#include "tests/support/backend_matrix.h"
#ifdef CONVCOMPARE_WITH_CUDA
#include "common/geometry/pixel.h"
#include "kernels_cuda/launchers.h"
#endif

TEST_CASE("variants: every backend compiled in implements the table's variants for it, in table order") {
  const auto backends = cc::make_backends();
  REQUIRE(!backends.empty());
  for (const auto& backend : backends) {
    CAPTURE(backend->name());
    std::vector<std::string> expected;
    for (const cc::VariantTraits& variant : cc::all_variants())
      if (variant.implemented_by(backend->name()) && variant.kind != cc::VariantKind::Choice)
        expected.emplace_back(variant.name);
    CHECK(backend->variants() == expected);
  }
}

TEST_CASE("variants: traits that decide policy") {
  const cc::VariantTraits* separable = cc::find_variant("separable");
  REQUIRE(separable);
  CHECK(separable->rank_one);
  CHECK(cc::taps_per_pixel(*separable, 3, 2) == 7 + 5);
  CHECK(cc::taps_per_pixel(*cc::find_variant("tiled"), 3, 2) == 7 * 5);
  CHECK(cc::taps_per_pixel(*cc::find_variant("fft"), 3, 2) == 0);
  // lowrank computes each of its terms' row and column passes; without a known count, the 2D sum.
  CHECK(cc::taps_per_pixel(*cc::find_variant("lowrank"), 3, 2, 2) == 2 * (7 + 5));
  CHECK(cc::taps_per_pixel(*cc::find_variant("lowrank"), 3, 2, 4) == 4 * (7 + 5));
  CHECK(cc::taps_per_pixel(*cc::find_variant("lowrank"), 3, 2, 0) == 7 * 5);
  CHECK(cc::taps_per_pixel(*separable, 3, 2, 3) == 7 + 5);  // terms are lowrank's only
  CHECK_FALSE(cc::find_variant("auto")->in_all());
  CHECK(cc::find_variant("naive")->in_all());
  // auto's candidates, by name, so a new variant (a candidate or not) needs no edit here.
  for (const char* candidate :
       {"global", "constant", "tiled", "texture", "separable", "fft", "fast", "async", "shuffle", "cluster", "lowrank"})
    CHECK_MESSAGE(cc::find_variant(candidate)->auto_candidate, candidate);
  for (const char* other : {"naive", "auto", "npp", "npp-separable"})
    CHECK_FALSE_MESSAGE(cc::find_variant(other)->auto_candidate, other);
  CHECK(cc::find_variant("npp")->borders == cc::kClampOnly);
}

// Each API's generic variant (backends/described_variant.h) passes what the roles say, so a role the
// traits contradict would launch a kernel with the wrong arguments: the planning rule reads the traits.
TEST_CASE("variants: each kernel description agrees with its variant's traits") {
  std::vector<std::string> described;
  for (const cc::VariantTraits& variant : cc::all_variants()) {
    if (!cc::kernel_description(variant)) continue;  // a library's, or no GPU variant
    const cc::KernelDescription& description = variant.kernel;
    CAPTURE(variant.name);
    described.emplace_back(variant.name);
    CHECK(variant.implemented_by("cuda"));
    // OpenCL has every described kernel but those that need CUDA's thread-block clusters or its TMA.
    CHECK(variant.implemented_by("opencl") !=
          (variant.needs.has(cc::Capability::Clusters) || variant.needs.has(cc::Capability::TensorMaps)));
    CHECK(description.args.has(cc::ArgRole::TensorMap) == variant.needs.has(cc::Capability::TensorMaps));
    CHECK(description.args.has(cc::ArgRole::Image) == variant.input_as_image);
    CHECK(description.args.has(cc::ArgRole::Input) != variant.input_as_image);
    CHECK(description.args.has(cc::ArgRole::Output));
    CHECK(description.args.has(cc::ArgRole::Args));
    CHECK(description.args.has(cc::ArgRole::RowFactor) == (variant.rank_one || variant.low_rank));
    CHECK(description.args.has(cc::ArgRole::ColumnFactor) == (variant.rank_one || variant.low_rank));
    CHECK(description.args.has(cc::ArgRole::Filter) != (variant.rank_one || variant.low_rank));
    CHECK(description.args.has(cc::ArgRole::LocalTile) == (variant.geometry == cc::Geometry::Tile));
    // NVRTC builds per radius; the offline kernels take it at run time.
    CHECK((description.cuda_build == cc::CudaBuild::Nvrtc) == variant.compile_time_radius);
  }
  // Every GPU variant of ours has one, in the table's order; a library's (fft, npp) has none.
  std::vector<std::string> ours;
  for (const cc::VariantTraits& variant : cc::all_variants())
    if ((variant.implemented_by("cuda") || variant.implemented_by("opencl")) &&
        variant.geometry != cc::Geometry::None && variant.geometry != cc::Geometry::Fft)
      ours.emplace_back(variant.name);
  CHECK(described == ours);
  CHECK(std::ranges::find(described, "tiled") != described.end());
  CHECK(std::ranges::find(described, "cluster") != described.end());
  CHECK(std::ranges::find(described, "tma") != described.end());
  CHECK(cc::kernel_description(*cc::find_variant("fft")) == nullptr);  // a library's: each API launches it its own way
  CHECK(cc::kernel_description(*cc::find_variant("npp")) == nullptr);
  CHECK(cc::kernel_description(*cc::find_variant("npp-separable")) == nullptr);
  CHECK(cc::kernel_description(*cc::find_variant("naive")) == nullptr);  // no GPU variant
  CHECK(cc::kernel_description(*cc::find_variant("auto")) == nullptr);
}

#ifdef CONVCOMPARE_WITH_CUDA
// The offline tables are host data: this runs without a device, and catches a kernel described as
// offline that backends/cuda/backend.cmake compiles another way (or not at all), which would fail only on the GPU host.
TEST_CASE("variants: each kernel CUDA builds offline is in every pixel format's table, c_filter where the table says") {
  for (const int format : {CC_PIXEL_F32, CC_PIXEL_U8, CC_PIXEL_U8X4}) {
    CAPTURE(format);
    for (const cc::VariantTraits& variant : cc::all_variants()) {
      if (!cc::kernel_description(variant)) continue;  // a library's, or no GPU variant
      const cc::KernelDescription& description = variant.kernel;
      CAPTURE(variant.name);
      const cc::cuda_kernels::OfflineKernel* kernel =
          cc::cuda_kernels::find_offline_kernel(format, description.entry);
      if (description.cuda_build == cc::CudaBuild::Nvrtc) {
        CHECK(kernel == nullptr);
        continue;
      }
      REQUIRE(kernel != nullptr);
      CHECK(kernel->function != nullptr);
      CHECK((kernel->filter_symbol != nullptr) == variant.filter_in_constant);
    }
    CHECK(cc::cuda_kernels::find_offline_kernel(format, "convolve_missing") == nullptr);
  }
  // Each format's own kernels, not one shared set.
  CHECK(cc::cuda_kernels::find_offline_kernel(CC_PIXEL_F32, "convolve_tiled")->function !=
        cc::cuda_kernels::find_offline_kernel(CC_PIXEL_U8, "convolve_tiled")->function);
}
#endif

TEST_CASE("variants: each has its own plot colour, so plots tell them apart and a new one moves no other's") {
  std::vector<std::uint32_t> colours;
  for (const cc::VariantTraits& variant : cc::all_variants()) {
    CAPTURE(variant.name);
    CHECK(variant.plot_colour != 0);
    CHECK(std::ranges::find(colours, variant.plot_colour) == colours.end());
    colours.push_back(variant.plot_colour);
  }
}
