// plot_data.cpp: what a --plot page shows (plot_data.h): which runs each group plots, each API's name and line style, each variant's colour, the rate series and the phase bars.
#include "common/report/plot_data.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/domain/backend_names.h"
#include "common/domain/variants.h"

namespace cc::plot_data {

namespace {

int radius_of(const RunRecord& run) { return std::max(run.radius_x, run.radius_y); }
long long pixels_of(const RunRecord& run) { return static_cast<long long>(run.width) * run.height; }
double megapixels_of(const RunRecord& run) { return pixels_of(run) / 1e6; }
double kernel_ms_of(const RunRecord& run) {
  return run.times.kernel_ms.samples > 0 ? run.times.kernel_ms.median : kNotMeasured;
}

struct Group {
  std::string family, border;
  std::vector<const RunRecord*> runs;
};

// What one page plots of a group: x = radius at the largest size when the radius varies, else size.
Selection select_runs(const Group& group) {
  const Group* best = &group;
  auto distinct = [](const Group& g, auto key) {
    std::set<decltype(key(*g.runs.front()))> values;
    for (const RunRecord* run : g.runs) values.insert(key(*run));
    return values.size();
  };
  Selection selection;

  const RunRecord& largest =
      **std::ranges::max_element(best->runs, {}, [](const RunRecord* r) { return pixels_of(*r); });
  std::vector<const RunRecord*> at_largest;
  for (const RunRecord* run : best->runs)
    if (run->width == largest.width && run->height == largest.height) at_largest.push_back(run);
  const int smallest_radius =
      radius_of(**std::ranges::min_element(at_largest, {}, [](const RunRecord* r) { return radius_of(*r); }));
  for (const RunRecord* run : at_largest)
    if (radius_of(*run) == smallest_radius) selection.phased.push_back(run);

  const std::string image = fmt::format("{}x{}x{}", largest.width, largest.height, largest.channels);
  const std::string border = fmt::format("border {}{}", best->border, largest.flip ? ", flipped" : "");
  if (distinct(*best, radius_of) > 1) {
    selection.x = XAxis::Radius;
    selection.plotted = at_largest;
    selection.title =
        fmt::format("Kernel MPix/s against filter radius: {}, image {}, {}", best->family, image, border);
  } else {
    selection.x = distinct(*best, pixels_of) > 1 ? XAxis::Size : XAxis::None;
    selection.plotted = best->runs;
    selection.title = selection.x == XAxis::Size
                          ? fmt::format("Kernel MPix/s against image size: {} (radius {}), {}", largest.filter,
                                        smallest_radius, border)
                          : fmt::format("Kernel MPix/s: {} (radius {}), image {}, {}", largest.filter,
                                        smallest_radius, image, border);
  }
  selection.phase_title = fmt::format("Where the time goes, ms per image: {}, radius {}, {}x{}", best->family,
                                      smallest_radius, largest.width, largest.height);
  return selection;
}

// One selection per (filter minus r=, border) group of validated runs, in report order.

const Api& api_of(const std::vector<Api>& apis, const RunRecord& run) {
  return *std::ranges::find_if(apis,
                               [&](const Api& a) { return a.backend == run.backend && a.device == run.device; });
}

// Colour from the variant's line of the table (common/domain/variants.h), so "tiled" is the same green
// in every plot and every API, and a new variant moves no other's colour.
Rgb variant_colour(const std::string& variant) {
  const VariantTraits* traits = find_variant(variant);
  const std::uint32_t rgb = traits && traits->plot_colour != 0 ? traits->plot_colour : 0x5a5a5a;
  return {static_cast<std::uint8_t>(rgb >> 16), static_cast<std::uint8_t>(rgb >> 8), static_cast<std::uint8_t>(rgb)};
}

}  // namespace

std::vector<Selection> select_groups(const Report& report) {
  std::vector<Group> groups;
  for (const RunRecord& run : report.runs) {
    if (run.status != Status::Ok) continue;
    const std::string family = filter_family(run.filter);
    auto group =
        std::ranges::find_if(groups, [&](const Group& g) { return g.family == family && g.border == run.border; });
    if (group == groups.end()) group = groups.insert(groups.end(), Group{family, run.border, {}});
    group->runs.push_back(&run);
  }
  std::vector<Selection> selections;
  for (const Group& group : groups) selections.push_back(select_runs(group));
  for (const RunRecord& run : report.runs) {
    // A backend with no device here (device "-") ran nothing anywhere: the report says so once, and
    // its placeholders are no gap in any line.
    if (run.status == Status::Ok || run.device == "-") continue;
    const std::string family = filter_family(run.filter);
    const auto group =
        std::ranges::find_if(groups, [&](const Group& g) { return g.family == family && g.border == run.border; });
    if (group == groups.end()) continue;
    Selection& selection = selections[static_cast<std::size_t>(group - groups.begin())];
    const RunRecord& plotted = *selection.plotted.front();
    if (selection.x == XAxis::Radius && run.width == plotted.width && run.height == plotted.height)
      selection.not_ok.push_back(&run);
  }
  if (selections.empty()) selections.emplace_back();  // a page that says there is nothing to plot
  return selections;
}

// One entry per (backend, device) among the ok runs: CUDA first, then OpenCL, the rest, the CPU last.
// A backend with one device is named by the backend alone ("cuda"), else by the device ("opencl:1:0").
std::vector<Api> find_apis(const Report& report) {
  std::vector<Api> apis;
  for (const RunRecord& run : report.runs)
    if (run.status == Status::Ok && std::ranges::none_of(apis, [&](const Api& a) {
          return a.backend == run.backend && a.device == run.device;
        }))
      apis.push_back({run.backend, run.device, {}, Dash::Solid, MarkerShape::Circle});
  auto rank = [](const Api& a) {
    const BackendName* known = find_backend_name(a.backend);
    return known ? known->plot_rank : kUnlistedBackendPlotRank;
  };
  std::ranges::stable_sort(apis, {}, rank);
  constexpr Dash kDashes[] = {Dash::Solid, Dash::Dashed, Dash::Dotted, Dash::DashDot};
  constexpr MarkerShape kMarkers[] = {MarkerShape::Circle, MarkerShape::Square, MarkerShape::Triangle,
                                      MarkerShape::Diamond};
  for (std::size_t i = 0; i < apis.size(); ++i) {
    Api& api = apis[i];
    const bool shared = std::ranges::count(apis, api.backend, &Api::backend) > 1;
    // A merged report's ids carry their machine ("nvidia/cuda:0", tools/convcompare/merge.cpp): the label keeps it,
    // so that two machines' series of one device id stay apart.
    const std::size_t slash = api.device.find('/');
    const std::string machine = slash == std::string::npos ? "" : api.device.substr(0, slash + 1);
    const std::string local = api.device.substr(machine.size());
    api.label = !shared                          ? machine + api.backend
                : local.starts_with(api.backend) ? api.device
                                                 : api.backend + " " + api.device;
    api.dash = kDashes[i % 4];
    api.marker = kMarkers[i % 4];
  }
  return apis;
}
std::vector<Series> build_series(const Selection& selection, const std::vector<Api>& apis) {
  std::vector<Series> all;
  for (const RunRecord* run : selection.plotted) {
    if (!(run->mpix_per_s > 0)) continue;  // nothing a log axis can show
    const Api& api = api_of(apis, *run);
    const std::string label = fmt::format("{} {}", api.label, run->variant);
    auto series = std::ranges::find(all, label, &Series::label);
    if (series == all.end()) series = all.insert(all.end(), Series{label, variant_colour(run->variant), &api, {}, {}});
    const double x = selection.x == XAxis::Size ? megapixels_of(*run) : radius_of(*run);
    // Pinned and pageable share a kernel: the first counts.
    if (series->points.emplace(x, run->mpix_per_s).second && std::isfinite(run->times.kernel_ms.noise_percent))
      series->noise.emplace(x, run->times.kernel_ms.noise_percent / 100);
  }
  // Fastest first, judged where the lines end, so the legend reads top to bottom like the lines' right ends.
  std::ranges::stable_sort(all, std::greater{}, [](const Series& s) { return s.points.rbegin()->second; });
  return all;
}

std::vector<Ceiling> find_ceilings(const Report& report, const Selection& selection, const std::vector<Api>& apis) {
  std::vector<Ceiling> ceilings;
  if (selection.x != XAxis::Radius) return ceilings;
  for (const Api& api : apis) {
    const auto device = std::ranges::find_if(report.devices, [&](const DeviceInfo& d) {
      return d.backend == api.backend && d.id == api.device;
    });
    if (device == report.devices.end() || !device->peaks.untimed.empty() || !(device->peaks.copy_gb_per_s > 0) ||
        !(device->peaks.fma_gflop_per_s > 0))
      continue;
    Ceiling ceiling{api.label, api.device, device->peaks.copy_gb_per_s, device->peaks.fma_gflop_per_s, 0, 0};
    for (const RunRecord* run : selection.plotted) {
      if (run->backend != api.backend || run->device != api.device) continue;
      if (!(run->mpix_per_s > 0) || !(run->gb_per_s > 0) || !(run->gflop_per_s > 0)) continue;
      // The run's own rates give its bytes and computed channels per pixel exactly: derive_rates made
      // all three from one footprint and one time (common/report/record.cpp).
      const double taps = static_cast<double>(2 * run->radius_x + 1) * (2 * run->radius_y + 1);
      const double bytes = run->gb_per_s * 1e3 / run->mpix_per_s;
      const double channels = run->gflop_per_s * 1e3 / (2 * taps * run->mpix_per_s);
      ceiling.bytes_per_pixel = ceiling.bytes_per_pixel > 0 ? std::min(ceiling.bytes_per_pixel, bytes) : bytes;
      ceiling.channels = ceiling.channels > 0 ? std::min(ceiling.channels, channels) : channels;
    }
    if (ceiling.bytes_per_pixel > 0 && ceiling.channels > 0) ceilings.push_back(ceiling);
  }
  return ceilings;
}

std::vector<Win> fastest_at_each_x(const std::vector<Series>& series) {
  std::map<double, Win> best;
  for (const Series& s : series)
    for (const auto& [x, rate] : s.points)
      if (auto [at, added] = best.try_emplace(x, Win{x, &s}); !added && rate > at->second.series->points.at(x))
        at->second.series = &s;
  std::vector<Win> wins;
  for (const auto& [x, win] : best) wins.push_back(win);
  return wins;
}

std::string not_drawn_note(const Selection& selection, const std::vector<Api>& apis) {
  auto label_of = [&](const RunRecord& run) {
    const auto api =
        std::ranges::find_if(apis, [&](const Api& a) { return a.backend == run.backend && a.device == run.device; });
    return fmt::format("{} {}", api == apis.end() ? run.device : api->label, run.variant);
  };
  std::vector<std::pair<std::string, std::set<int>>> missing;  // in report order
  for (const RunRecord* run : selection.not_ok) {
    const std::string label = label_of(*run);
    auto entry = std::ranges::find(missing, label, &std::pair<std::string, std::set<int>>::first);
    if (entry == missing.end()) entry = missing.insert(missing.end(), {label, {}});
    entry->second.insert(radius_of(*run));
  }
  std::vector<std::string> parts;
  for (const auto& [label, radii] : missing) {
    // The label by reference, not the binding: clang before 16 (the fuzz build's) cannot capture a
    // structured binding in a lambda.
    const std::string& wanted = label;
    const bool has_line = std::ranges::any_of(selection.plotted, [&](const RunRecord* r) {
      return label_of(*r) == wanted && r->mpix_per_s > 0;
    });
    if (!has_line) {
      parts.push_back(label);
      continue;
    }
    std::vector<std::string> ranges;  // consecutive radii as "a..b"
    for (auto at = radii.begin(); at != radii.end();) {
      const int first = *at;
      int last = first;
      while (++at != radii.end() && *at == last + 1) ++last;
      ranges.push_back(last == first ? fmt::format("{}", first) : fmt::format("{}..{}", first, last));
    }
    parts.push_back(fmt::format("{} at r = {}", label, fmt::join(ranges, ", ")));
  }
  return fmt::format("{}", fmt::join(parts, "; "));
}

constexpr Phase kPhases[4] = {
    {"setup", {170, 170, 170}, [](const RunRecord& r) { return r.times.setup_ms; }},
    {"H2D", {0, 114, 178}, [](const RunRecord& r) { return r.times.h2d_ms; }},
    {"kernel (median)", {213, 94, 0}, kernel_ms_of},
    {"D2H", {86, 180, 233}, [](const RunRecord& r) { return r.times.d2h_ms; }},
};

std::vector<Bar> build_bars(const Selection& selection, const std::vector<Api>& apis) {
  std::vector<Bar> bars;
  for (const Api& api : apis) {
    std::vector<std::string> memories;  // pinned before pageable, then anything else in report order
    for (const RunRecord* run : selection.phased)
      if (run->backend == api.backend && run->device == api.device &&
          std::ranges::find(memories, run->memory) == memories.end())
        memories.push_back(run->memory);
    std::ranges::stable_sort(memories, {}, [](const std::string& m) {
      return m == "pinned" ? 0 : m == "pageable" ? 1 : 2;
    });
    // A bar per variant, every one of them, in report order.
    for (const std::string& memory : memories) {
      bool first_of_memory = true;
      for (const RunRecord* run : selection.phased) {
        if (run->backend != api.backend || run->device != api.device || run->memory != memory) continue;
        Bar bar{fmt::format("{} {}{}{}", api.label, run->variant, memory.empty() ? "" : " ", memory), run};
        for (const Phase& phase : kPhases)
          if (const double ms = phase.ms(*run); std::isfinite(ms) && ms > 0) bar.total += ms;
        bar.new_group = &api != &apis.front() && memory == memories.front() && first_of_memory;
        first_of_memory = false;
        bars.push_back(bar);
      }
    }
  }
  return bars;
}

}  // namespace cc::plot_data
