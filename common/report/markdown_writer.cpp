// markdown_writer.cpp: the report as markdown (write_markdown): the environment, the device block and every problem's tables with every column.
#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/report/report.h"
#include "common/report/tables.h"

namespace cc {

using namespace report_tables;

namespace {

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

}  // namespace

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
           "(dram: copy bandwidth, fp32: FMA rate) that bounds this radius, for the variant's own work; % direct the "
           "same for a direct 2D sum's work, alike for every variant, so it ranks them. "
        << kRateLegend << ".\n\n";
    print_table_markdown(make_table(group, Detail::Full, true), out);
    if (const std::string fastest = fastest_line(group); !fastest.empty()) out << "\n" << markdown_cell(fastest) << "\n";
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

}  // namespace cc
