// api_variant.cpp: each GPU API's variant list, made from the variant table and the kernel descriptions.
#include "backends/api_variant.h"

#include <algorithm>

namespace cc {

std::vector<ApiVariant> make_api_variants(std::string_view api, const DescribedKernels& described,
                                          std::span<const LibraryVariant> libraries) {
  std::vector<ApiVariant> made;
  for (const VariantTraits& variant : all_variants()) {
    if (!variant.implemented_by(api)) continue;
    if (const KernelDescription* description = kernel_description(variant)) {
      made.push_back({.traits = &variant,
                      .prepare = described.prepare,
                      .declines = described.declines_for ? described.declines_for(variant) : nullptr,
                      .description = description,
                      .file = description->file,
                      .kernels = {&description->entry, 1}});
    } else if (const auto library = std::ranges::find(libraries, variant.name, &LibraryVariant::variant);
               library != libraries.end()) {
      made.push_back({.traits = &variant,
                      .prepare = library->prepare,
                      .missing = library->missing,
                      .declines = library->declines,
                      .file = library->file,
                      .kernels = library->kernels});
    }
  }
  return made;
}

const ApiVariant* find_api_variant(std::span<const ApiVariant> variants, const VariantTraits& traits) {
  const auto found = std::ranges::find(variants, &traits, &ApiVariant::traits);
  return found == variants.end() ? nullptr : &*found;
}

}  // namespace cc
