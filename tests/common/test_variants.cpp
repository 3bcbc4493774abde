// test_variants.cpp: the variant table and the backends agree: each backend implements exactly the variants the table gives it.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/domain/variants.h"
#include "tests/support/backend_matrix.h"

namespace {

cc::ApiBit bit_of(std::string_view backend) {
  if (backend == "cpu") return cc::kCpu;
  if (backend == "cuda") return cc::kCuda;
  return cc::kOpenCl;
}

}  // namespace

TEST_CASE("variants: every backend compiled in implements the table's variants for it, in table order") {
  const auto backends = cc::make_backends();
  REQUIRE(!backends.empty());
  for (const auto& backend : backends) {
    CAPTURE(backend->name());
    std::vector<std::string> expected;
    for (const cc::VariantTraits& variant : cc::all_variants())
      if (variant.implemented_by(bit_of(backend->name())) && variant.kind != cc::VariantKind::Choice)
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
  CHECK_FALSE(cc::find_variant("auto")->in_all());
  CHECK(cc::find_variant("naive")->in_all());
  int candidates = 0;
  for (const cc::VariantTraits& variant : cc::all_variants()) candidates += variant.auto_candidate;
  CHECK(candidates == 7);  // global, constant, tiled, texture, separable, fft, fast
  CHECK(cc::find_variant("npp")->borders == cc::kClampOnly);
}
