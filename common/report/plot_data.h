// plot_data.h: what a --plot page shows, apart from how it is drawn (plot.cpp): the runs chosen per group, the API styles, the rate series and the phase bars.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/report/canvas.h"
#include "common/report/report.h"

namespace cc::plot_data {

enum class XAxis { Radius, Size, None };

struct Selection {
  std::vector<const RunRecord*> plotted;  // the rate panel's runs
  std::vector<const RunRecord*> phased;   // the phase panel's candidates: largest image, smallest radius
  XAxis x = XAxis::None;
  std::string title;
  std::string phase_title;
  // A radius page's runs that did not validate (skipped, failed) at the plotted size: what has no
  // line or a gap (not_drawn_note).
  std::vector<const RunRecord*> not_ok;
};

// One selection per (filter minus r=, border) group of validated runs, in report order; one empty
// selection (a page that says there is nothing to plot) when there are none.
std::vector<Selection> select_groups(const Report& report);

struct Api {
  std::string backend, device, label;
  Dash dash;
  MarkerShape marker;
};

// One entry per (backend, device) among the ok runs: CUDA first, then OpenCL, the rest, the CPU last.
std::vector<Api> find_apis(const Report& report);

struct Series {
  std::string label;
  Rgb colour;
  const Api* api;
  std::map<double, double> points;  // x -> MPix/s
  std::map<double, double> noise;   // x -> the point's kernel noise, a fraction (0.05: 5 %); absent when unknown
};

// One series per (API, variant) of the rate panel's runs, fastest first.
std::vector<Series> build_series(const Selection& selection, const std::vector<Api>& apis);

// The ceilings a radius page draws, one per device of the page with both measured peaks (the device
// block, kernels_*/peak.*; the tool knows no datasheet peak), as the MPix/s each allows its device's
// runs: DRAM, the bytes a pixel moves (read once, written once) at the copy kernel's rate; FMA, a direct
// 2D sum's (2r+1)^2 FMAs per pixel and channel at the FMA kernel's rate. derive_bound's "% direct"
// uses the same two. A separable run does fewer FMAs and may pass the FMA ceiling.
struct Ceiling {
  std::string label;  // the device's API label (Api::label): "cuda", "opencl:0:0", "boxA/opencl"
  std::string device;
  double copy_gb_per_s = 0, fma_gflop_per_s = 0;
  double bytes_per_pixel = 0, channels = 0;  // of its runs on the page: the fewest, so no run sits over it wrongly
  double dram_mpix() const { return copy_gb_per_s * 1e3 / bytes_per_pixel; }
  double fma_mpix(double radius) const {
    const double side = 2 * radius + 1;
    return fma_gflop_per_s * 1e3 / (2 * side * side * channels);
  }
};

// The ceilings of a radius page, in the order of `apis`; none for other pages, and none for a device
// without both peaks (--no-peaks, the CPU backend, a merged report without them).
std::vector<Ceiling> find_ceilings(const Report& report, const Selection& selection, const std::vector<Api>& apis);

// The fastest series at one x of the rate panel: which variant and API wins there.
struct Win {
  double x;
  const Series* series;
};
// One per x any series has, in x order.
std::vector<Win> fastest_at_each_x(const std::vector<Series>& series);

// What a radius page does not draw and where: "opencl shuffle; cuda fast at r = 17..32" (a variant
// with no line at all by its name alone), or "" when every run validated. The reasons are the report's.
std::string not_drawn_note(const Selection& selection, const std::vector<Api>& apis);

struct Phase {
  const char* name;
  Rgb colour;
  double (*ms)(const RunRecord&);
};
// setup, H2D, the kernel's median and D2H, in the order a bar stacks them.
extern const Phase kPhases[4];

struct Bar {
  std::string label;
  const RunRecord* run;
  double total = 0;
  bool new_group = false;  // first bar of its API: a little more space above
};

// A bar per (API, host memory, variant) of the phase panel's runs.
std::vector<Bar> build_bars(const Selection& selection, const std::vector<Api>& apis);

}  // namespace cc::plot_data
