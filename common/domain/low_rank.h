// low_rank.h: a filter's singular value decomposition and its fewest separable terms within tolerance.
#pragma once

#include <optional>
#include <vector>

#include "common/domain/filter.h"

namespace cc {

// Most separable terms the lowrank variant runs (each a row pass and a column pass it keeps on chip).
inline constexpr int kMaxLowRank = 4;

// Largest filter side decomposed: the dense SVD costs side^3 per Jacobi sweep (129: ~2 M flops a sweep,
// milliseconds), and a filter this wide is the fft variant's anyway.
inline constexpr int kMaxDecomposedSide = 129;

struct LowRank {
  std::vector<double> singular_values;  // all min(width, height) of them, largest first
  // The fewest terms whose float factors reproduce every weight within kSeparableTolerance * max|w|
  // (separate()'s test, so rank 1 here is exactly what separable accepts); past kMaxLowRank, the
  // fewest whose exact truncation error sqrt(sum of the dropped s_i^2) bounds every weight's error
  // within that (for the skip reason only).
  int rank = 0;
  // `rank` terms, the largest singular value first, each sqrt(s_i) u_i (column) and sqrt(s_i) v_i (row):
  // weights[r][c] ~= sum_k terms[k].column[r] * terms[k].row[c]. Empty when rank > kMaxLowRank.
  std::vector<SeparableFactors> terms;
};

// The decomposition of a filter with finite, not all zero weights and sides up to kMaxDecomposedSide;
// nullopt otherwise. One-sided Jacobi (Hestenes) in double: no dependency, and exact to ~1e-15
// relative at these sizes.
std::optional<LowRank> decompose(const Filter& filter);

// sum over the taps of |w - sum_k column_k * row_k|: what the terms leave out of the filter, which
// times max|x| bounds what they leave out of any output pixel (docs/correctness.md).
double low_rank_residual(const Filter& filter, const std::vector<SeparableFactors>& terms);

// sum_k (sum|column_k|) (sum|row_k|): the scale of the partial sums a kernel running the terms forms,
// which can exceed sum|w| where terms cancel (docs/correctness.md, "Low-rank variants").
double low_rank_magnitude(const std::vector<SeparableFactors>& terms);

}  // namespace cc
