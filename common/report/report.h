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

// Side-by-side console tables within 100 columns: one per (filter, size, border), rows = device/variant,
// a backend that ran nothing in one line; a sweep prints one summary per series (variant x radius or
// size, per device) instead of a table per point. `verbose`: every column, and a sweep's every point.
void print_console(const Report& report, std::ostream& out, bool verbose = false);
void write_markdown(const Report& report, std::ostream& out);
// One header line (csv_columns), then a line per device, per run and per --stream run, each saying
// which in its "record" column ("device", "run", "stream").
void write_csv(const Report& report, std::ostream& out);
void write_json(const Report& report, std::ostream& out);  // DESIGN.md section 3 schema

// A table cell: about four significant digits, "-" for not measured (the console and markdown tables').
std::string format_table_number(double value);

// The CSV columns, in order: "record", then run_fields()'s (fields.h; the kernel_ms group flat as
// kernel_ms_*, nested in the JSON run object), then the columns only stream_fields() and
// device_fields() have (peaks_copy_gb_per_s...). A column two tables share ("backend") is one column.
std::vector<std::string> csv_columns();

}  // namespace cc
