// low_rank.cpp: one-sided Jacobi SVD of a filter and the choice of its fewest separable terms.
#include "common/domain/low_rank.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cc {

namespace {

// Sweeps until no pair of columns is correlated beyond this, relative to their norms: double's
// epsilon times a few, so the singular values are as exact as the weights.
constexpr double kOrthogonal = 1e-15;
constexpr int kMaxSweeps = 60;  // quadratic convergence takes ~10; a safety stop, never a hang

struct Svd {
  std::vector<double> values;                 // n
  std::vector<std::vector<double>> left;      // n columns of length m (unit, or zero where values[j] == 0)
  std::vector<std::vector<double>> right;     // n columns of length n
};

// A (m x n, given as its n columns) = U S V^T by rotating pairs of columns of U = A V until they are
// orthogonal; then |U_j| are the singular values and U_j / |U_j| the left vectors.
Svd jacobi_svd(std::vector<std::vector<double>> u) {
  const std::size_t n = u.size(), m = u.front().size();
  std::vector<std::vector<double>> v(n, std::vector<double>(n, 0.0));
  for (std::size_t j = 0; j < n; ++j) v[j][j] = 1.0;
  auto rotate = [](std::vector<double>& p, std::vector<double>& q, double c, double s) {
    for (std::size_t i = 0; i < p.size(); ++i) {
      const double a = p[i], b = q[i];
      p[i] = c * a - s * b;
      q[i] = s * a + c * b;
    }
  };
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    bool rotated = false;
    for (std::size_t p = 0; p + 1 < n; ++p)
      for (std::size_t q = p + 1; q < n; ++q) {
        double alpha = 0, beta = 0, gamma = 0;
        for (std::size_t i = 0; i < m; ++i) {
          alpha += u[p][i] * u[p][i];
          beta += u[q][i] * u[q][i];
          gamma += u[p][i] * u[q][i];
        }
        if (std::fabs(gamma) <= kOrthogonal * std::sqrt(alpha * beta)) continue;
        rotated = true;
        const double zeta = (beta - alpha) / (2 * gamma);
        const double t = std::copysign(1.0, zeta) / (std::fabs(zeta) + std::sqrt(1 + zeta * zeta));
        const double c = 1 / std::sqrt(1 + t * t), s = c * t;
        rotate(u[p], u[q], c, s);
        rotate(v[p], v[q], c, s);
      }
    if (!rotated) break;
  }
  Svd svd;
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> norms(n);
  for (std::size_t j = 0; j < n; ++j) norms[j] = std::sqrt(std::inner_product(u[j].begin(), u[j].end(), u[j].begin(), 0.0));
  std::stable_sort(order.begin(), order.end(), [&norms](std::size_t a, std::size_t b) { return norms[a] > norms[b]; });
  for (const std::size_t j : order) {
    svd.values.push_back(norms[j]);
    std::vector<double> left = u[j];
    if (norms[j] > 0)
      for (double& x : left) x /= norms[j];
    svd.left.push_back(std::move(left));
    svd.right.push_back(v[j]);
  }
  return svd;
}

double max_residual(const Filter& filter, const std::vector<SeparableFactors>& terms) {
  double worst = 0;
  for (int r = 0; r < filter.height; ++r)
    for (int c = 0; c < filter.width; ++c) {
      double sum = 0;
      for (const SeparableFactors& term : terms) sum += static_cast<double>(term.column[r]) * term.row[c];
      worst = std::max(worst, std::fabs(filter.at(r, c) - sum));
    }
  return worst;
}

}  // namespace

std::optional<LowRank> decompose(const Filter& filter) {
  if (filter.weights.empty() || filter.width > kMaxDecomposedSide || filter.height > kMaxDecomposedSide)
    return std::nullopt;
  double peak = 0;
  for (const float w : filter.weights) {
    if (!std::isfinite(w)) return std::nullopt;
    peak = std::max(peak, static_cast<double>(std::fabs(w)));
  }
  if (!(peak > 0)) return std::nullopt;

  // Jacobi rotates pairs of the matrix's columns: with the filter's columns (height long) when it is
  // at least as tall as wide, else its rows, so the pairs are the fewer.
  const bool by_columns = filter.height >= filter.width;
  const int count = by_columns ? filter.width : filter.height, length = by_columns ? filter.height : filter.width;
  std::vector<std::vector<double>> vectors(count, std::vector<double>(length));
  for (int j = 0; j < count; ++j)
    for (int i = 0; i < length; ++i) vectors[j][i] = by_columns ? filter.at(i, j) : filter.at(j, i);
  const Svd svd = jacobi_svd(std::move(vectors));

  LowRank result;
  result.singular_values = svd.values;
  const double allowed = kSeparableTolerance * peak;
  for (int k = 1; k <= std::min(kMaxLowRank, count); ++k) {
    SeparableFactors term;
    const double scale = std::sqrt(svd.values[k - 1]);
    // by_columns: left vectors run down the filter's columns (height), right ones along its rows.
    const std::vector<double>& down = by_columns ? svd.left[k - 1] : svd.right[k - 1];
    const std::vector<double>& along = by_columns ? svd.right[k - 1] : svd.left[k - 1];
    for (const double x : down) term.column.push_back(static_cast<float>(scale * x));
    for (const double x : along) term.row.push_back(static_cast<float>(scale * x));
    result.terms.push_back(std::move(term));
    // Checked with the float factors a kernel will use, as separate() does.
    if (max_residual(filter, result.terms) <= allowed) {
      result.rank = k;
      return result;
    }
  }
  result.terms.clear();
  // Past kMaxLowRank: the fewest terms whose exact truncation (Frobenius norm of the dropped part, which
  // bounds each weight's error) fits; at most every singular value.
  double dropped = 0;
  int rank = count;
  for (int k = count - 1; k >= 0; --k) {
    dropped += svd.values[k] * svd.values[k];
    if (std::sqrt(dropped) > allowed) break;
    rank = k;
  }
  result.rank = std::max(rank, kMaxLowRank + 1);
  return result;
}

double low_rank_residual(const Filter& filter, const std::vector<SeparableFactors>& terms) {
  double residual = 0;
  for (int r = 0; r < filter.height; ++r)
    for (int c = 0; c < filter.width; ++c) {
      double sum = 0;
      for (const SeparableFactors& term : terms) sum += static_cast<double>(term.column[r]) * term.row[c];
      residual += std::fabs(filter.at(r, c) - sum);
    }
  return residual;
}

double low_rank_magnitude(const std::vector<SeparableFactors>& terms) {
  double magnitude = 0;
  for (const SeparableFactors& term : terms) {
    double column = 0, row = 0;
    for (const float x : term.column) column += std::fabs(x);
    for (const float x : term.row) row += std::fabs(x);
    magnitude += column * row;
  }
  return magnitude;
}

}  // namespace cc
