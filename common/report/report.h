// report.h: the whole report of one invocation and its writers: console table, markdown, CSV, JSON (printer.h puts them behind one interface).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "common/report/record.h"

namespace cc {

struct Report {
  std::string tool_name = "convcompare";
  std::string tool_version;
  // environment: host, compiler, CUDA runtime/driver, OpenCL platforms, math flags...
  std::vector<std::pair<std::string, std::string>> environment;
  std::vector<DeviceInfo> devices;
  std::vector<RunRecord> runs;
  std::vector<StreamRecord> streams;  // --stream runs, if any
};

// Side-by-side console table: one table per (filter, size, border), rows = backend/variant.
void print_console(const Report& report, std::ostream& out);
void write_markdown(const Report& report, std::ostream& out);
void write_csv(const Report& report, std::ostream& out);  // one header line, one line per run
void write_json(const Report& report, std::ostream& out);  // DESIGN.md section 3 schema

// A table cell: about four significant digits, "-" for not measured (the console and markdown tables').
std::string format_table_number(double value);

// The CSV columns, in order: run_fields()'s (fields.h), the kernel_ms group flat as kernel_ms_*
// (nested in the JSON run object).
std::vector<std::string> csv_columns();

}  // namespace cc
