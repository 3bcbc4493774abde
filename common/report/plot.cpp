// plot.cpp: the --plot picture: a rate panel (lines, or bars when there is one x) and a phase panel.
#include "common/report/plot.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "common/report/canvas.h"
#include "common/report/plot_axes.h"
#include "common/report/plot_data.h"
#include "common/domain/error.h"

namespace cc {

namespace {

namespace fs = std::filesystem;

constexpr int kWidth = 1200, kMinHeight = 900;
constexpr Rgb kInk{35, 35, 35}, kMuted{105, 105, 105}, kAxis{150, 150, 150}, kGrid{228, 228, 228};
constexpr Rgb kWhite{255, 255, 255};
constexpr double kTitleSize = 20, kLabelSize = 15, kTickSize = 14;

using namespace plot_data;
using plot_axes::Axis;
using plot_axes::linear_axis;
using plot_axes::log_axis;
using plot_axes::radius_axis;

// ---- axes ----------------------------------------------------------------------------------------------

// Three significant digits at most, thousands as k and millions as M: 0.25, 20, 1k, 52.9k, 174k, 1.2M.
std::string short_number(double v) {
  if (std::abs(v) >= 1e6) return fmt::format("{:.3g}M", v / 1e6);
  if (std::abs(v) >= 1e3) return fmt::format("{:.3g}k", v / 1e3);
  return fmt::format("{:.3g}", v);
}

// Milliseconds to about three significant digits, without exponents.
std::string ms_label(double v) {
  if (v >= 100) return fmt::format("{:.0f}", v);
  if (v >= 10) return fmt::format("{:.1f}", v);
  if (v >= 1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3g}", v);
}

struct Box {
  double left, top, right, bottom;
};

void draw_y_axis(Canvas& canvas, const Box& plot, const Axis& axis, const std::string& label) {
  for (double t : axis.ticks) {
    const double y = axis.map(t, plot.bottom, plot.top);
    canvas.line({plot.left, y}, {plot.right, y}, kGrid, 1);
    canvas.text({plot.left - 8, y}, short_number(t), kTickSize, kInk, Align::Right);
  }
  canvas.text({plot.left - 62, (plot.top + plot.bottom) / 2}, label, kLabelSize, kInk, Align::Centre, true);
}

void draw_x_axis(Canvas& canvas, const Box& plot, const Axis& axis, const std::string& label, bool grid) {
  for (double t : axis.ticks) {
    const double x = axis.map(t, plot.left, plot.right);
    if (grid) canvas.line({x, plot.top}, {x, plot.bottom}, kGrid, 1);
    canvas.line({x, plot.bottom}, {x, plot.bottom + 5}, kAxis, 1);
    canvas.text({x, plot.bottom + 16}, short_number(t), kTickSize, kInk, Align::Centre);
  }
  canvas.text({(plot.left + plot.right) / 2, plot.bottom + 40}, label, kLabelSize, kInk, Align::Centre);
}

// ---- top panel: rates ---------------------------------------------------------------------------------
// The ceilings' ink: black for the first device's, then greys, apart from every variant's colour;
// DRAM's dashes and FMA's dots say which ceiling.
constexpr Rgb kCeilingInks[] = {{0, 0, 0}, {105, 105, 105}, {160, 160, 160}};
constexpr Dash kDramDash = Dash::Dashed, kFmaDash = Dash::Dotted;
Rgb ceiling_ink(std::size_t device) { return kCeilingInks[device % std::size(kCeilingInks)]; }

// A measured rate to three significant digits, without exponents: 13.7, 2950, 51200.
std::string rate_label(double v) { return v >= 100 ? fmt::format("{:.0f}", v) : fmt::format("{:.3g}", v); }

// The ceilings' legend: what each kind is (its dash), then per device its ink and the rates it was
// measured at: where the peak came from, on the figure itself.
struct CeilingLegend {
  std::vector<std::string> kinds;    // DRAM's, then FMA's
  std::vector<std::string> devices;  // per ceiling: "cuda: 3000 GB/s copy, 50000 GFLOP/s FMA"
};
CeilingLegend ceiling_legend(const std::vector<Ceiling>& ceilings) {
  CeilingLegend legend;
  if (ceilings.empty()) return legend;
  // The fewest bytes and channels of any device's runs: the canvas draws ASCII only, "^2".
  double bytes = ceilings.front().bytes_per_pixel, channels = ceilings.front().channels;
  for (const Ceiling& c : ceilings) bytes = std::min(bytes, c.bytes_per_pixel), channels = std::min(channels, c.channels);
  channels = std::round(channels * 1e6) / 1e6;  // 1, not 0.9999999 from the rates' quotient
  legend.kinds = {fmt::format("DRAM ceiling: {:.3g} B/pixel", bytes),
                  channels == 1 ? std::string("FMA ceiling: (2r+1)^2 FMA/pixel")
                                : fmt::format("FMA ceiling: {:.3g} x (2r+1)^2 FMA/pixel", channels)};
  for (const Ceiling& c : ceilings)
    legend.devices.push_back(fmt::format("{}: {} GB/s copy, {} GFLOP/s FMA", c.label, rate_label(c.copy_gb_per_s),
                                         rate_label(c.fma_gflop_per_s)));
  return legend;
}

double legend_width(const std::vector<Series>& series, const std::vector<Ceiling>& ceilings) {
  double widest = 0;
  for (const Series& s : series) widest = std::max(widest, text_width(s.label, kTickSize));
  const CeilingLegend legend = ceiling_legend(ceilings);
  for (const std::string& kind : legend.kinds) widest = std::max(widest, text_width(kind, kTickSize));
  for (const std::string& device : legend.devices) widest = std::max(widest, text_width(device, 12));
  return std::clamp(widest + 58, 170.0, 360.0);
}

void draw_legend(Canvas& canvas, const std::vector<Series>& series, const std::vector<Ceiling>& ceilings, double left,
                 double top, double bottom) {
  if (!ceilings.empty()) {
    const CeilingLegend legend = ceiling_legend(ceilings);
    constexpr Dash kDashes[] = {kDramDash, kFmaDash};
    for (std::size_t i = 0; i < legend.kinds.size(); ++i, top += 20) {
      canvas.line({left, top + 10}, {left + 38, top + 10}, ceiling_ink(0), 2, kDashes[i]);
      canvas.text({left + 48, top + 10}, legend.kinds[i], kTickSize, kInk);
    }
    for (std::size_t i = 0; i < legend.devices.size(); ++i, top += 17) {
      canvas.line({left, top + 9}, {left + 38, top + 9}, ceiling_ink(i), 3, Dash::Solid);
      canvas.text({left + 48, top + 9}, legend.devices[i], 12, kMuted);
    }
    top += 8;
  }
  const double pitch = std::clamp((bottom - top) / std::max<std::size_t>(series.size(), 1), 14.0, 21.0);
  // + 1e-9: a pitch of (bottom - top) / n must fit n lines, not n - 1 by rounding (22 lines cut to 21).
  const std::size_t fits = static_cast<std::size_t>((bottom - top) / pitch + 1e-9);
  for (std::size_t i = 0; i < series.size(); ++i) {
    const double y = top + pitch * (i + 0.5);
    if (i + 1 == fits && series.size() > fits) {
      canvas.text({left, y}, fmt::format("... and {} more", series.size() - i), kTickSize, kMuted);
      break;
    }
    const Series& s = series[i];
    canvas.line({left, y}, {left + 38, y}, s.colour, 2.5, s.api->dash);
    canvas.marker({left + 19, y}, 4.5, s.api->marker, s.colour);
    canvas.text({left + 48, y}, s.label, kTickSize, kInk);
  }
}

// One device's ceilings over the radius axis: DRAM's a level line, FMA's falling as (2r+1)^2, cut where
// it leaves the panel (at r = 0 it lies orders of magnitude above every run).
void draw_ceiling(Canvas& canvas, const Box& plot, const Axis& x_axis, const Axis& y_axis, const Ceiling& ceiling,
                  Rgb ink) {
  const double dram = ceiling.dram_mpix();
  if (dram >= y_axis.lo && dram <= y_axis.hi) {
    const double y = y_axis.map(dram, plot.bottom, plot.top);
    canvas.line({plot.left, y}, {plot.right, y}, ink, 2, kDramDash);
  }
  std::vector<Point> fma;
  constexpr int kSteps = 128;  // enough for a smooth curve on a log axis
  for (int i = 0; i <= kSteps; ++i) {
    const double r = x_axis.lo + (x_axis.hi - x_axis.lo) * i / kSteps, rate = ceiling.fma_mpix(r);
    if (rate <= y_axis.hi && rate >= y_axis.lo)
      fma.push_back({x_axis.map(r, plot.left, plot.right), y_axis.map(rate, plot.bottom, plot.top)});
  }
  if (fma.size() > 1) canvas.polyline(fma, ink, 2, kFmaDash);
}

// A point's noise as a bar: the MPix/s its kernel time's spread allows, rate / (1 + noise) up to
// rate / (1 - noise), with short caps; none where the noise is unknown (one sample) or too small to see.
void draw_noise_bar(Canvas& canvas, const Axis& y_axis, const Box& plot, Point at, double rate, double noise, Rgb colour) {
  if (!(noise > 0)) return;
  const double low = y_axis.map(std::max(rate / (1 + noise), y_axis.lo), plot.bottom, plot.top);
  const double high = y_axis.map(std::min(rate / std::max(1 - noise, 0.05), y_axis.hi), plot.bottom, plot.top);
  if (low - high < 3) return;
  canvas.line({at.x, low}, {at.x, high}, colour, 1.2);
  for (const double y : {low, high}) canvas.line({at.x - 3, y}, {at.x + 3, y}, colour, 1.2);
}

// A strip over the panel: at each x, the colour of the fastest series there, its name over each run
// of x's it wins, so the reader sees where each memory space wins (seed 004's figure asks it).
void draw_winners(Canvas& canvas, const Box& plot, const Axis& x_axis, const std::vector<Win>& wins, double top) {
  canvas.text({plot.left - 8, top + 12}, "fastest", kTickSize, kInk, Align::Right);
  std::vector<double> edges;  // cell i spans edges[i]..edges[i+1]: halfway to each neighbour
  for (std::size_t i = 0; i < wins.size(); ++i) {
    const double x = x_axis.map(wins[i].x, plot.left, plot.right);
    const double previous = i > 0 ? x_axis.map(wins[i - 1].x, plot.left, plot.right) : x - 8;
    edges.push_back(i > 0 ? (x + previous) / 2 : std::max(plot.left, x - 8));
  }
  if (!wins.empty()) edges.push_back(std::min(plot.right, x_axis.map(wins.back().x, plot.left, plot.right) + 8));
  for (std::size_t begin = 0; begin < wins.size();) {
    std::size_t end = begin;
    while (end < wins.size() && wins[end].series == wins[begin].series) ++end;
    const Series& s = *wins[begin].series;
    canvas.fill_rect(edges[begin], top + 16, edges[end] - edges[begin], 8, s.colour);
    if (text_width(s.label, 12) + 4 < edges[end] - edges[begin])
      canvas.text({(edges[begin] + edges[end]) / 2, top + 6}, s.label, 12, kInk, Align::Centre);
    begin = end;
  }
}

void draw_rate_lines(Canvas& canvas, const Box& plot, const Selection& selection, const std::vector<Series>& series,
                     const std::vector<Ceiling>& ceilings) {
  double x_lo = INFINITY, x_hi = -INFINITY, y_lo = INFINITY, y_hi = -INFINITY;
  for (const Series& s : series)
    for (const auto& [x, y] : s.points)
      x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x), y_lo = std::min(y_lo, y), y_hi = std::max(y_hi, y);
  for (const Ceiling& ceiling : ceilings)  // DRAM's, and FMA's where it is lowest (the largest radius), inside the panel
    y_hi = std::max(y_hi, ceiling.dram_mpix()), y_lo = std::min(y_lo, ceiling.fma_mpix(x_hi));
  const Axis y_axis = log_axis(y_lo, y_hi);
  const bool by_size = selection.x == XAxis::Size;
  const Axis x_axis = by_size ? log_axis(x_lo, x_hi) : radius_axis(x_lo, x_hi);
  draw_y_axis(canvas, plot, y_axis, "MPix/s (log scale), higher is better");
  draw_x_axis(canvas, plot, x_axis, by_size ? "image size, megapixels (log scale)" : "filter radius, max(rx, ry)",
              true);
  canvas.stroke_rect(plot.left, plot.top, plot.right - plot.left, plot.bottom - plot.top, kAxis, 1);
  for (std::size_t i = 0; i < ceilings.size(); ++i) draw_ceiling(canvas, plot, x_axis, y_axis, ceilings[i], ceiling_ink(i));
  for (const Series& s : series) {
    std::vector<Point> line;
    for (const auto& [x, y] : s.points)
      line.push_back({x_axis.map(x, plot.left, plot.right), y_axis.map(y, plot.bottom, plot.top)});
    canvas.polyline(line, s.colour, 2.5, s.api->dash);
    std::size_t i = 0;
    for (const auto& [x, y] : s.points) {
      const auto noise = s.noise.find(x);
      if (noise != s.noise.end()) draw_noise_bar(canvas, y_axis, plot, line[i], y, noise->second, s.colour);
      ++i;
    }
    for (const Point& p : line) canvas.marker(p, 4, s.api->marker, s.colour);
  }
  draw_winners(canvas, plot, x_axis, fastest_at_each_x(series), plot.top - 33);
}

// With one x there are no lines to draw: one horizontal bar per series instead, fastest on top.
void draw_rate_bars(Canvas& canvas, const Box& panel, const std::vector<Series>& series) {
  double label_width = 0, fastest = 0;
  for (const Series& s : series)
    label_width = std::max(label_width, text_width(s.label, kTickSize)),
    fastest = std::max(fastest, s.points.begin()->second);
  const Box plot{panel.left + label_width + 12, panel.top, panel.right - 90, panel.bottom};
  const Axis axis = linear_axis(0, fastest);
  draw_x_axis(canvas, plot, axis, "MPix/s, higher is better", true);
  const double pitch = std::min(44.0, (plot.bottom - plot.top) / std::max<std::size_t>(series.size(), 1));
  for (std::size_t i = 0; i < series.size(); ++i) {
    const Series& s = series[i];
    const double y = plot.top + pitch * (i + 0.5), rate = s.points.begin()->second;
    const double end = axis.map(rate, plot.left, plot.right);
    canvas.text({plot.left - 8, y}, s.label, kTickSize, kInk, Align::Right);
    canvas.fill_rect(plot.left, y - pitch * 0.35, end - plot.left, pitch * 0.7, s.colour);
    canvas.text({end + 6, y}, short_number(rate), kTickSize, kInk);
  }
  canvas.line({plot.left, plot.top}, {plot.left, plot.bottom}, kAxis, 1);
}

// ---- bottom panel: phases ------------------------------------------------------------------------------
void draw_phase_bars(Canvas& canvas, const Box& panel, const std::vector<Bar>& bars, double pitch) {
  double label_width = 0;
  std::vector<double> totals;
  for (const Bar& bar : bars)
    label_width = std::max(label_width, text_width(bar.label, kTickSize)), totals.push_back(bar.total);
  // One slow bar (the CPU) would flatten the rest: the scale ends at the largest total within 5x the
  // median, and longer bars are cut with a break mark; their labels still give the whole total.
  std::ranges::sort(totals);
  const double median = totals[totals.size() / 2];
  double scale_end = 0;
  for (double t : totals)
    if (t <= 5 * median) scale_end = std::max(scale_end, t);
  const Box plot{panel.left + label_width + 12, panel.top, panel.right - 100, panel.bottom};
  const Axis axis = linear_axis(0, scale_end > 0 ? scale_end : 1);
  draw_x_axis(canvas, plot, axis, "milliseconds (setup, upload, one kernel launch, download)", true);

  double y = plot.top;
  for (const Bar& bar : bars) {
    y += bar.new_group ? pitch * 1.3 : pitch;
    const double middle = y - pitch / 2, thickness = pitch * 0.72;
    canvas.text({plot.left - 8, middle}, bar.label, kTickSize, kInk, Align::Right);
    double start = 0;
    for (const Phase& phase : kPhases) {
      const double ms = phase.ms(*bar.run);
      if (!std::isfinite(ms) || ms <= 0) continue;
      const double x0 = axis.map(std::min(start, axis.hi), plot.left, plot.right);
      const double x1 = axis.map(std::min(start + ms, axis.hi), plot.left, plot.right);
      canvas.fill_rect(x0, middle - thickness / 2, x1 - x0, thickness, phase.colour);
      if (const std::string value = ms_label(ms); x1 - x0 > text_width(value, 12) + 8)
        canvas.text({(x0 + x1) / 2, middle}, value, 12, kWhite, Align::Centre);
      start += ms;
    }
    double end = axis.map(std::min(bar.total, axis.hi), plot.left, plot.right);
    if (bar.total > axis.hi) {
      for (double offset : {-14.0, -8.0})
        canvas.line({end + offset - 3, middle + thickness / 2 + 2}, {end + offset + 3, middle - thickness / 2 - 2},
                    kWhite, 2.5);
      end += 2;
    }
    canvas.text({end + 6, middle}, ms_label(bar.total) + " ms", kTickSize, kInk);
  }
  canvas.line({plot.left, plot.top}, {plot.left, plot.bottom}, kAxis, 1);
}

void draw_phase_legend(Canvas& canvas, double right, double y) {
  double x = right;
  for (auto phase = std::rbegin(kPhases); phase != std::rend(kPhases); ++phase) {
    x -= text_width(phase->name, kTickSize) + 34;
    canvas.fill_rect(x, y - 7, 14, 14, phase->colour);
    canvas.text({x + 20, y}, phase->name, kTickSize, kInk);
  }
}

// ---- the picture -----------------------------------------------------------------------------------------

constexpr double kRateBottom = 500, kBottomMargin = 75;
constexpr double kRateBarPitch = 44;

// Where the rate panel ends: a line chart's 500, or under a single point's bars, one per series (a fixed
// 440-pixel panel would hold two bars in its top third and stay two-thirds empty).
double rate_bottom(const Selection& selection, const std::vector<Series>& series) {
  if (selection.x != XAxis::None || series.empty()) return kRateBottom;
  return std::min(kRateBottom, 60 + kRateBarPitch * static_cast<double>(series.size()));
}
// The phase panel's bars start this far under the rate panel (its axis labels, a rule, the title).
constexpr double kPhaseBelowRates = 112;

// Bars spread over the room a 900-pixel picture leaves, between 24 and 40 px apart; more bars than fit
// make the picture taller.
double phase_pitch(const std::vector<Bar>& bars) {
  double units = 0;
  for (const Bar& bar : bars) units += bar.new_group ? 1.3 : 1;
  return std::clamp((kMinHeight - kBottomMargin - kRateBottom - kPhaseBelowRates) / std::max(units, 1.0), 24.0, 40.0);
}

double bars_height(const std::vector<Bar>& bars) {
  double height = 0;
  for (const Bar& bar : bars) height += (bar.new_group ? 1.3 : 1) * phase_pitch(bars);
  return height;
}

// `text` cut with "..." to `width` pixels at `size`.
std::string fitted(std::string text, double size, double width) {
  if (text_width(text, size) <= width) return text;
  while (!text.empty() && text_width(text + "...", size) > width) text.pop_back();
  return text + "...";
}

void draw_plot(Canvas& canvas, const Selection& selection, const std::vector<Series>& series,
               const std::vector<Ceiling>& ceilings, const std::vector<Api>& apis, const std::vector<Bar>& bars,
               const std::string& page) {
  // Which group of how many, and a marker a test can find in the SVG's text.
  if (!page.empty()) canvas.text({kWidth - 24.0, 24}, page, kTickSize, kMuted, Align::Right);
  if (selection.plotted.empty()) {
    canvas.text({kWidth / 2.0, 30}, "convcompare", kTitleSize, kInk, Align::Centre);
    canvas.text({kWidth / 2.0, canvas.height() / 2.0}, "no validated runs", 32, kMuted, Align::Centre);
    return;
  }
  canvas.text({24, 24}, selection.title, kTitleSize, kInk);
  if (series.empty()) {
    canvas.text({kWidth / 2.0, 280}, "no MPix/s measured", 24, kMuted, Align::Centre);
  } else if (selection.x == XAxis::None) {
    draw_rate_bars(canvas, {24, 60, kWidth - 24.0, rate_bottom(selection, series)}, series);
  } else {
    canvas.text({24, 46},
                !ceilings.empty() ? "colour: variant; line style and marker: API; median kernel time, bars: its noise; "
                                    "black and grey: each device's ceilings, the MPix/s they allow"
                                  : "colour: variant; line style and marker: API; median kernel time, bars: its noise",
                kTickSize, kMuted);
    const double legend = legend_width(series, ceilings);
    // The panel starts under the strip that names the fastest at each x (draw_winners).
    draw_rate_lines(canvas, {96, 100, kWidth - legend - 36, 500}, selection, series, ceilings);
    draw_legend(canvas, series, ceilings, kWidth - legend - 10, 66, 500);
    if (const std::string note = not_drawn_note(selection, apis); !note.empty())
      canvas.text({24, 556}, fitted("not drawn (skipped or failed; the report says why): " + note, 12, kWidth - 48.0),
                  12, kMuted);
  }

  const double rates_end = rate_bottom(selection, series), phase_top = rates_end + kPhaseBelowRates;
  canvas.line({24, rates_end + 65}, {kWidth - 24.0, rates_end + 65}, kGrid, 1);
  canvas.text({24, rates_end + 90}, selection.phase_title, kTitleSize - 2, kInk);
  draw_phase_legend(canvas, kWidth - 24.0, rates_end + 90);
  if (!bars.empty())
    draw_phase_bars(canvas, {24, phase_top, kWidth - 24.0, phase_top + bars_height(bars) + 6}, bars,
                    phase_pitch(bars));
}

}  // namespace

void check_plot_path(const std::string& path) {
  canvas_format(path);  // .png, .svg or .pdf, else InputError
  if (!canvas_available())
    throw InputError(fmt::format("--plot '{}' is unavailable: this convcompare was built without cairo "
                                 "(install libcairo2-dev, or run tools/install-deps.sh, and configure again)", path));
  const fs::path directory = fs::path(path).parent_path();
  std::error_code ignored;
  if (!directory.empty() && !fs::is_directory(directory, ignored))
    throw InputError(fmt::format("bad --plot '{}': directory '{}' does not exist", path, directory.string()));
}

void write_plot(const Report& report, const std::string& path, std::vector<std::string>* drawn_text) {
  check_plot_path(path);
  const std::vector<Selection> selections = select_groups(report);
  const std::vector<Api> apis = find_apis(report);
  std::vector<std::vector<Series>> series;
  std::vector<std::vector<Ceiling>> ceilings;
  std::vector<std::vector<Bar>> bars;
  std::vector<int> heights;
  for (const Selection& selection : selections) {
    series.push_back(build_series(selection, apis));
    ceilings.push_back(find_ceilings(report, selection, apis));
    bars.push_back(build_bars(selection, apis));
    // A page as tall as it needs: at least kMinHeight for a line chart, a single point's as its bars.
    const double rates_end = rate_bottom(selection, series.back());
    const int least = rates_end < kRateBottom ? 0 : kMinHeight;
    heights.push_back(
        std::max(least, static_cast<int>(rates_end + kPhaseBelowRates + bars_height(bars.back()) + kBottomMargin)));
  }
  // Every group: a page each in a PDF, one below the other in a PNG or SVG.
  Canvas canvas(canvas_format(path), kWidth, heights);
  for (std::size_t i = 0; i < selections.size(); ++i) {
    canvas.begin_page(i);
    if (i > 0) canvas.line({0, 0.5}, {static_cast<double>(kWidth), 0.5}, kAxis, 1);
    const std::string page = selections.size() > 1 ? fmt::format("group {} of {}", i + 1, selections.size()) : "";
    draw_plot(canvas, selections[i], series[i], ceilings[i], apis, bars[i], page);
  }
  canvas.save(path);
  if (drawn_text) *drawn_text = canvas.texts();
}

}  // namespace cc
