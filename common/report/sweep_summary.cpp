// sweep_summary.cpp: a sweep's series (what it holds fixed, the points that vary) and its summary tables, a row per point and a column per variant (tables.h).
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/report/tables.h"

namespace cc::report_tables {

namespace {

std::string radius_text(const RunRecord& r) {
  return r.radius_x == r.radius_y ? fmt::format("r={}", r.radius_x) : fmt::format("r={}x{}", r.radius_x, r.radius_y);
}

std::string point_of(const SweepSeries& series, const RunRecord& r) {
  if (series.radii && series.sizes) return fmt::format("{} {}x{}", radius_text(r), r.width, r.height);
  return series.sizes ? fmt::format("{}x{}", r.width, r.height) : radius_text(r);
}

}  // namespace

// The series of a sweep; empty when no series has two points (no sweep: the per-problem tables say all).
std::vector<SweepSeries> sweep_series(const std::vector<RunRecord>& runs) {
  std::vector<SweepSeries> series;
  for (const RunRecord& r : runs) {
    const std::string title = fmt::format("{}  {} channel{}  border {}{}{}", filter_family(r.filter), r.channels,
                                          r.channels == 1 ? "" : "s", r.border, r.flip ? "  flipped" : "", pixel_note(r.pixel));
    auto it = std::ranges::find(series, title, &SweepSeries::title);
    if (it == series.end()) it = series.insert(series.end(), SweepSeries{title, {}, {}});
    it->records.push_back(&r);
  }
  bool any = false;
  for (SweepSeries& s : series) {
    for (const RunRecord* r : s.records) {
      s.radii |= r->radius_x != s.records.front()->radius_x || r->radius_y != s.records.front()->radius_y;
      s.sizes |= r->width != s.records.front()->width || r->height != s.records.front()->height;
    }
    // A sweep is two points on one device: runs of one size from two machines (a merge of two plain
    // reports) are not one, and get no sweep summary.
    std::vector<std::pair<std::string, std::string>> device_points;
    for (const RunRecord* r : s.records) {
      const std::string point = point_of(s, *r);
      if (std::ranges::find(s.points, point) == s.points.end()) s.points.push_back(point);
      if (std::ranges::find(device_points, std::pair{r->device, point}) == device_points.end())
        device_points.emplace_back(r->device, point);
    }
    for (const auto& [device, point] : device_points)
      any |= std::ranges::count(device_points, device, &std::pair<std::string, std::string>::first) > 1;
  }
  return any ? series : std::vector<SweepSeries>{};
}

// One table per API and device (and host memory, when both ran) of a series: a row per point, a
// column per variant, kernel MPix/s in the cells ("skip", "FAIL", "untimed" otherwise). Split into
// several tables of fewer variants where one would be wider than kLineWidth.
std::vector<std::pair<std::string, Table>> summary_tables(const SweepSeries& series) {
  std::vector<std::string> devices, variants;
  const bool mixed_memory = mixed_memories(series.records);
  for (const RunRecord* r : series.records) {
    const std::string device = mixed_memory ? fmt::format("{} {}", r->device, r->memory) : r->device;
    if (std::ranges::find(devices, device) == devices.end()) devices.push_back(device);
    if (std::ranges::find(variants, r->variant) == variants.end()) variants.push_back(r->variant);
  }
  std::size_t point_width = 5;
  for (const std::string& point : series.points) point_width = std::max(point_width, point.size());

  std::vector<std::pair<std::string, Table>> tables;
  for (const std::string& device : devices) {
    const auto on_device = [&](const RunRecord* r) {
      return (mixed_memory ? fmt::format("{} {}", r->device, r->memory) : r->device) == device;
    };
    std::vector<std::string> here;  // the variants this device ran or skipped
    for (const std::string& variant : variants)
      if (std::ranges::any_of(series.records, [&](const RunRecord* r) { return on_device(r) && r->variant == variant; }))
        here.push_back(variant);
    for (std::size_t first = 0; first < here.size();) {
      std::size_t width = point_width, last = first;
      while (last < here.size() && (last == first || width + 1 + std::max<std::size_t>(here[last].size(), 7) <= kLineWidth))
        width += 1 + std::max<std::size_t>(here[last++].size(), 7);
      Table t;
      t.reason_column = false;
      t.shortened_column = 0;
      t.add_column(series.radii && !series.sizes ? "radius" : "point", false);
      for (std::size_t v = first; v < last; ++v) t.add_column(here[v], true);
      for (const std::string& point : series.points) {
        std::vector<std::string> row = {point};
        for (std::size_t v = first; v < last; ++v) {
          const auto run = std::ranges::find_if(series.records, [&](const RunRecord* r) {
            return on_device(r) && r->variant == here[v] && point_of(series, *r) == point;
          });
          std::string cell = "-";
          if (run != series.records.end()) {
            const RunRecord& r = **run;
            cell = r.status == Status::Failed    ? "FAIL"
                   : r.status == Status::Skipped ? "skip"
                   : !r.times.untimed.empty()    ? "untimed"
                                                 : short_number(r.mpix_per_s);
          }
          row.push_back(std::move(cell));
        }
        t.add_row(std::move(row));
      }
      tables.emplace_back(device, std::move(t));
      first = last;
    }
  }
  return tables;
}

}  // namespace cc::report_tables
