// variants.cpp: looking a variant up by name in the one list of variants.
#include "common/domain/variants.h"

#include <algorithm>

namespace cc {

const VariantInfo* find_variant(std::string_view name) {
  const auto variants = all_variants();
  const auto found = std::find_if(variants.begin(), variants.end(), [&](const VariantInfo& v) { return v.name == name; });
  return found == variants.end() ? nullptr : &*found;
}

}  // namespace cc
