// validate.cpp: the tolerance rule and the pixel-by-pixel comparison of a result with the reference.
#include "common/domain/validate.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include <fmt/format.h>

namespace cc {

namespace {

// The scale every error bound is relative to: sum|w| * max|x|, the largest magnitude any partial
// sum of the convolution can reach. NaN and Inf pixels propagate instead of adding error, so they
// do not count towards max|x|.
struct Magnitudes {
  double max_abs_pixel = 0;
  bool integer_pixels = true;
};

Magnitudes measure(const Image& input) {
  Magnitudes m;
  for (float v : input.data) {
    if (std::isfinite(v)) m.max_abs_pixel = std::max(m.max_abs_pixel, std::fabs(static_cast<double>(v)));
    if (!std::isfinite(v) || v != std::nearbyint(v)) m.integer_pixels = false;
  }
  return m;
}

// The worst-case bound of recursive summation (Higham, "Accuracy and Stability of Numerical
// Algorithms", section 4.2): each of the taps rounds one product and one partial sum, each off by at
// most half an ulp of a value <= sum|w| * max|x|, so taps / 2 * FLT_EPSILON * scale bounds any
// summation order (row by row, tiles, FMA or not); + 1 covers the reference's own rounding to float.
// c grows linearly, not as sqrt(taps): on flat image regions every tap adds the same product to a
// sum in the same binade, the roundings do not cancel, and a correct float kernel was measured at
// c = 100 for a 33x33 box on the default image and c = 379 for a 65x65 box on a flat one (sqrt rule:
// 66 and 130). The floor of 8 keeps room for small filters.
//
// Near zero a float's error is absolute, not relative: below FLT_MIN (subnormals) the spacing of floats
// is FLT_TRUE_MIN, so each rounding is off by up to FLT_TRUE_MIN / 2 whatever the value's size (the
// underflow term of the standard model, fl(a op b) = (a op b)(1 + d) + e, |e| <= FLT_TRUE_MIN / 2).
// The taps products and taps sums of a kernel and the reference's own rounding add
// (taps + 1) * FLT_TRUE_MIN at most: the floor under the relative bound, which alone would demand
// a subnormal result more exact than float can hold it.
double direct_bound(const Filter& filter, double max_abs_pixel) {
  const double c = std::max(8.0, filter.taps() / 2.0 + 1.0);
  return c * FLT_EPSILON * filter.abs_sum() * max_abs_pixel + underflow_floor(filter);
}

// to_8bit (image.h) in double, for the ends of an error interval that float would round again:
// nearest, ties to even, saturated to 0..255.
double round_to_8bit(double value) { return std::clamp(std::nearbyint(value), 0.0, 255.0); }

}  // namespace

double underflow_floor(const Filter& filter) { return (filter.taps() + 1.0) * FLT_TRUE_MIN; }

Tolerance tolerance_for(const Problem& problem, const Image& input) {
  const Magnitudes m = measure(input);
  const double scale = problem.filter.abs_sum() * m.max_abs_pixel;
  // Integer products and every partial sum stay integers below 2^24, which float represents exactly:
  // any order of summation, with or without FMA, gives the same bits.
  if (problem.filter.integer_weights() && m.integer_pixels && scale < 16777216.0) return {0.0, true};
  return {direct_bound(problem.filter, m.max_abs_pixel), false};
}

double separable_error_bound(const Filter& filter, const SeparableFactors& factors, const Image& input) {
  double residual = 0;
  for (int r = 0; r < filter.height; ++r)
    for (int c = 0; c < filter.width; ++c)
      residual += std::fabs(filter.at(r, c) - static_cast<double>(factors.column[r]) * factors.row[c]);
  return residual * measure(input).max_abs_pixel;
}

Tolerance fft_tolerance_for(const Problem& problem, const Image& input) {
  // A float FFT of N points has a relative L2 error of about log2(N) * FLT_EPSILON (each of its
  // log2 N butterfly stages rounds once). The product with the filter's spectrum (|W(k)| <= sum|w|)
  // and the inverse transform carry that to every output pixel, relative to sum|w| * max|x| rather
  // than to the pixel's own value: FFT error is spread over the whole image. 16 covers the forward
  // and inverse transforms (2x), the spectral product, and the largest of millions of pixel errors
  // (a few standard deviations of an error that is close to Gaussian). N is at least the padded
  // size a linear convolution needs; a transform padded further to a fast length is within 2x of it.
  const Magnitudes m = measure(input);
  const double padded_pixels = static_cast<double>(problem.width + 2 * problem.radius_x()) *
                               (problem.height + 2 * problem.radius_y());
  const double fft_bound = 16.0 * std::log2(std::max(padded_pixels, 2.0)) * FLT_EPSILON *
                           problem.filter.abs_sum() * m.max_abs_pixel;
  // Never tighter than the direct bound: an FFT is not bit-exact even on integer data.
  return {std::max(fft_bound, direct_bound(problem.filter, m.max_abs_pixel)), false};
}

Tolerance tolerance_for_variant(const VariantTraits& variant, const Problem& problem, const Image& input) {
  Tolerance tolerance =
      variant.kind == VariantKind::Fft ? fft_tolerance_for(problem, input) : tolerance_for(problem, input);
  tolerance.eight_bit = problem.pixel == PixelType::U8;
  if (variant.kind == VariantKind::Fft) return tolerance;
  if (variant.rank_one) {
    // The two passes compute with column x row, which differs from the 2D filter by up to its residual.
    const std::optional<SeparableFactors>& factors = problem.correlation_factors;
    const double residual = factors ? separable_error_bound(problem.correlation_filter, *factors, input) : 0;
    if (residual > 0) {
      tolerance.value += residual;
      tolerance.exact = false;
    }
  }
  if (variant.low_rank && problem.correlation_low_rank && !problem.correlation_low_rank->terms.empty()) {
    // docs/correctness.md, "Low-rank variants": what the terms leave out of the filter, plus the rounding
    // of k row sums of width taps and a column sum of k * height taps, each relative to the terms'
    // magnitudes (which cancel to the filter's, but are summed before they do). Never exact: the terms
    // are not integers.
    const LowRank& low_rank = *problem.correlation_low_rank;
    const Filter& filter = problem.correlation_filter;
    const double max_abs_pixel = measure(input).max_abs_pixel;
    const double c = std::max(8.0, (filter.width + low_rank.rank * filter.height) / 2.0 + 1.0);
    const double passes = c * FLT_EPSILON * low_rank_magnitude(low_rank.terms) * max_abs_pixel + underflow_floor(filter);
    const double residual = low_rank_residual(filter, low_rank.terms) * max_abs_pixel;
    tolerance.value = std::max(tolerance.exact ? 0.0 : tolerance.value, passes) + residual;
    tolerance.exact = false;
  }
  if (tolerance.eight_bit && variant.kind == VariantKind::Baseline) {
    // NPP's 8-bit filters round to 8 bits as NPP does, which it does not document: within 1 either way.
    // Its rank-1 baseline stores the first pass as 8-bit too, each pixel off by up to 1, weighed by the
    // second pass's |coefficients|, which sum to the filter's sum|w| (backends/npp/eight_bit_passes.h).
    tolerance.any_rounding = true;
    tolerance.exact = false;
    tolerance.value += 1.0 + (variant.rank_one ? problem.correlation_filter.abs_sum() : 0.0);
  }
  return tolerance;
}

Validation validate(const Image& result, const Image& reference, const Tolerance& tolerance) {
  Validation v;
  v.tolerance = v.float_bound = tolerance.value;
  const bool levels = tolerance.eight_bit && !tolerance.any_rounding;
  if (levels) v.tolerance = 0;  // raised below to the widest any pixel was allowed
  v.exact = tolerance.exact;
  v.eight_bit = tolerance.eight_bit;
  v.any_rounding = tolerance.any_rounding;
  if (result.width != reference.width || result.height != reference.height ||
      result.channels != reference.channels || result.data.size() != reference.data.size()) {
    v.max_abs_error = v.rel_l2_error = std::numeric_limits<double>::infinity();
    return v;
  }

  double diff_squares = 0, reference_squares = 0;
  bool nonfinite_mismatch = false;
  for (int c = 0; c < reference.channels; ++c)
    for (int y = 0; y < reference.height; ++y)
      for (int x = 0; x < reference.width; ++x) {
        const double got = result.at(c, y, x), expected = reference.at(c, y, x);
        bool ok;
        double held_to = expected;  // the value this pixel is held to, which a failure's message names
        if (std::isnan(expected)) {
          ok = std::isnan(got);
          v.nonfinite_matched += ok;
        } else if (std::isinf(expected)) {
          ok = got == expected;
          v.nonfinite_matched += ok;
        } else if (!std::isfinite(got)) {
          ok = false;
          nonfinite_mismatch = true;
        } else {
          if (tolerance.any_rounding) {
            // The exact value saturated, as any rounding of a saturating store lands within 1 of it.
            held_to = std::clamp(expected, 0.0, 255.0);
            ok = std::fabs(got - held_to) <= tolerance.value;
          } else if (tolerance.eight_bit) {
            // The reference rounded and saturated; a correct float kernel's sum lies anywhere within the
            // bound of the exact value, so any 8-bit value that some point of [exact - bound, exact +
            // bound] rounds to passes (docs/correctness.md, "8-bit results"). Rounding is monotone: the
            // ends of the interval give the range.
            held_to = round_to_8bit(expected);
            const double bound = tolerance.exact ? 0.0 : tolerance.value;
            const double lowest = round_to_8bit(expected - bound), highest = round_to_8bit(expected + bound);
            ok = got >= lowest && got <= highest;
            v.tolerance = std::max({v.tolerance, held_to - lowest, highest - held_to});
          } else {
            ok = tolerance.exact ? got == expected : std::fabs(got - expected) <= tolerance.value;
          }
          // The error figures against the value the verdict holds the pixel to: for 8-bit results the
          // saturated reference, never the unsaturated sum a u8 pixel cannot hold.
          const double diff = std::fabs(got - held_to);
          v.max_abs_error = std::max(v.max_abs_error, diff);
          diff_squares += diff * diff;
          reference_squares += held_to * held_to;
        }
        if (!ok && v.bad_channel < 0) {
          v.bad_channel = c, v.bad_y = y, v.bad_x = x;
          v.bad_value = got, v.bad_expected = held_to;
        }
      }

  v.passed = v.bad_channel < 0;
  if (nonfinite_mismatch) {
    // A NaN or Inf where a number was due is an unbounded error; the message names the pixel.
    v.max_abs_error = v.rel_l2_error = std::numeric_limits<double>::infinity();
  } else if (reference_squares > 0) {
    v.rel_l2_error = std::sqrt(diff_squares / reference_squares);
  } else {
    v.rel_l2_error = std::sqrt(diff_squares);  // an all-zero reference: the absolute norm says more than 0/0
  }
  return v;
}

std::string Validation::message() const {
  if (passed) return "";
  if (bad_channel < 0) return "result is not the reference's shape (width, height or channel count differ)";
  const std::string where = fmt::format("pixel ({}, {}) channel {}: got {:.9g}, expected {:.9g}", bad_x, bad_y,
                                        bad_channel, bad_value, bad_expected);
  if (!std::isfinite(bad_value) || !std::isfinite(bad_expected)) return where + " (non-finite mismatch)";
  const double diff = std::fabs(bad_value - bad_expected);
  if (any_rounding)
    return fmt::format("{}, an 8-bit baseline's result must be within {:.3g} of the exact value saturated to 0..255 "
                       "(its own rounding, either way)", where, tolerance);
  if (eight_bit)
    return fmt::format("{}, an 8-bit result must be the reference rounded to nearest (or the rounding of a value "
                       "within {:.3g} of it)", where, float_bound);
  if (exact) return fmt::format("{}, |diff| {:.9g} > tolerance 0 (integer-exact problem)", where, diff);
  return fmt::format("{}, |diff| {:.9g} > tolerance {:.9g}", where, diff, tolerance);
}

}  // namespace cc
