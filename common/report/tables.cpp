// tables.cpp: the report's table engine: cell formats and the console's and markdown's tables of each problem, built from the records (tables.h); the lines below them are table_lines.cpp's.
#include "common/report/tables.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace cc {

std::string format_table_number(double value) { return report_tables::short_number(value); }

namespace report_tables {

namespace {

// A run that never reached a device: its backend is not built or found no device. The console and
// markdown say so once per backend instead of once per run; JSON and CSV keep every row.
bool unavailable(const RunRecord& r) { return r.status == Status::Skipped && r.device == "-"; }

// Errors and tolerances: three significant digits, no padding zeros (1.5e-05, 0.0003).
std::string short_error(double v) { return std::isfinite(v) ? fmt::format("{:.3g}", v) : short_number(v); }

// "63% dram": the run's rate against the device ceiling that bounds its radius (derive_bound).
std::string bound_text(const RunRecord& r) {
  return r.bound.empty() || !std::isfinite(r.bound_percent) ? "-" : short_percent(r.bound_percent) + " " + r.bound;
}

// The value of a device property, "" when its backend does not report it.
std::string property(const DeviceInfo& device, std::string_view name) {
  for (const auto& [key, value] : device.properties)
    if (key == name) return value;
  return "";
}

}  // namespace

// Columns a terminal shows for `text`: UTF-8 continuation bytes take none ("auto→fast" is 9).
std::size_t display_width(std::string_view text) {
  return static_cast<std::size_t>(std::ranges::count_if(text, [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string wrap_words(std::string_view text, std::size_t width, std::size_t indent, std::size_t first_column) {
  std::string out;
  std::size_t column = first_column;
  bool line_start = true;
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    const std::string_view word = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view{} : text.substr(space + 1);
    if (word.empty()) continue;
    if (!line_start && column + 1 + display_width(word) > width) {
      out += '\n' + std::string(indent, ' ');
      column = indent;
      line_start = true;
    }
    if (!line_start) {
      out += ' ';
      ++column;
    }
    out += word;
    column += display_width(word);
    line_start = false;
  }
  return out;
}

std::string pad(const std::string& text, std::size_t width, bool right) {
  const std::string fill(width - std::min(width, display_width(text)), ' ');
  return right ? fill + text : text + fill;
}

// "auto→fast": an auto run names the variant it ran (auto_pick, record.h).
std::string variant_label(const RunRecord& r) {
  const std::string picked = auto_pick(r);
  return picked.empty() ? r.variant : r.variant + "\u2192" + picked;
}

// Numbers to about four significant digits, so columns stay narrow; "-" for not measured.
std::string short_number(double v) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0) return "0";
  const double magnitude = std::fabs(v);
  if (magnitude >= 1000) return fmt::format("{:.0f}", v);
  if (magnitude >= 1) return fmt::format("{:.{}f}", v, 3 - static_cast<int>(std::floor(std::log10(magnitude))));
  return fmt::format("{:#.3g}", v);  // "#" keeps trailing zeros: 0.170, not 0.17
}

// Percentages: whole numbers, a decimal below 10 so a small share does not print as 0.
std::string short_percent(double v) {
  return std::isfinite(v) ? fmt::format("{:.{}f}%", v, std::fabs(v) < 10 ? 1 : 0) : "-";
}

std::string shorten(const std::string& text, std::size_t limit) {
  return text.size() <= limit ? text : text.substr(0, limit - 2) + "..";
}

// f32 runs say nothing of their pixel type (the default); u8 runs get tables of their own.
std::string pixel_note(const std::string& pixel) { return pixel == "u8" ? "  u8 pixels" : ""; }

// Every table says whether its kernel times are cache-warm or cold (--cold: L2 flushed before each sample).
std::string heading(const RunRecord& r) {
  return fmt::format("{}  {}x{}x{}  r={}x{}  border {}{}{}  L2 {}", r.filter, r.width, r.height, r.channels, r.radius_x,
                     r.radius_y, r.border, r.flip ? "  flipped (true convolution)" : "", pixel_note(r.pixel),
                     r.times.cold ? "cold" : "warm");
}

std::string heading(const StreamRecord& s) {
  return fmt::format("streams: {}  {}x{}x{}  {} host memory{}", s.filter, s.width, s.height, s.channels, s.memory,
                     pixel_note(s.pixel));
}

// The device block: what each device is and the ceilings measured on it (the copy and FMA kernels),
// "-" for a device that ran nothing. Compute units under each API's own name.
Table make_device_table(const std::vector<DeviceInfo>& devices, Detail detail) {
  Table t;
  t.column_1_width = detail == Detail::Full ? kDeviceNameWidth : kCompactNameWidth;
  t.reason_column = false;
  for (const char* name : {"device", "name"}) t.add_column(name, false);
  for (const char* name : {"units", "memory", "copy GB/s", "FMA GFLOP/s"}) t.add_column(name, true);
  for (const DeviceInfo& d : devices) {
    std::string units = "-";
    for (const auto& [name, unit] : {std::pair{"multiprocessors", "SMs"}, {"compute units", "CUs"}, {"threads", "threads"}})
      if (const std::string count = property(d, name); !count.empty()) {
        units = count + " " + unit;
        break;
      }
    const std::string memory = property(d, "global memory");
    t.add_row({d.id, d.name, units, memory.empty() ? "-" : memory, short_number(d.peaks.copy_gb_per_s),
               short_number(d.peaks.fma_gflop_per_s)},
              d.peaks.untimed.empty() ? "" : "peaks untimed: " + d.peaks.untimed);
  }
  return t;
}

// Whether runs used both pinned and pageable host memory (the CPU's none does not count).
bool mixed_memories(const std::vector<const RunRecord*>& records) {
  std::string seen;
  for (const RunRecord* r : records)
    if (!r->memory.empty()) {
      if (!seen.empty() && r->memory != seen) return true;
      seen = r->memory;
    }
  return false;
}

// The kernel table of one group. The memory column appears only when a group holds both pinned and
// pageable runs, the one case where rows would otherwise look alike. `stop_column`: the rule that
// stopped each run's samples (markdown; the console keeps to its width).
Table make_table(const Group& group, Detail detail, bool stop_column) {
  const bool mixed_memory = mixed_memories(group.records);
  const bool full = detail == Detail::Full;

  Table t;
  if (full) t.add_column("backend", false);
  t.shortened_column = full ? 1 : 0;
  t.line_width = full ? kVerboseLineWidth : kLineWidth;
  for (const char* name : {"device", "variant"}) t.add_column(name, false);
  if (mixed_memory) t.add_column("memory", false);
  t.add_column("status", false);
  // Times in ms (the group heading says so), to keep the headers as narrow as the numbers. Beside the
  // median: its noise (stats.h, robust_noise_percent), the samples and the rule that stopped them.
  // GFLOP/s, device memory and the tolerance are the full view's: "% bound" and "max err" carry the verdicts.
  for (const char* name : {"kernel", "noise", "n"}) t.add_column(name, true);
  if (stop_column) t.add_column("stop", false);
  for (const char* name : {"MPix/s", "GB/s"}) t.add_column(name, true);
  if (full) t.add_column("GFLOP/s", true);
  t.add_column("% bound", true);
  t.add_column("% direct", true);
  if (full) t.add_column("dev MB", true);
  t.add_column("max err", true);
  if (full) t.add_column("tol", true);

  for (const RunRecord* r : group.records) {
    const Stats& k = r->times.kernel_ms;
    std::vector<std::string> row;
    if (full) row.push_back(r->backend);
    row.push_back(r->device);
    row.push_back(variant_label(*r));
    if (mixed_memory) row.push_back(r->memory);
    row.push_back(std::string(to_string(r->status)));
    const bool untimed = !r->times.untimed.empty();
    row.push_back(untimed ? "untimed" : short_number(k.samples > 0 ? k.median : kNotMeasured));
    row.push_back(k.samples > 0 ? short_percent(k.noise_percent) : "-");
    row.push_back(k.samples > 0 ? std::to_string(k.samples) : "-");
    if (stop_column) row.push_back(r->times.stopped_by.empty() ? "-" : r->times.stopped_by);
    for (double v : {r->mpix_per_s, r->gb_per_s}) row.push_back(short_number(v));
    if (full) row.push_back(short_number(r->gflop_per_s));
    row.push_back(bound_text(*r));
    row.push_back(short_percent(r->direct_bound_percent));
    if (full) row.push_back(short_number(r->device_mb));
    row.push_back(short_error(r->max_abs_error));
    if (full) row.push_back(r->exact ? "exact" : short_error(r->tolerance));
    t.add_row(std::move(row), r->reason);
  }
  // Why runs are untimed (fake profiling timestamps, as Rusticl's): once per reason, naming its runs,
  // instead of the same line cut short under every row.
  std::vector<std::pair<std::string, std::vector<std::string>>> untimed;  // reason, its runs
  for (const RunRecord* r : group.records) {
    if (r->times.untimed.empty() || !r->reason.empty()) continue;
    auto it = std::ranges::find(untimed, r->times.untimed, &std::pair<std::string, std::vector<std::string>>::first);
    if (it == untimed.end()) it = untimed.insert(untimed.end(), std::pair{r->times.untimed, std::vector<std::string>{}});
    it->second.push_back(shorten(r->device, kDeviceWidth) + " " + variant_label(*r));
  }
  for (const auto& [reason, names] : untimed)
    t.notes.push_back(fmt::format("untimed ({}): {}", fmt::join(names, ", "), reason));
  // What a mapped or managed run's kernel time holds (README.md, --memory), once per device and mode: not a
  // device-resident kernel time to read beside a copy's.
  std::vector<std::string> memory_notes;
  for (const RunRecord* r : group.records)
    if (!r->memory_note.empty()) {
      const std::string note = fmt::format("{}: {}", shorten(r->device, kDeviceWidth), r->memory_note);
      if (std::ranges::find(memory_notes, note) == memory_notes.end()) memory_notes.push_back(note);
    }
  t.notes.insert(t.notes.end(), memory_notes.begin(), memory_notes.end());
  return t;
}

// Setup and the transfers, for the runs that measured any (the CPU has none): what an application
// pays around the kernel, and the reuse case, a second filter on an image already on the device.
Table make_transfer_table(const Group& group, Detail detail) {
  const bool full = detail == Detail::Full;
  Table t;
  t.reason_column = false;
  t.shortened_column = full ? 1 : 0;
  if (full) t.add_column("backend", false);
  for (const char* name : {"device", "variant", "memory"}) t.add_column(name, false);
  for (const char* name : {"setup", "build", "h2d", "d2h", "host-to-host", "reuse"}) t.add_column(name, true);
  for (const RunRecord* r : group.records) {
    const PhaseTimes& p = r->times;
    const double transfers[] = {p.h2d_ms, p.d2h_ms, p.host_to_host_ms, p.reuse_ms};
    if (std::all_of(std::begin(transfers), std::end(transfers), [](double v) { return std::isnan(v); })) continue;
    std::vector<std::string> row;
    if (full) row.push_back(r->backend);
    for (const std::string& cell : {r->device, variant_label(*r), r->memory.empty() ? "-" : r->memory}) row.push_back(cell);
    for (double v : {p.setup_ms, p.build_ms, p.h2d_ms, p.d2h_ms, p.host_to_host_ms, p.reuse_ms})
      row.push_back(short_number(v));
    t.add_row(std::move(row));
  }
  return t;
}

// One row per --stream run: the overlapped rate against the same frame without overlap and against
// the PCIe floor (the slower of one frame's upload and download at the measured copy rates).
Table make_stream_table(const Grouped<StreamRecord>& group, Detail detail) {
  const bool full = detail == Detail::Full;
  Table t;
  t.shortened_column = full ? 1 : 0;
  t.line_width = full ? kVerboseLineWidth : kLineWidth;
  if (full) t.add_column("backend", false);
  for (const char* name : {"device", "variant", "status"}) t.add_column(name, false);
  t.add_column("frames", true);
  if (full) t.add_column("queues", true);
  for (const char* name : {"fps", "ms/frame", "serial", "floor", "% floor"}) t.add_column(name, true);
  if (full) t.add_column("max err", true);
  for (const StreamRecord* s : group.records) {
    const bool ran = s->status != Status::Skipped;
    const double ms_per_frame = s->frames > 0 ? s->total_ms / s->frames : kNotMeasured;
    std::vector<std::string> row;
    if (full) row.push_back(s->backend);
    for (const std::string& cell : {s->device, s->variant, std::string(to_string(s->status))}) row.push_back(cell);
    row.push_back(ran ? std::to_string(s->frames) : "-");
    if (full) row.push_back(ran ? std::to_string(s->queues) : "-");
    for (const std::string& cell : {short_number(s->frames_per_s), short_number(ms_per_frame), short_number(s->serial_ms_per_frame),
                                    short_number(s->pcie_floor_ms_per_frame), short_percent(100 * s->floor_fraction)})
      row.push_back(cell);
    if (full) row.push_back(short_error(s->max_abs_error));
    t.add_row(std::move(row), s->reason);
  }
  // Frames dealt over several devices: how many each took (docs/multi-device.md).
  for (const StreamRecord* s : group.records)
    if (!s->frames_per_device.empty())
      t.notes.push_back(fmt::format("{} {}: frames per device {}", shorten(s->device, kDeviceWidth), s->variant,
                                    s->frames_per_device));
  // A mapped run has no transfer to set a floor by: its note says what its frame time holds.
  for (const StreamRecord* s : group.records)
    if (!s->memory_note.empty()) {
      const std::string note = fmt::format("{}: {}", shorten(s->device, kDeviceWidth), s->memory_note);
      if (std::ranges::find(t.notes, note) == t.notes.end()) t.notes.push_back(note);
    }
  return t;
}

// "cuda: not run: no CUDA driver installed", once per backend, in report order.
std::vector<std::string> unavailable_lines(const Report& report) {
  std::vector<std::string> backends, lines;
  for (const RunRecord& r : report.runs)
    if (unavailable(r) && std::ranges::find(backends, r.backend) == backends.end()) {
      backends.push_back(r.backend);
      lines.push_back(fmt::format("{}: not run: {}", r.backend, r.reason));
    }
  return lines;
}

// The runs the tables show: every run that reached a device.
std::vector<RunRecord> shown_runs(const Report& report) {
  std::vector<RunRecord> shown;
  for (const RunRecord& r : report.runs)
    if (!unavailable(r)) shown.push_back(r);
  return shown;
}
}  // namespace report_tables

}  // namespace cc
