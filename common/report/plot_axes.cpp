// plot_axes.cpp: the --plot picture's axis scales, each ending on round values with its ticks.
#include "common/report/plot_axes.h"

namespace cc::plot_axes {

namespace {

// A step of 1, 2 or 5 times a power of ten giving about `count` intervals over `span`.
double nice_step(double span, int count) {
  const double raw = span / count, power = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (m * power >= raw) return m * power;
  return 10 * power;
}

}  // namespace

Axis linear_axis(double lo, double hi, int count) {
  if (!(hi > lo)) lo -= 1, hi += 1;
  const double step = nice_step(hi - lo, count);
  Axis axis{std::floor(lo / step + 1e-9) * step, std::ceil(hi / step - 1e-9) * step, false, {}};
  for (double t = axis.lo; t <= axis.hi + step / 2; t += step)
    axis.ticks.push_back(std::abs(t) < step / 1e6 ? 0 : t);
  return axis;
}

Axis log_axis(double lo, double hi) {
  if (!(hi > lo)) lo /= 2, hi *= 2;
  std::vector<double> candidates;
  for (int e = static_cast<int>(std::floor(std::log10(lo))) - 1; e <= static_cast<int>(std::ceil(std::log10(hi)));
       ++e)
    for (double m : {1.0, 2.0, 5.0}) candidates.push_back(m * std::pow(10, e));
  Axis axis{lo, hi, true, {}};
  for (double c : candidates) {
    if (c <= lo * (1 + 1e-9)) axis.lo = c;
    if (c >= hi * (1 - 1e-9)) {
      axis.hi = c;
      break;
    }
  }
  const bool dense = axis.hi / axis.lo <= 1000.0 * (1 + 1e-9);
  for (double c : candidates)
    if (c >= axis.lo * (1 - 1e-9) && c <= axis.hi * (1 + 1e-9) &&
        (dense || std::abs(std::log10(c) - std::round(std::log10(c))) < 1e-9))
      axis.ticks.push_back(c);
  return axis;
}

Axis radius_axis(double lo, double hi) {
  for (double step : {1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0}) {
    Axis axis{std::floor(lo / step) * step, std::ceil(hi / step) * step, false, {}};
    if (axis.hi == axis.lo) axis.hi += step;
    if ((axis.hi - axis.lo) / step > 8) continue;
    for (double t = axis.lo; t <= axis.hi; t += step) axis.ticks.push_back(t);
    return axis;
  }
  return linear_axis(lo, hi);  // radii beyond 512: not a sweep --sweep accepts
}

}  // namespace cc::plot_axes
