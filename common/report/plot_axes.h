// plot_axes.h: the --plot picture's axis scales: linear, logarithmic and radius axes that end on round values, with their ticks.
#pragma once

#include <cmath>
#include <vector>

namespace cc::plot_axes {

struct Axis {
  double lo = 0, hi = 1;
  bool log = false;
  std::vector<double> ticks;
  // Position of `value` between the pixel coordinates `from` (lo) and `to` (hi).
  double map(double value, double from, double to) const {
    const double f =
        log ? (std::log(value) - std::log(lo)) / (std::log(hi) - std::log(lo)) : (value - lo) / (hi - lo);
    return from + f * (to - from);
  }
};

// About `count` intervals of 1, 2 or 5 times a power of ten, ends on multiples of the step.
Axis linear_axis(double lo, double hi, int count = 6);

// Ends on 1-2-5 values; ticks at each of them over three decades or fewer, else at the powers of ten.
Axis log_axis(double lo, double hi);

// Whole radii, 8 intervals at most, in steps that divide the powers of two a sweep ends on: 0..32 by
// 4, not 0..35 by 5 (docs/memory-spaces.md's radius figure spans r = 0..32).
Axis radius_axis(double lo, double hi);

}  // namespace cc::plot_axes
