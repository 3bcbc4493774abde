// filter_shapes.cpp: the weights of the built-in filters, each computed in double and stored as float.
#include "common/domain/filter_shapes.h"

#include <cmath>
#include <utility>

namespace cc::filter_shapes {

namespace {

// The filter sum_k column_k[r] * row_k[c] with each weight the float of a double sum: the rank-2
// built-ins below are built this way so that their rank is 2 to float rounding.
Filter outer_sum(const std::vector<std::pair<std::vector<double>, std::vector<double>>>& terms) {
  const std::size_t side = terms.front().first.size();
  Filter filter = square(static_cast<int>(side), 0.0f);
  for (std::size_t i = 0; i < side; ++i)
    for (std::size_t j = 0; j < side; ++j) {
      double w = 0;
      for (const auto& [column, row] : terms) w += column[i] * row[j];
      filter.weights[i * side + j] = static_cast<float>(w);
    }
  return filter;
}

}  // namespace

Filter make_filter(int width, int height, std::vector<float> weights) {
  Filter filter;
  filter.width = width;
  filter.height = height;
  filter.weights = std::move(weights);
  return filter;
}

Filter square(int side, float fill) { return make_filter(side, side, std::vector<float>(side * side, fill)); }

Filter delta(int radius) {
  Filter filter = square(2 * radius + 1, 0.0f);
  filter.weights[filter.weights.size() / 2] = 1.0f;
  return filter;
}

Filter gaussian(double sigma, int radius) {
  const std::vector<double> g = gaussian_1d(sigma, radius);
  Filter filter = square(2 * radius + 1, 0.0f);
  for (std::size_t i = 0; i < g.size(); ++i)
    for (std::size_t j = 0; j < g.size(); ++j) filter.weights[i * g.size() + j] = static_cast<float>(g[i] * g[j]);
  return filter;
}

std::vector<double> gaussian_1d(double sigma, int radius) {
  std::vector<double> g(2 * radius + 1);
  double sum = 0;
  for (int i = -radius; i <= radius; ++i) sum += g[i + radius] = std::exp(-0.5 * (i / sigma) * (i / sigma));
  for (double& v : g) v /= sum;
  return g;
}

Filter laplacian_of_gaussian(double sigma, int radius) {
  const std::vector<double> g = gaussian_1d(sigma, radius);
  std::vector<double> a(g.size());
  double a_sum = 0;
  for (int i = -radius; i <= radius; ++i) {
    const double x = i / sigma;
    // A tap where g underflowed to 0 (tiny sigma) is 0, not inf * 0.
    a_sum += a[i + radius] = g[i + radius] > 0 ? (x * x - 1) * g[i + radius] : 0.0;
  }
  for (std::size_t i = 0; i < a.size(); ++i) a[i] -= a_sum * g[i];  // sum g = 1
  return outer_sum({{a, g}, {g, a}});
}

Filter difference_of_gaussians(double sigma1, double sigma2, int radius) {
  const std::vector<double> g1 = gaussian_1d(sigma1, radius), g2 = gaussian_1d(sigma2, radius);
  std::vector<double> minus_g2(g2.size());
  for (std::size_t i = 0; i < g2.size(); ++i) minus_g2[i] = -g2[i];
  return outer_sum({{g1, g1}, {g2, minus_g2}});
}

Filter sharpen(double strength) {
  Filter filter = square(3, static_cast<float>(-strength / 9));
  filter.weights[4] = static_cast<float>(1 + 8 * strength / 9);
  return filter;
}

Filter fixed3x3(std::initializer_list<float> weights) { return make_filter(3, 3, weights); }

}  // namespace cc::filter_shapes
