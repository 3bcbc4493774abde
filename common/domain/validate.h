// validate.h: comparing a result with the reference: max abs error, relative L2, the tolerance rule.
#pragma once

#include <string>

#include "common/domain/image.h"
#include "common/domain/problem.h"
#include "common/domain/variants.h"

namespace cc {

// The tolerance rule of docs/correctness.md: tol = c * FLT_EPSILON * sum|w| * max|x| + (taps + 1) *
// FLT_TRUE_MIN, with c = max(8, taps / 2 + 1), the worst case of summing taps products in float in any
// order, plus the absolute error of that many roundings among subnormals (underflow_floor). Zero
// (bit-exact) when the problem is integer-exact: integer weights, integer pixels, and
// sum|w| * max|x| < 2^24 so every partial sum is exact in float.
struct Tolerance {
  double value = 0;
  bool exact = false;  // integer-exact problem: any difference fails
  // 8-bit results (docs/correctness.md, "8-bit results"): each must be the reference rounded to nearest
  // and saturated to 0..255, or the rounding of any value within `value` of the exact one (either
  // neighbour near x.5; every level the bound reaches when it exceeds half a level). An integer-exact
  // problem's reference is an integer: no boundary is near. Errors are measured against the saturated value.
  bool eight_bit = false;
  // An 8-bit vendor baseline (NPP), whose rounding to 8 bits is its own and undocumented: it passes
  // within `value` of the exact value saturated to 0..255, rounded either way, instead of by the rule
  // above; `value` is 1 (any rounding) plus the float bound (plus, for two 8-bit passes, the first
  // pass's rounding as the second weighs it: sum|w|). docs/correctness.md, "8-bit results".
  bool any_rounding = false;
};
Tolerance tolerance_for(const Problem& problem, const Image& input);

// (taps + 1) * FLT_TRUE_MIN: what float's resolution near zero allows a correct result to be off by.
double underflow_floor(const Filter& filter);

// What a separable variant adds to the bound: it computes with column x row, which differs from the
// 2D filter by the rank-1 residual; sum over taps of |w - column*row|, times max|x|.
double separable_error_bound(const Filter& filter, const SeparableFactors& factors, const Image& input);

// Looser bound for FFT-based variants, whose error grows with log(size) rather than taps.
Tolerance fft_tolerance_for(const Problem& problem, const Image& input);

// The bound a variant's result is held to, by its traits: fft's looser bound, else the direct rule; a
// rank-1 variant's adds the filter's rank-1 residual (separable_error_bound), which ends bit-exactness;
// a u8 problem's results are compared after rounding (Tolerance::eight_bit), a baseline's within 1 of
// the exact value whichever way it rounds (Tolerance::any_rounding).
Tolerance tolerance_for_variant(const VariantTraits& variant, const Problem& problem, const Image& input);

struct Validation {
  bool passed = false;
  double max_abs_error = 0;
  double rel_l2_error = 0;  // ||result - reference|| / ||reference|| (0 when both are 0)
  // The bound max_abs_error is held to, on its scale: the float bound; for 8-bit results (eight_bit,
  // not any_rounding) the most levels the rounding rule let any pixel differ from the reference
  // rounded (0, or 1 where an exact sum lies within the float bound of a rounding tie; more only where
  // the bound exceeds half a level), so that a passing run's max_abs_error never exceeds it.
  double tolerance = 0;
  double float_bound = 0;  // the float bound the rule starts from (Tolerance::value), which 8-bit messages name
  bool exact = false;
  bool eight_bit = false;
  bool any_rounding = false;
  // The first failing pixel in plane, row, column order (-1 when none failed).
  int bad_channel = -1, bad_x = -1, bad_y = -1;
  double bad_value = 0, bad_expected = 0;
  // NaN/Inf in the reference that the result reproduced (propagated, as the reference does).
  long long nonfinite_matched = 0;
  std::string message() const;  // "" when passed; else "pixel (x, y) channel c: got g, expected e, |diff| d > tol t"
};

// Checks every pixel, borders included. A NaN or Inf in the result passes only where the reference has
// the same class of value at that pixel; a size mismatch fails.
Validation validate(const Image& result, const Image& reference, const Tolerance& tolerance);

}  // namespace cc
