// plot_data.h: what a --plot page shows, apart from how it is drawn (plot.cpp): the runs chosen per group, the API styles, the rate series and the phase bars.
#pragma once

#include <map>
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
};

// One series per (API, variant) of the rate panel's runs, fastest first.
std::vector<Series> build_series(const Selection& selection, const std::vector<Api>& apis);

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
