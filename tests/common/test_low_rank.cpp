// test_low_rank.cpp: the filters' SVD, their numerical rank and the separable terms the lowrank variant runs.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <cfloat>

#include <doctest/doctest.h>

#include "common/domain/problem.h"
#include "common/domain/validate.h"
#include "common/domain/variants.h"

#include "common/domain/filter.h"
#include "common/domain/low_rank.h"

namespace {

cc::Filter matrix(int width, int height, std::vector<float> weights) {
  cc::Filter filter;
  filter.width = width;
  filter.height = height;
  filter.weights = std::move(weights);
  return filter;
}

double frobenius_squared(const cc::Filter& filter) {
  double sum = 0;
  for (const float w : filter.weights) sum += double(w) * w;
  return sum;
}

double peak(const cc::Filter& filter) {
  double worst = 0;
  for (const float w : filter.weights) worst = std::max(worst, double(std::fabs(w)));
  return worst;
}

// sum of s_i^2 is the sum of the squared weights, for any matrix: a check on every singular value at once.
void check_energy(const cc::Filter& filter, const cc::LowRank& low_rank) {
  double energy = 0;
  for (const double s : low_rank.singular_values) energy += s * s;
  CHECK(energy == doctest::Approx(frobenius_squared(filter)).epsilon(1e-12));
  CHECK(std::is_sorted(low_rank.singular_values.rbegin(), low_rank.singular_values.rend()));
}

}  // namespace

TEST_CASE("a Gaussian is rank 1: s1 = |g|^2, the term is g itself") {
  const cc::Filter gaussian = cc::parse_filter_spec("gaussian:sigma=1,r=2");
  const auto low_rank = cc::decompose(gaussian);
  REQUIRE(low_rank.has_value());
  check_energy(gaussian, *low_rank);
  const double n = 1 + 2 * std::exp(-0.5) + 2 * std::exp(-2.0);
  const double g[5] = {std::exp(-2.0) / n, std::exp(-0.5) / n, 1 / n, std::exp(-0.5) / n, std::exp(-2.0) / n};
  double g_squared = 0;
  for (const double x : g) g_squared += x * x;
  CHECK(low_rank->singular_values[0] == doctest::Approx(g_squared).epsilon(1e-6));
  CHECK(low_rank->singular_values[1] < 1e-7 * low_rank->singular_values[0]);
  CHECK(low_rank->rank == 1);
  REQUIRE(low_rank->terms.size() == 1);
  // sqrt(s1) times the unit vector g / |g| is g (up to one sign shared by both factors).
  const cc::SeparableFactors& term = low_rank->terms[0];
  for (int i = 0; i < 5; ++i) {
    CHECK(std::fabs(term.column[i]) == doctest::Approx(g[i]).epsilon(1e-6));
    CHECK(std::fabs(term.row[i]) == doctest::Approx(g[i]).epsilon(1e-6));
  }
  CHECK(cc::low_rank_magnitude(low_rank->terms) == doctest::Approx(1.0).epsilon(1e-6));
  CHECK(cc::low_rank_residual(gaussian, low_rank->terms) < 25 * 1e-7 * peak(gaussian));
}

TEST_CASE("LoG and DoG are rank 2, within the separable tolerance per tap") {
  for (const std::string spec : {"log:sigma=2", "log:sigma=1.4,r=7", "dog:sigma1=1,sigma2=2", "dog:sigma1=2,sigma2=3.5,r=7",
                                 "log:sigma=5,r=32"}) {
    CAPTURE(spec);
    const cc::Filter filter = cc::parse_filter_spec(spec);
    const auto low_rank = cc::decompose(filter);
    REQUIRE(low_rank.has_value());
    check_energy(filter, *low_rank);
    CHECK(low_rank->rank == 2);
    REQUIRE(low_rank->terms.size() == 2);
    CHECK(low_rank->terms[0].column.size() == std::size_t(filter.height));
    CHECK(low_rank->terms[0].row.size() == std::size_t(filter.width));
    // Rank 2 to float rounding: the third singular value is the weights' rounding, ~1e-8 of the first.
    CHECK(low_rank->singular_values[1] > 1e-3 * low_rank->singular_values[0]);
    CHECK(low_rank->singular_values[2] < 1e-6 * low_rank->singular_values[0]);
    const double residual = cc::low_rank_residual(filter, low_rank->terms);
    CHECK(residual > 0);
    CHECK(residual <= filter.taps() * 1e-6 * peak(filter));
  }
  // LoG = a g^T + g a^T with a zero-sum and g of sum 1 (so a . g is small): its singular values are
  // |a| |g| + a . g and |a| |g| - a . g; their product is |(a.g)^2 - |a|^2 |g|^2|, their squares' sum the energy.
  const cc::Filter log = cc::parse_filter_spec("log:sigma=1,r=4");
  const auto low_rank = cc::decompose(log);
  REQUIRE(low_rank.has_value());
  std::vector<double> g(9), a(9);
  double g_sum = 0, a_sum = 0;
  for (int i = -4; i <= 4; ++i) g_sum += g[i + 4] = std::exp(-0.5 * i * i);
  for (double& x : g) x /= g_sum;
  for (int i = -4; i <= 4; ++i) a_sum += a[i + 4] = (double(i) * i - 1) * g[i + 4];
  for (int i = 0; i < 9; ++i) a[i] -= a_sum * g[i];
  const double ag = std::inner_product(a.begin(), a.end(), g.begin(), 0.0);
  const double aa = std::inner_product(a.begin(), a.end(), a.begin(), 0.0);
  const double gg = std::inner_product(g.begin(), g.end(), g.begin(), 0.0);
  const double large = std::sqrt(aa * gg) + std::fabs(ag), small = std::sqrt(aa * gg) - std::fabs(ag);
  CHECK(low_rank->singular_values[0] == doctest::Approx(large).epsilon(1e-6));
  CHECK(low_rank->singular_values[1] == doctest::Approx(small).epsilon(1e-6));
}

TEST_CASE("exact small cases: the identity matrix, a non-square rank 2, a random full-rank filter") {
  // The 3x3 identity matrix: three singular values of 1, three terms.
  const cc::Filter diagonal = matrix(3, 3, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  const auto identity = cc::decompose(diagonal);
  REQUIRE(identity.has_value());
  for (const double s : identity->singular_values) CHECK(s == doctest::Approx(1.0).epsilon(1e-14));
  CHECK(identity->rank == 3);
  CHECK(identity->terms.size() == 3);
  CHECK(cc::low_rank_residual(diagonal, identity->terms) < 1e-6);

  // 5 wide, 3 tall: [1 2 3 2 1] x [1 0 -1]^T + [0 1 0 -1 0] x [2 2 2]^T; the columns' pair is orthogonal
  // and so are the rows', so s = |col| |row|: sqrt(19) sqrt(2), sqrt(2) sqrt(12).
  std::vector<float> weights;
  const float row1[5] = {1, 2, 3, 2, 1}, column1[3] = {1, 0, -1}, row2[5] = {0, 1, 0, -1, 0}, column2[3] = {2, 2, 2};
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 5; ++c) weights.push_back(column1[r] * row1[c] + column2[r] * row2[c]);
  const cc::Filter wide = matrix(5, 3, weights);
  const auto two = cc::decompose(wide);
  REQUIRE(two.has_value());
  REQUIRE(two->singular_values.size() == 3);  // min(width, height)
  CHECK(two->singular_values[0] == doctest::Approx(std::sqrt(38.0)).epsilon(1e-12));
  CHECK(two->singular_values[1] == doctest::Approx(std::sqrt(24.0)).epsilon(1e-12));
  CHECK(two->singular_values[2] < 1e-13);
  CHECK(two->rank == 2);
  REQUIRE(two->terms.size() == 2);
  CHECK(two->terms[0].column.size() == 3);
  CHECK(two->terms[0].row.size() == 5);
  CHECK(cc::low_rank_residual(wide, two->terms) < 15 * 1e-6 * 3);

  // A random 7x7 filter is full rank: rank 7 reported, no terms (over kMaxLowRank).
  std::mt19937 rng(29);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<float> noise(49);
  for (float& w : noise) w = uniform(rng);
  const cc::Filter random = matrix(7, 7, noise);
  const auto full = cc::decompose(random);
  REQUIRE(full.has_value());
  check_energy(random, *full);
  CHECK(full->singular_values[6] > 1e-3);
  CHECK(full->rank == 7);
  CHECK(full->terms.empty());
}

TEST_CASE("the rank is the fewest terms within 1e-6 of the peak per tap") {
  // Rank 1 plus a second term of 1e-3: rank 2. Plus 1e-8 instead (lost to float rounding beside the 1s): rank 1.
  const float base[3] = {1, 2, 1};
  for (const double second : {1e-3, 1e-8}) {
    CAPTURE(second);
    std::vector<float> weights;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) weights.push_back(float(base[r] * base[c] + second * (r - 1) * (c == 0 ? 1 : 0)));
    const cc::Filter filter = matrix(3, 3, weights);
    const auto low_rank = cc::decompose(filter);
    REQUIRE(low_rank.has_value());
    CHECK(low_rank->rank == (second > 1e-6 ? 2 : 1));
    const double residual = cc::low_rank_residual(filter, low_rank->terms);
    CHECK(residual < 1e-5);
  }
}

TEST_CASE("decompose refuses zeros, non-finite weights and filters over its side") {
  CHECK_FALSE(cc::decompose(matrix(3, 1, {0, 0, 0})).has_value());
  CHECK_FALSE(cc::decompose(matrix(3, 1, {1, NAN, 0})).has_value());
  CHECK_FALSE(cc::decompose(matrix(3, 1, {1, INFINITY, 0})).has_value());
  CHECK_FALSE(cc::decompose(matrix(cc::kMaxDecomposedSide + 2, 1, std::vector<float>(cc::kMaxDecomposedSide + 2, 1.0f))).has_value());
  const auto line = cc::decompose(matrix(cc::kMaxDecomposedSide, 1, std::vector<float>(cc::kMaxDecomposedSide, 1.0f)));
  REQUIRE(line.has_value());
  CHECK(line->rank == 1);
  CHECK(line->singular_values[0] == doctest::Approx(std::sqrt(double(cc::kMaxDecomposedSide))).epsilon(1e-12));
}

TEST_CASE("the lowrank variant's tolerance: the terms' residual and rounding, never exact") {
  const cc::VariantTraits* lowrank = cc::find_variant("lowrank");
  REQUIRE(lowrank);
  CHECK(lowrank->low_rank);
  cc::Image image(16, 12, 1);
  for (std::size_t i = 0; i < image.data.size(); ++i) image.data[i] = float(i % 7) - 3.0f;  // max|x| = 3

  const cc::Problem log = cc::make_problem(image, cc::parse_filter_spec("log:sigma=1,r=3"), cc::Border::Clamp, false);
  REQUIRE(log.correlation_low_rank.has_value());
  REQUIRE(log.correlation_low_rank->rank == 2);
  const std::vector<cc::SeparableFactors>& terms = log.correlation_low_rank->terms;
  const double direct = std::max(8.0, 49 / 2.0 + 1.0) * FLT_EPSILON * log.filter.abs_sum() * 3 + 50 * FLT_TRUE_MIN;
  const double passes = std::max(8.0, (7 + 2 * 7) / 2.0 + 1.0) * FLT_EPSILON * cc::low_rank_magnitude(terms) * 3 +
                        50 * FLT_TRUE_MIN;
  const double residual = cc::low_rank_residual(log.filter, terms) * 3;
  const cc::Tolerance tolerance = cc::tolerance_for_variant(*lowrank, log, image);
  CHECK(tolerance.value == doctest::Approx(std::max(direct, passes) + residual).epsilon(1e-12));
  CHECK_FALSE(tolerance.exact);
  // The terms cancel to a zero-sum filter: their magnitudes exceed the filter's.
  CHECK(cc::low_rank_magnitude(terms) > log.filter.abs_sum());

  // sobel-x on integers is bit-exact for a direct variant, but not for the terms' float factors.
  for (float& x : image.data) x = std::round(x);
  const cc::Problem sobel = cc::make_problem(image, cc::parse_filter_spec("sobel-x"), cc::Border::Zero, false);
  CHECK(cc::tolerance_for_variant(*cc::find_variant("global"), sobel, image).exact);
  const cc::Tolerance factored = cc::tolerance_for_variant(*lowrank, sobel, image);
  CHECK_FALSE(factored.exact);
  CHECK(factored.value > 0);
  CHECK(factored.value < 1e-4);
}
