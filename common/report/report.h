// report.h: the whole report of one invocation and its writers: console table, markdown, CSV, JSON (printer.h puts them behind one interface).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "common/report/record.h"

namespace cc {

// The JSON report's layout (docs/json-schema.md): 2 added schema_version, created, command, tool.git,
// measurement, the raw samples and the stopping rule; a report without schema_version is version 1,
// which the reader still takes. A reader refuses a version above its own.
inline constexpr int kSchemaVersion = 2;

// The host as the runs began, beside the devices' measured peaks: what --compare checks for a machine
// that changed under the gate (compare.h, machine_changes). JSON "host" (docs/json-schema.md).
struct HostState {
  double load_average = kNotMeasured;  // the 1-minute load average (/proc/loadavg) before the first run
  int cpus = 0;                        // CPUs online; 0: not known
  double cpu_mhz = kNotMeasured;       // the CPUs' mean current clock (/proc/cpuinfo "cpu MHz"), where readable
};

struct Report {
  int schema_version = kSchemaVersion;  // of the file read back (1: none given); written: always kSchemaVersion
  std::string created;               // UTC, ISO 8601: 2026-11-24T05:41:30Z
  std::vector<std::string> command;  // argv as typed
  std::string tool_name = "convcompare";
  std::string tool_version;
  std::string tool_git;  // the git revision built (CMake, at configure time), "unknown" outside git
  // How the runs were measured (common/domain/stats.h); all zero where not known: a merged report, or
  // one of schema 1, which had no "measurement".
  MeasurementSettings measurement{.repetitions = 0, .warmup = 0, .min_samples = 0, .time_budget_s = 0};
  // environment: host, compiler, CUDA runtime/driver, OpenCL platforms, math flags...
  std::vector<std::pair<std::string, std::string>> environment;
  HostState host;
  std::vector<DeviceInfo> devices;
  std::vector<RunRecord> runs;
  std::vector<StreamRecord> streams;  // --stream runs, if any
  std::string incomplete;  // why the runs stopped early ("interrupted by SIGINT after 12 runs"); "" when all ran
};

// Side-by-side console tables within 100 columns, or `width` (the terminal's) when narrower: one per
// (filter, size, border), rows = device/variant, a backend that ran nothing in one line; a sweep
// prints one summary per series (variant x radius or size, per device) instead of a table per point.
// `verbose`: every column (rows up to 120 columns, or `width`), and a sweep's every point.
inline constexpr std::size_t kConsoleWidth = 120;  // the widest the console gets (--verbose)
void print_console(const Report& report, std::ostream& out, bool verbose = false, std::size_t width = kConsoleWidth);
void write_markdown(const Report& report, std::ostream& out);
// One header line (csv_columns), then a line per device, per run and per --stream run, each saying
// which in its "record" column ("device", "run", "stream").
void write_csv(const Report& report, std::ostream& out);
void write_json(const Report& report, std::ostream& out);  // docs/json-schema.md

// A table cell: about four significant digits, "-" for not measured (the console and markdown tables').
std::string format_table_number(double value);

// The CSV columns, in order: "record", then run_fields()'s (fields.h; the kernel_ms group flat as
// kernel_ms_*, nested in the JSON run object), then the columns only stream_fields() and
// device_fields() have (peaks_copy_gb_per_s...). A column two tables share ("backend") is one column.
// Last, "incomplete": the report's own (why the runs stopped early, "" when all ran), on every line.
std::vector<std::string> csv_columns();

}  // namespace cc
