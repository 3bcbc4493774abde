// report.cpp: the report printers: console tables, markdown, and CSV and JSON from the field tables (fields.h).
#include "common/report/report.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <variant>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "common/domain/backend_names.h"
#include "common/report/fields.h"

namespace cc {

namespace {

// ---- console and markdown: the device block, then the tables of each problem --------------------

constexpr std::size_t kDeviceWidth = 16;      // a device id or name in a run's row
constexpr std::size_t kDeviceNameWidth = 48;  // a device's name in the device block (markdown, --verbose)
constexpr std::size_t kCompactNameWidth = 30; // the same in the console's compact view
// Console rows are cut to this, reasons included (issue #17: an 80-column terminal shows a compact
// table whole; the compact kernel table leaves about 15 columns for two more short statistics).
constexpr std::size_t kLineWidth = 100;
constexpr std::size_t kVerboseLineWidth = 120;  // --verbose: every column, wider rows

// Columns a terminal shows for `text`: UTF-8 continuation bytes take none ("auto→fast" is 9).
std::size_t display_width(std::string_view text) {
  return static_cast<std::size_t>(std::ranges::count_if(text, [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
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

// A run that never reached a device: its backend is not built or found no device. The console and
// markdown say so once per backend instead of once per run; JSON and CSV keep every row.
bool unavailable(const RunRecord& r) { return r.status == Status::Skipped && r.device == "-"; }

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

// Errors and tolerances: three significant digits, no padding zeros (1.5e-05, 0.0003).
std::string short_error(double v) { return std::isfinite(v) ? fmt::format("{:.3g}", v) : short_number(v); }

// Percentages: whole numbers, a decimal below 10 so a small share does not print as 0.
std::string short_percent(double v) {
  return std::isfinite(v) ? fmt::format("{:.{}f}%", v, std::fabs(v) < 10 ? 1 : 0) : "-";
}

std::string shorten(const std::string& text, std::size_t limit) {
  return text.size() <= limit ? text : text.substr(0, limit - 2) + "..";
}

// A legend or heading wrapped at `width` columns, continuation lines indented by two (issue #28: an
// 80-column terminal wrapped the 94-column transfers legend mid-word).
std::string wrapped(std::string_view text, std::size_t width) {
  std::string out, line;
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    const std::string_view word = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view{} : text.substr(space + 1);
    if (!line.empty() && line.size() > 2 && display_width(line) + 1 + display_width(word) > width) {
      out += line + '\n';
      line = "  ";
    }
    if (!line.empty() && line != "  ") line += ' ';
    line += word;
  }
  return out + line;
}

// "63% dram": the run's rate against the device ceiling that bounds its radius (derive_bound).
std::string bound_text(const RunRecord& r) {
  return r.bound.empty() || !std::isfinite(r.bound_percent) ? "-" : short_percent(r.bound_percent) + " " + r.bound;
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

// Records of one problem (same filter, image shape and border rule, or for streams the same frames),
// so their rows compare directly; groups in order of first appearance.
template <typename Record>
struct Grouped {
  std::string title;
  std::vector<const Record*> records;
};
using Group = Grouped<RunRecord>;

template <typename Record>
std::vector<Grouped<Record>> group_by_heading(const std::vector<Record>& records) {
  std::vector<Grouped<Record>> groups;
  for (const Record& r : records) {
    const std::string title = heading(r);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.title == title; });
    if (it == groups.end()) it = groups.insert(groups.end(), Grouped<Record>{title, {}});
    it->records.push_back(&r);
  }
  return groups;
}

// Compact: the console's default, within kLineWidth (the device id names the API: "cuda:0"). Full:
// every column, for markdown and --verbose.
enum class Detail { Compact, Full };

struct Table {
  std::vector<std::string> header;
  std::vector<bool> numeric;  // right-aligned in the console
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> reasons;  // one per row: why skipped or failed, "" when ok
  std::size_t shortened_column = 1;           // the console cuts this column (a device or its name)
  std::size_t column_1_width = kDeviceWidth;  // to this width
  std::size_t line_width = kLineWidth;        // reasons are cut to end by this column
  bool reason_column = true;                  // markdown: reasons as a last column
  // Lines after the table, whole (wrapped, never cut): what several rows share, said once.
  std::vector<std::string> notes;

  void add_column(std::string name, bool is_numeric) {
    header.push_back(std::move(name));
    numeric.push_back(is_numeric);
  }
  void add_row(std::vector<std::string> cells, std::string reason = {}) {
    rows.push_back(std::move(cells));
    reasons.push_back(std::move(reason));
  }
};

// The value of a device property, "" when its backend does not report it.
std::string property(const DeviceInfo& device, std::string_view name) {
  for (const auto& [key, value] : device.properties)
    if (key == name) return value;
  return "";
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
    if (full) row.push_back(short_number(r->device_mb));
    row.push_back(short_error(r->max_abs_error));
    if (full) row.push_back(r->exact ? "exact" : short_error(r->tolerance));
    t.add_row(std::move(row), r->reason);
  }
  // Why runs are untimed (fake profiling timestamps, as Rusticl's): once per reason, naming its runs,
  // instead of the same line cut short under every row (issue #28).
  std::vector<std::pair<std::string, std::vector<std::string>>> untimed;  // reason, its runs
  for (const RunRecord* r : group.records) {
    if (r->times.untimed.empty() || !r->reason.empty()) continue;
    auto it = std::ranges::find(untimed, r->times.untimed, &std::pair<std::string, std::vector<std::string>>::first);
    if (it == untimed.end()) it = untimed.insert(untimed.end(), std::pair{r->times.untimed, std::vector<std::string>{}});
    it->second.push_back(shorten(r->device, kDeviceWidth) + " " + variant_label(*r));
  }
  for (const auto& [reason, names] : untimed)
    t.notes.push_back(fmt::format("untimed ({}): {}", fmt::join(names, ", "), reason));
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
  return t;
}

// What the full view's rate columns count (docs/json-schema.md): GFLOP/s is the direct 2D sum's work,
// which a separable or fft variant does not do, so theirs can read above the FMA peak.
constexpr const char* kRateLegend =
    "MPix/s: pixels / kernel median; GB/s: input read once + output written once; GFLOP/s: 2 x the 2D\n"
    "filter's taps x pixels x channels, a direct sum's work (separable, fft do less; % bound: their own)";
constexpr const char* kStreamLegend =
    "ms/frame overlapped; serial: upload, filter, download in turn; floor: max(h2d, d2h), the host-device link "
    "(PCIe on a GPU, memory on a CPU device)";
constexpr const char* kTransferLegend =
    "setup and transfers (ms); reuse: a second filter on the image on the device, launch + download";

// One line per variant that two or more runs of the group completed: each run's kernel median over
// a common denominator (CUDA's when it ran, else the first), so "opencl/cuda 1.10" reads as
// "OpenCL took 10% longer".
// `device_width`: the console cuts device names to a column; markdown keeps them whole (issue #28: a
// merged report's "nvidia/NVIDIA H100 80GB HBM3" lost its name).
std::vector<std::string> ratio_lines(const Group& group, std::size_t device_width = kDeviceWidth) {
  std::vector<std::string> variants;
  for (const RunRecord* r : group.records)
    if (std::find(variants.begin(), variants.end(), r->variant) == variants.end()) variants.push_back(r->variant);

  std::size_t variant_width = 0;
  for (const std::string& variant : variants) variant_width = std::max(variant_width, variant.size());

  std::vector<std::string> lines;
  for (const std::string& variant : variants) {
    std::vector<const RunRecord*> done;
    for (const RunRecord* r : group.records)
      if (r->variant == variant && r->status == Status::Ok && r->times.kernel_ms.samples > 0 && r->times.kernel_ms.median > 0)
        // Pinned and pageable runs time the same kernel on the same device: one of them is its kernel time
        // (a ratio between them would only measure noise, issue #28).
        if (std::ranges::none_of(done, [&](const RunRecord* seen) { return seen->backend == r->backend && seen->device == r->device; }))
          done.push_back(r);
    if (done.size() < 2) continue;

    // Name each run by its backend, adding the device and then the host memory only when needed to
    // tell two runs apart (two OpenCL platforms, pinned and pageable).
    std::vector<std::function<std::string(const RunRecord*)>> namings = {
        [](const RunRecord* r) { return r->backend; },
        [&](const RunRecord* r) { return fmt::format("{}[{}]", r->backend, shorten(r->device, device_width)); },
        [&](const RunRecord* r) { return fmt::format("{}[{}, {}]", r->backend, shorten(r->device, device_width), r->memory); },
    };
    std::vector<std::string> labels;
    for (const auto& naming : namings) {
      labels.clear();
      for (const RunRecord* r : done) labels.push_back(naming(r));
      std::vector<std::string> sorted = labels;
      std::sort(sorted.begin(), sorted.end());
      if (std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()) break;
    }

    const auto cuda = std::find_if(done.begin(), done.end(), [](const RunRecord* r) {
      const BackendName* known = find_backend_name(r->backend);
      return known && known->ratio_base;
    });
    const std::size_t base = cuda == done.end() ? 0 : static_cast<std::size_t>(cuda - done.begin());
    // Wrapped under the first ratio where a line would pass kLineWidth (with the caller's 2-space indent).
    std::string line = fmt::format("{:<{}}", variant + ":", variant_width + 1);
    const std::size_t indent = line.size();
    bool first = true;
    for (std::size_t i = 0; i < done.size(); ++i)
      if (i != base) {
        const double ratio = done[i]->times.kernel_ms.median / done[base]->times.kernel_ms.median;
        const std::string item = fmt::format("  {}/{} {:.{}f}", labels[i], labels[base], ratio, ratio < 100 ? 2 : 0);
        if (!first && 2 + line.size() + item.size() > kLineWidth) {
          lines.push_back(std::move(line));
          line = std::string(indent, ' ');
        }
        line += item;
        first = false;
      }
    lines.push_back(std::move(line));
  }
  return lines;
}

// `text` in lines of at most `width` columns, broken at spaces, continuation lines indented by two.
void print_wrapped(const std::string& text, std::size_t width, std::ostream& out) {
  std::string line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && display_width(line) + 1 + display_width(word) > width) {
      out << line << '\n';
      line = "  " + word;
    } else {
      line += (line.empty() ? "" : " ") + word;
    }
    start = end + 1;
  }
  if (!line.empty()) out << line << '\n';
}

// Aligned columns, two spaces after text and one before right-aligned numbers, so a row fits in
// kLineWidth columns. A reason does not fit as a last column: a row with no numbers (skipped) shows
// it in their place, a row with numbers (failed) on the line below.
void print_table_console(Table t, std::ostream& out) {
  std::vector<std::size_t> widths(t.header.size());
  const auto measure = [&] {
    for (auto& row : t.rows) row[t.shortened_column] = shorten(row[t.shortened_column], t.column_1_width);
    std::size_t total = 0;
    for (std::size_t c = 0; c < t.header.size(); ++c) {
      widths[c] = display_width(t.header[c]);
      for (const auto& row : t.rows) widths[c] = std::max(widths[c], display_width(row[c]));
      total += widths[c] + (c == 0 ? 0 : t.numeric[c] ? 1 : 2);
    }
    return total;
  };
  // Wider than the line (a long device name at 80 columns): the shortened column gives up the excess,
  // down to 8 columns.
  if (const std::size_t total = measure(); total > t.line_width) {
    const std::size_t excess = total - t.line_width;
    const std::size_t column = widths[t.shortened_column];
    t.column_1_width = std::max<std::size_t>(8, column > excess ? column - excess : 0);
    measure();
  }
  const std::size_t first_number = std::find(t.numeric.begin(), t.numeric.end(), true) - t.numeric.begin();
  auto format_cells = [&](const std::vector<std::string>& cells, std::size_t count) {
    std::string line;
    for (std::size_t c = 0; c < count; ++c) {
      if (c > 0) line += t.numeric[c] ? " " : "  ";
      line += pad(cells[c], widths[c], t.numeric[c]);
    }
    return line;
  };
  out << format_cells(t.header, t.header.size()) << '\n';
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    const auto& row = t.rows[r];
    const bool has_numbers = std::any_of(row.begin() + first_number, row.end(), [](const std::string& cell) { return cell != "-"; });
    std::string line;
    if (!has_numbers && !t.reasons[r].empty()) {
      line = format_cells(row, first_number) + "  ";
      line += shorten(t.reasons[r], t.line_width - std::min(display_width(line), t.line_width - 30));
    } else
      line = format_cells(row, row.size());
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << '\n';
    if (has_numbers && !t.reasons[r].empty()) {
      const std::string indent(widths[0] + 2, ' ');
      out << indent << "^ " << shorten(t.reasons[r], t.line_width - indent.size() - 2) << '\n';
    }
  }
  for (const std::string& note : t.notes) print_wrapped(note, t.line_width, out);
}

std::string markdown_cell(std::string text) {
  for (std::size_t at = 0; (at = text.find('|', at)) != std::string::npos; at += 2) text.replace(at, 1, "\\|");
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

// The same table, with the reasons (if the table has them) as the last column: markdown renderers
// wrap long cells.
void print_table_markdown(const Table& t, std::ostream& out) {
  auto print_row = [&](const std::vector<std::string>& cells, const std::string& reason) {
    out << '|';
    for (const std::string& cell : cells) out << ' ' << markdown_cell(cell) << " |";
    if (t.reason_column) out << ' ' << markdown_cell(reason) << " |";
    out << '\n';
  };
  print_row(t.header, "reason");
  out << '|';
  for (bool numeric : t.numeric) out << (numeric ? " ---: |" : " --- |");
  out << (t.reason_column ? " --- |\n" : "\n");
  for (std::size_t r = 0; r < t.rows.size(); ++r) print_row(t.rows[r], t.reasons[r]);
  if (!t.notes.empty()) out << '\n';
  for (const std::string& note : t.notes) out << markdown_cell(note) << "\n\n";
}

// ---- backends that ran nothing, and the sweep summary ---------------------------------------------

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

// What a sweep holds fixed (the filter without its radius, the border, the pixel type...); its points
// are the radii and sizes that vary within it.
struct SweepSeries {
  std::string title;
  std::vector<const RunRecord*> records;
  std::vector<std::string> points;  // "r=3", "2048x2048", "r=3 2048x2048", in order of first appearance
  bool radii = false, sizes = false;
};

std::string radius_text(const RunRecord& r) {
  return r.radius_x == r.radius_y ? fmt::format("r={}", r.radius_x) : fmt::format("r={}x{}", r.radius_x, r.radius_y);
}

std::string point_of(const SweepSeries& series, const RunRecord& r) {
  if (series.radii && series.sizes) return fmt::format("{} {}x{}", radius_text(r), r.width, r.height);
  return series.sizes ? fmt::format("{}x{}", r.width, r.height) : radius_text(r);
}

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
    // reports) are not one (issue #28: merge printed a spurious sweep summary).
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

constexpr const char* kSummaryLegend = "kernel MPix/s (median launch); skip: not run here, FAIL: failed validation";

// ---- CSV and JSON --------------------------------------------------------------------------------

std::string csv_field(const FieldValue& value) {
  struct Render {
    std::string operator()(std::monostate) const { return {}; }
    std::string operator()(const std::string& s) const {
      if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
      std::string quoted = "\"";
      for (char ch : s) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      return quoted + '"';
    }
    std::string operator()(double v) const { return std::isnan(v) ? std::string() : fmt::format("{}", v); }
    std::string operator()(int v) const { return fmt::format("{}", v); }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(Status status) const { return std::string(to_string(status)); }
    std::string operator()(const TextPairs& pairs) const {
      std::vector<std::string> items;
      for (const auto& [key, value] : pairs) items.push_back(fmt::format("{}: {}", key, value));
      return (*this)(fmt::format("{}", fmt::join(items, "; ")));
    }
    // Lists in one cell, space-separated: a CSV line stays one run.
    std::string operator()(const std::vector<double>& numbers) const { return fmt::format("{}", fmt::join(numbers, " ")); }
    std::string operator()(const std::vector<std::string>& texts) const { return (*this)(fmt::format("{}", fmt::join(texts, " "))); }
  };
  return std::visit(Render{}, value);
}

nlohmann::ordered_json json_value(const FieldValue& value) {
  struct Convert {
    nlohmann::ordered_json operator()(std::monostate) const { return nullptr; }
    nlohmann::ordered_json operator()(const std::string& s) const { return s; }
    // JSON has no NaN or Inf: a measurement that does not exist is null.
    nlohmann::ordered_json operator()(double v) const { return std::isfinite(v) ? nlohmann::ordered_json(v) : nullptr; }
    nlohmann::ordered_json operator()(int v) const { return v; }
    nlohmann::ordered_json operator()(bool v) const { return v; }
    nlohmann::ordered_json operator()(Status status) const { return to_string(status); }
    nlohmann::ordered_json operator()(const TextPairs& pairs) const {
      nlohmann::ordered_json object = nlohmann::ordered_json::object();
      for (const auto& [key, value] : pairs) object[key] = value;
      return object;
    }
    nlohmann::ordered_json operator()(const std::vector<double>& numbers) const {
      nlohmann::ordered_json array = nlohmann::ordered_json::array();
      for (const double v : numbers) array.push_back((*this)(v));
      return array;
    }
    nlohmann::ordered_json operator()(const std::vector<std::string>& texts) const { return texts; }
  };
  return std::visit(Convert{}, value);
}

// One record as a JSON object: its fields in table order, a group's fields nested under the group's name.
template <typename Record>
nlohmann::ordered_json json_object(const Record& record, const std::vector<Field<Record>>& fields) {
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  for (const Field<Record>& field : fields) {
    nlohmann::ordered_json& parent = field.group.empty() ? object : object[std::string(field.group)];
    parent[std::string(field.name)] = json_value(field.written(record));
  }
  return object;
}

template <typename Record>
nlohmann::ordered_json json_array(const std::vector<Record>& records, const std::vector<Field<Record>>& fields) {
  nlohmann::ordered_json array = nlohmann::ordered_json::array();
  for (const Record& record : records) array.push_back(json_object(record, fields));
  return array;
}

}  // namespace

std::string format_table_number(double value) { return short_number(value); }

namespace {

template <typename Record>
void add_columns(std::vector<std::string>& names, const std::vector<Field<Record>>& fields) {
  for (const Field<Record>& field : fields)
    if (const std::string column = field.column(); std::ranges::find(names, column) == names.end()) names.push_back(column);
}

// One CSV line: `record` in the first column, each field in its column, the other columns empty.
template <typename Record>
std::string csv_line(std::string_view record, const Record& value, const std::vector<Field<Record>>& fields,
                     const std::vector<std::string>& columns) {
  std::vector<std::string> cells(columns.size());
  cells[0] = record;
  for (const Field<Record>& field : fields)
    cells[std::ranges::find(columns, field.column()) - columns.begin()] = csv_field(field.written(value));
  return fmt::format("{}\n", fmt::join(cells, ","));
}

}  // namespace

std::vector<std::string> csv_columns() {
  std::vector<std::string> names = {"record"};
  add_columns(names, run_fields());
  add_columns(names, stream_fields());
  add_columns(names, device_fields());
  return names;
}

void print_console(const Report& report, std::ostream& out, bool verbose, std::size_t width) {
  // Every table's rows and every legend within `width` (the terminal's, issue #28).
  const auto fit = [&](Table t) {
    t.line_width = std::min(t.line_width, width);
    return t;
  };
  const std::size_t text_width = std::min(width, kLineWidth);  // legends and lines of text
  const Detail detail = verbose ? Detail::Full : Detail::Compact;
  if (!report.incomplete.empty()) out << wrapped("INCOMPLETE: " + report.incomplete + "; the runs below are those that finished", text_width) << "\n\n";
  if (!report.devices.empty()) {
    out << "devices (copy and FMA rates: measured on the devices that ran)\n";
    print_table_console(fit(make_device_table(report.devices, detail)), out);
  }
  for (const std::string& line : unavailable_lines(report)) out << shorten(line, text_width) << '\n';
  const std::vector<RunRecord> runs = shown_runs(report);
  const std::vector<SweepSeries> sweep = sweep_series(runs);
  // A sweep's points are summarized at the end; each point's own tables are the detail view's.
  const bool per_problem = sweep.empty() || verbose;
  if (per_problem)
    for (const Group& group : group_by_heading(runs)) {
      out << '\n' << group.title << "  (times in ms)\n";
      if (verbose) out << kRateLegend << '\n';
      print_table_console(fit(make_table(group, detail, false)), out);
      const auto ratios = ratio_lines(group);
      if (!ratios.empty()) {
        out << "kernel time ratios (below 1: the numerator is faster)\n";
        for (const std::string& line : ratios) out << "  " << shorten(line, text_width - 2) << '\n';
      }
      if (const Table transfers = make_transfer_table(group, detail); !transfers.rows.empty()) {
        out << wrapped(kTransferLegend, text_width) << '\n';
        print_table_console(fit(transfers), out);
      }
    }
  else {
    // What a summary cell cannot say: why a run failed.
    bool first = true;
    for (const RunRecord& r : runs)
      if (r.status == Status::Failed) {
        if (first) out << "\nfailed validation:\n";
        first = false;
        out << "  " << shorten(fmt::format("{} {} {} {}x{} {}: {}", r.device, variant_label(r), r.filter, r.width, r.height, r.border, r.reason), text_width - 2) << '\n';
      }
  }
  for (const Grouped<StreamRecord>& group : group_by_heading(report.streams)) {
    out << '\n' << group.title << "  (times in ms)\n" << wrapped(kStreamLegend, text_width) << '\n';
    print_table_console(fit(make_stream_table(group, detail)), out);
  }
  for (const SweepSeries& series : sweep) {
    out << "\nsweep summary: " << series.title << "\n" << wrapped(kSummaryLegend, text_width) << '\n'
        << (verbose ? "" : "each point's own tables: --verbose, --markdown or --json\n");
    for (const auto& [device, table] : summary_tables(series)) {
      out << device << '\n';
      print_table_console(fit(table), out);
    }
  }
}

void write_markdown(const Report& report, std::ostream& out) {
  out << "# " << report.tool_name << (report.tool_version.empty() ? "" : " " + report.tool_version) << "\n\n";
  if (!report.incomplete.empty()) out << "**Incomplete:** " << markdown_cell(report.incomplete) << "; the runs below are those that finished.\n\n";
  if (!report.environment.empty()) {
    out << "## Environment\n\n";
    for (const auto& [key, value] : report.environment) out << fmt::format("- {}: {}\n", key, value);
    out << '\n';
  }
  if (!report.devices.empty()) {
    out << "## Devices\n\nCopy and FMA rates: measured by the same two kernels in every API, on the devices that ran.\n\n";
    print_table_markdown(make_device_table(report.devices, Detail::Full), out);
    out << '\n';
  }
  if (const auto lines = unavailable_lines(report); !lines.empty()) {
    out << "## Not run\n\n";
    for (const std::string& line : lines) out << "- " << markdown_cell(line) << '\n';
    out << '\n';
  }
  const std::vector<RunRecord> runs = shown_runs(report);
  for (const Group& group : group_by_heading(runs)) {
    out << "## " << group.title
        << "\n\nTimes in ms; kernel is the median launch, noise its robust spread (1.4826 x MAD / median), n the "
           "samples, stop the rule that stopped them (max, noise, budget); % bound is its rate against the measured ceiling "
           "(dram: copy bandwidth, fp32: FMA rate) that bounds this radius. "
        << kRateLegend << ".\n\n";
    print_table_markdown(make_table(group, Detail::Full, true), out);
    const auto ratios = ratio_lines(group, std::string::npos);
    if (!ratios.empty()) {
      out << "\nKernel time ratios (below 1: the numerator is faster):\n\n";
      for (const std::string& line : ratios) out << "- " << line << '\n';
    }
    if (const Table transfers = make_transfer_table(group, Detail::Full); !transfers.rows.empty()) {
      out << "\n" << kTransferLegend << ".\n\n";
      print_table_markdown(transfers, out);
    }
    out << '\n';
  }
  for (const Grouped<StreamRecord>& group : group_by_heading(report.streams)) {
    out << "## " << group.title << "\n\nTimes in ms; " << kStreamLegend << ".\n\n";
    print_table_markdown(make_stream_table(group, Detail::Full), out);
    out << '\n';
  }
  for (const SweepSeries& series : sweep_series(runs)) {
    out << "## Sweep summary: " << series.title << "\n\n" << kSummaryLegend << ".\n\n";
    for (const auto& [device, table] : summary_tables(series)) {
      out << "### " << device << "\n\n";
      print_table_markdown(table, out);
      out << '\n';
    }
  }
}

void write_csv(const Report& report, std::ostream& out) {
  const std::vector<std::string> columns = csv_columns();
  out << fmt::format("{}\n", fmt::join(columns, ","));
  for (const DeviceInfo& d : report.devices) out << csv_line("device", d, device_fields(), columns);
  for (const RunRecord& r : report.runs) out << csv_line("run", r, run_fields(), columns);
  for (const StreamRecord& s : report.streams) out << csv_line("stream", s, stream_fields(), columns);
}

void write_json(const Report& report, std::ostream& out) {
  // schema_version first, outside the field table: the reader checks it before reading anything by the
  // table, and it is this writer's version, whatever version a merged report was read from.
  nlohmann::ordered_json root = {{"schema_version", kSchemaVersion}};
  root.update(json_object(report, report_fields()));
  root["devices"] = json_array(report.devices, device_fields());
  root["runs"] = json_array(report.runs, run_fields());
  root["streams"] = json_array(report.streams, stream_fields());
  // Paths and device names are not guaranteed UTF-8; replace bad bytes rather than throw mid-report.
  out << root.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
}

}  // namespace cc
