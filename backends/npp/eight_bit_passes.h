// eight_bit_passes.h: npp-separable's two passes on 8-bit pixels, whose first NPP stores as 8-bit, and when it cannot.
#pragma once

#include <algorithm>
#include <numeric>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "common/domain/filter.h"

namespace cc::npp {

// NPP's 8-bit row and column filters (nppiFilterRowBorder32f_8u_C1R_Ctx / _C4R_Ctx and
// nppiFilterColumnBorder32f_8u_*) take Npp8u and write Npp8u: there is no form with a float result, so
// the first pass is rounded and saturated to 0..255 before the second reads it. To keep saturation out
// of that intermediate, the first pass is a factor with no negative weight, scaled to sum 1: its result
// is a weighted average of 0..255 pixels, which only rounds. The second pass takes the scale, so
// first x second is still the filter. Rows go first where both factors qualify (the f32 order).
struct EightBitPasses {
  bool column_first = false;
  std::vector<float> first, second;  // correlation order, as SeparableFactors
};

// Why npp-separable cannot run a filter on 8-bit pixels, where eight_bit_passes finds no order.
inline constexpr std::string_view kNoEightBitPasses =
    "npp-separable on 8-bit pixels needs a factor with no negative weight: NPP's 8-bit row and column "
    "filters store the first pass as 8-bit, where a negative sum would saturate to 0";

// The passes for `factors`, or nullopt when both factors have negative weights (or none is non-zero).
inline std::optional<EightBitPasses> eight_bit_passes(const SeparableFactors& factors) {
  // A factor and its negation give the same filter with the other negated: either sign may be first.
  const auto non_negative = [](std::vector<float> factor, float& sign) -> std::optional<std::vector<float>> {
    const bool has_negative = std::ranges::any_of(factor, [](float w) { return w < 0; });
    const bool has_positive = std::ranges::any_of(factor, [](float w) { return w > 0; });
    if (has_negative == has_positive) return std::nullopt;  // mixed signs, or all zero
    sign = has_negative ? -1.0f : 1.0f;
    for (float& w : factor) w *= sign;
    return factor;
  };
  for (const bool column_first : {false, true}) {
    const std::vector<float>& first = column_first ? factors.column : factors.row;
    const std::vector<float>& second = column_first ? factors.row : factors.column;
    float sign = 1.0f;
    std::optional<std::vector<float>> scaled = non_negative(first, sign);
    if (!scaled) continue;
    const float sum = std::accumulate(scaled->begin(), scaled->end(), 0.0f);
    EightBitPasses passes{column_first, std::move(*scaled), second};
    for (float& w : passes.first) w /= sum;
    for (float& w : passes.second) w *= sign * sum;
    return passes;
  }
  return std::nullopt;
}

}  // namespace cc::npp
