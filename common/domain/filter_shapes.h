// filter_shapes.h: the weights of the built-in filters (box, identity, Gaussian, LoG, DoG, sharpen, the fixed 3x3s), for filter.cpp's spec parser.
#pragma once

#include <initializer_list>
#include <vector>

#include "common/domain/filter.h"

namespace cc::filter_shapes {

Filter make_filter(int width, int height, std::vector<float> weights);

// A side x side filter of `fill` everywhere (box: fill = 1 / side^2).
Filter square(int side, float fill);

// The identity: 1 at the centre of a (2 radius + 1)^2 grid, 0 elsewhere.
Filter delta(int radius);

// Normalized in double, and each 2D weight is the float of a double product, so the 2D filter is
// separable to float rounding and its weights sum to 1 within a few float epsilons.
Filter gaussian(double sigma, int radius);

// The grid Gaussian of one axis, normalized to sum 1 in double.
std::vector<double> gaussian_1d(double sigma, int radius);

// Laplacian of Gaussian, scale-normalized (sigma^2 times the Laplacian, so its size does not fall
// as 1/sigma^2): the sampled sigma^2 (d2/dx2 + d2/dy2) G is a(x) g(y) + g(x) a(y) with g the grid
// Gaussian (sum 1) and a(x) = ((x/sigma)^2 - 1) g(x). The multiple of g that makes a sum to exactly 0
// is taken out of a, so the filter sums to 0 (flat regions go to 0) and stays rank 2; subtracting a
// constant from every tap instead would make it rank 3. The centre is negative (-1/(pi sigma^2) for
// a wide enough grid).
Filter laplacian_of_gaussian(double sigma, int radius);

// Difference of Gaussians G(sigma1) - G(sigma2), each normalized to sum 1 on the same grid: it sums
// to 0 and is rank 2.
Filter difference_of_gaussians(double sigma1, double sigma2, int radius);

// Unsharp masking with a 3x3 box blur: out = in + A * (in - box3(in)), i.e. centre 1 + 8A/9 and the
// eight neighbours -A/9; the weights sum to 1, so flat regions keep their value.
Filter sharpen(double strength);

Filter fixed3x3(std::initializer_list<float> weights);

}  // namespace cc::filter_shapes
