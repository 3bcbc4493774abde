// csv_writer.cpp: the report as CSV (write_csv, csv_columns): a line per device, run and stream, the columns from the field tables (fields.h).
#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "common/report/fields.h"
#include "common/report/report.h"

namespace cc {

namespace {

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

template <typename Record>
void add_columns(std::vector<std::string>& names, const std::vector<Field<Record>>& fields) {
  for (const Field<Record>& field : fields)
    if (const std::string column = field.column(); std::ranges::find(names, column) == names.end()) names.push_back(column);
}

// One CSV line: `record` in the first column, each field in its column, the report's `incomplete` in the
// last (on every line, so that a CSV cut from an interrupted job says so whichever lines are read), the
// other columns empty.
template <typename Record>
std::string csv_line(std::string_view record, const Record& value, const std::vector<Field<Record>>& fields,
                     const std::vector<std::string>& columns, const std::string& incomplete) {
  std::vector<std::string> cells(columns.size());
  cells[0] = record;
  cells.back() = csv_field(incomplete);
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
  names.push_back("incomplete");
  return names;
}

void write_csv(const Report& report, std::ostream& out) {
  const std::vector<std::string> columns = csv_columns();
  out << fmt::format("{}\n", fmt::join(columns, ","));
  for (const DeviceInfo& d : report.devices) out << csv_line("device", d, device_fields(), columns, report.incomplete);
  for (const RunRecord& r : report.runs) out << csv_line("run", r, run_fields(), columns, report.incomplete);
  for (const StreamRecord& s : report.streams) out << csv_line("stream", s, stream_fields(), columns, report.incomplete);
}

}  // namespace cc
