// report.cpp: the report printers: console tables, markdown, and CSV and JSON from the field tables (fields.h).
#include "common/report/report.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <variant>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <nlohmann/json.hpp>

#include "common/report/fields.h"

namespace cc {

namespace {

// ---- console and markdown: the device block, then the tables of each problem --------------------

constexpr std::size_t kDeviceWidth = 16;      // a device id or name in a run's row
constexpr std::size_t kDeviceNameWidth = 48;  // a device's name in the device block
constexpr std::size_t kLineWidth = 120;       // console rows are cut to this, reasons included

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

struct Table {
  std::vector<std::string> header;
  std::vector<bool> numeric;  // right-aligned in the console
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> reasons;  // one per row: why skipped or failed, "" when ok
  std::size_t column_1_width = kDeviceWidth;  // the console cuts column 1 (a device) to this
  bool reason_column = true;                  // markdown: reasons as a last column

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
Table make_device_table(const std::vector<DeviceInfo>& devices) {
  Table t;
  t.column_1_width = kDeviceNameWidth;
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
               short_number(d.peaks.fma_gflop_per_s)});
  }
  return t;
}

// The kernel table of one group. The memory column appears only when a group holds both pinned and
// pageable runs, the one case where rows would otherwise look alike. `stop_column`: the rule that
// stopped each run's samples (markdown; the console keeps to its width).
Table make_table(const Group& group, bool stop_column) {
  bool mixed_memory = false;
  for (const RunRecord* r : group.records) mixed_memory |= r->memory != group.records.front()->memory;

  Table t;
  for (const char* name : {"backend", "device", "variant"}) t.add_column(name, false);
  if (mixed_memory) t.add_column("memory", false);
  t.add_column("status", false);
  // Times in ms (the group heading says so), to keep the headers as narrow as the numbers. Beside the
  // median: its noise (stats.h, robust_noise_percent), the samples and the rule that stopped them.
  for (const char* name : {"kernel", "noise", "n"}) t.add_column(name, true);
  if (stop_column) t.add_column("stop", false);
  for (const char* name : {"MPix/s", "GB/s", "GFLOP/s", "% bound", "dev MB", "max err", "tol"}) t.add_column(name, true);

  for (const RunRecord* r : group.records) {
    const Stats& k = r->times.kernel_ms;
    std::vector<std::string> row = {r->backend, r->device, r->variant};
    if (mixed_memory) row.push_back(r->memory);
    row.push_back(std::string(to_string(r->status)));
    const bool untimed = !r->times.untimed.empty();
    row.push_back(untimed ? "untimed" : short_number(k.samples > 0 ? k.median : kNotMeasured));
    row.push_back(k.samples > 0 ? short_percent(k.noise_percent) : "-");
    row.push_back(k.samples > 0 ? std::to_string(k.samples) : "-");
    if (stop_column) row.push_back(r->times.stopped_by.empty() ? "-" : r->times.stopped_by);
    for (double v : {r->mpix_per_s, r->gb_per_s, r->gflop_per_s}) row.push_back(short_number(v));
    row.push_back(bound_text(*r));
    row.push_back(short_number(r->device_mb));
    row.push_back(short_error(r->max_abs_error));
    row.push_back(r->exact ? "exact" : short_error(r->tolerance));
    t.add_row(std::move(row), r->reason.empty() && untimed ? "untimed: " + r->times.untimed : r->reason);
  }
  return t;
}

// Setup and the transfers, for the runs that measured any (the CPU has none): what an application
// pays around the kernel, and the reuse case, a second filter on an image already on the device.
Table make_transfer_table(const Group& group) {
  Table t;
  t.reason_column = false;
  for (const char* name : {"backend", "device", "variant", "memory"}) t.add_column(name, false);
  for (const char* name : {"setup", "build", "h2d", "d2h", "host-to-host", "reuse"}) t.add_column(name, true);
  for (const RunRecord* r : group.records) {
    const PhaseTimes& p = r->times;
    const double transfers[] = {p.h2d_ms, p.d2h_ms, p.host_to_host_ms, p.reuse_ms};
    if (std::all_of(std::begin(transfers), std::end(transfers), [](double v) { return std::isnan(v); })) continue;
    std::vector<std::string> row = {r->backend, r->device, r->variant, r->memory.empty() ? "-" : r->memory};
    for (double v : {p.setup_ms, p.build_ms, p.h2d_ms, p.d2h_ms, p.host_to_host_ms, p.reuse_ms})
      row.push_back(short_number(v));
    t.add_row(std::move(row));
  }
  return t;
}

// One row per --stream run: the overlapped rate against the same frame without overlap and against
// the PCIe floor (the slower of one frame's upload and download at the measured copy rates).
Table make_stream_table(const Grouped<StreamRecord>& group) {
  Table t;
  for (const char* name : {"backend", "device", "variant", "status"}) t.add_column(name, false);
  for (const char* name : {"frames", "queues", "fps", "ms/frame", "serial", "floor", "% floor", "max err"})
    t.add_column(name, true);
  for (const StreamRecord* s : group.records) {
    const bool ran = s->status != Status::Skipped;
    const double ms_per_frame = s->frames > 0 ? s->total_ms / s->frames : kNotMeasured;
    t.add_row({s->backend, s->device, s->variant, std::string(to_string(s->status)),
               ran ? std::to_string(s->frames) : "-", ran ? std::to_string(s->queues) : "-",
               short_number(s->frames_per_s), short_number(ms_per_frame), short_number(s->serial_ms_per_frame),
               short_number(s->pcie_floor_ms_per_frame), short_percent(100 * s->floor_fraction),
               short_error(s->max_abs_error)},
              s->reason);
  }
  return t;
}

constexpr const char* kStreamLegend =
    "ms/frame overlapped; serial: one frame's upload + filter + download in turn; floor: PCIe, max(h2d, d2h)";
constexpr const char* kTransferLegend =
    "setup and transfers (ms); reuse: a second filter on the image already on the device, launch + download";

// One line per variant that two or more runs of the group completed: each run's kernel median over
// a common denominator (CUDA's when it ran, else the first), so "opencl/cuda 1.10" reads as
// "OpenCL took 10% longer".
std::vector<std::string> ratio_lines(const Group& group) {
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
        done.push_back(r);
    if (done.size() < 2) continue;

    // Name each run by its backend, adding the device and then the host memory only when needed to
    // tell two runs apart (two OpenCL platforms, pinned and pageable).
    std::vector<std::function<std::string(const RunRecord*)>> namings = {
        [](const RunRecord* r) { return r->backend; },
        [](const RunRecord* r) { return fmt::format("{}[{}]", r->backend, shorten(r->device, kDeviceWidth)); },
        [](const RunRecord* r) { return fmt::format("{}[{}, {}]", r->backend, shorten(r->device, kDeviceWidth), r->memory); },
    };
    std::vector<std::string> labels;
    for (const auto& naming : namings) {
      labels.clear();
      for (const RunRecord* r : done) labels.push_back(naming(r));
      std::vector<std::string> sorted = labels;
      std::sort(sorted.begin(), sorted.end());
      if (std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end()) break;
    }

    const auto cuda = std::find_if(done.begin(), done.end(), [](const RunRecord* r) { return r->backend == "cuda"; });
    const std::size_t base = cuda == done.end() ? 0 : static_cast<std::size_t>(cuda - done.begin());
    std::string line = fmt::format("{:<{}}", variant + ":", variant_width + 1);
    for (std::size_t i = 0; i < done.size(); ++i)
      if (i != base) {
        const double ratio = done[i]->times.kernel_ms.median / done[base]->times.kernel_ms.median;
        line += fmt::format("  {}/{} {:.{}f}", labels[i], labels[base], ratio, ratio < 100 ? 2 : 0);
      }
    lines.push_back(std::move(line));
  }
  return lines;
}

// Aligned columns, two spaces after text and one before right-aligned numbers, so a row fits in
// about 120 columns. A reason does not fit as a last column: a row with no numbers (skipped) shows
// it in their place, a row with numbers (failed) on the line below.
void print_table_console(Table t, std::ostream& out) {
  const std::size_t device_column = 1;
  for (auto& row : t.rows) row[device_column] = shorten(row[device_column], t.column_1_width);
  std::vector<std::size_t> widths(t.header.size());
  for (std::size_t c = 0; c < t.header.size(); ++c) {
    widths[c] = t.header[c].size();
    for (const auto& row : t.rows) widths[c] = std::max(widths[c], row[c].size());
  }
  const std::size_t first_number = std::find(t.numeric.begin(), t.numeric.end(), true) - t.numeric.begin();
  auto format_cells = [&](const std::vector<std::string>& cells, std::size_t count) {
    std::string line;
    for (std::size_t c = 0; c < count; ++c) {
      if (c > 0) line += t.numeric[c] ? " " : "  ";
      line += t.numeric[c] ? fmt::format("{:>{}}", cells[c], widths[c]) : fmt::format("{:<{}}", cells[c], widths[c]);
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
      line += shorten(t.reasons[r], std::max<std::size_t>(40, kLineWidth - std::min(line.size(), kLineWidth)));
    } else
      line = format_cells(row, row.size());
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << '\n';
    if (has_numbers && !t.reasons[r].empty()) {
      const std::string indent(widths[0] + 2, ' ');
      out << indent << "^ " << shorten(t.reasons[r], kLineWidth - indent.size() - 2) << '\n';
    }
  }
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
}

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

std::vector<std::string> csv_columns() {
  std::vector<std::string> names;
  for (const Field<RunRecord>& field : run_fields()) names.push_back(field.column());
  return names;
}

void print_console(const Report& report, std::ostream& out) {
  if (!report.devices.empty()) {
    out << "devices (copy and FMA rates: measured on the devices that ran)\n";
    print_table_console(make_device_table(report.devices), out);
  }
  for (const Group& group : group_by_heading(report.runs)) {
    out << '\n' << group.title << "  (times in ms)\n";
    print_table_console(make_table(group, false), out);
    const auto ratios = ratio_lines(group);
    if (!ratios.empty()) {
      out << "kernel time ratios (below 1: the numerator is faster)\n";
      for (const std::string& line : ratios) out << "  " << line << '\n';
    }
    if (const Table transfers = make_transfer_table(group); !transfers.rows.empty()) {
      out << kTransferLegend << '\n';
      print_table_console(transfers, out);
    }
  }
  for (const Grouped<StreamRecord>& group : group_by_heading(report.streams)) {
    out << '\n' << group.title << "  (times in ms)\n" << kStreamLegend << '\n';
    print_table_console(make_stream_table(group), out);
  }
}

void write_markdown(const Report& report, std::ostream& out) {
  out << "# " << report.tool_name << (report.tool_version.empty() ? "" : " " + report.tool_version) << "\n\n";
  if (!report.environment.empty()) {
    out << "## Environment\n\n";
    for (const auto& [key, value] : report.environment) out << fmt::format("- {}: {}\n", key, value);
    out << '\n';
  }
  if (!report.devices.empty()) {
    out << "## Devices\n\nCopy and FMA rates: measured by the same two kernels in every API, on the devices that ran.\n\n";
    print_table_markdown(make_device_table(report.devices), out);
    out << '\n';
  }
  for (const Group& group : group_by_heading(report.runs)) {
    out << "## " << group.title
        << "\n\nTimes in ms; kernel is the median launch, noise its robust spread (1.4826 x MAD / median), n the "
           "samples, stop the rule that stopped them (max, noise, budget); % bound is its rate against the measured ceiling "
           "(dram: copy bandwidth, fp32: FMA rate) that bounds this radius.\n\n";
    print_table_markdown(make_table(group, true), out);
    const auto ratios = ratio_lines(group);
    if (!ratios.empty()) {
      out << "\nKernel time ratios (below 1: the numerator is faster):\n\n";
      for (const std::string& line : ratios) out << "- " << line << '\n';
    }
    if (const Table transfers = make_transfer_table(group); !transfers.rows.empty()) {
      out << "\n" << kTransferLegend << ".\n\n";
      print_table_markdown(transfers, out);
    }
    out << '\n';
  }
  for (const Grouped<StreamRecord>& group : group_by_heading(report.streams)) {
    out << "## " << group.title << "\n\nTimes in ms; " << kStreamLegend << ".\n\n";
    print_table_markdown(make_stream_table(group), out);
    out << '\n';
  }
}

void write_csv(const Report& report, std::ostream& out) {
  out << fmt::format("{}\n", fmt::join(csv_columns(), ","));
  for (const RunRecord& r : report.runs) {
    std::vector<std::string> cells;
    for (const Field<RunRecord>& field : run_fields()) cells.push_back(csv_field(field.written(r)));
    out << fmt::format("{}\n", fmt::join(cells, ","));
  }
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
