// console_writer.cpp: the report on a terminal (print_console): aligned tables cut to the terminal's width, a sweep's summary in place of its points' tables.
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

// A legend or heading wrapped at `width` columns, continuation lines indented by two, so that an
// 80-column terminal never wraps a legend (the transfers legend is 94 columns) mid-word.
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
  // Still wider (an 80-column terminal): the columns a narrow line can spare go, the least needed first
  // ("% bound" ranks a run against its own work; --verbose and the other reports keep every column).
  for (const std::string_view spare : {"% direct", "GB/s"}) {
    if (measure() <= t.line_width) break;
    const auto at = std::find(t.header.begin(), t.header.end(), spare);
    if (at == t.header.end()) continue;
    const auto column = at - t.header.begin();
    t.header.erase(at);
    t.numeric.erase(t.numeric.begin() + column);
    for (auto& row : t.rows) row.erase(row.begin() + column);
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

}  // namespace

void print_console(const Report& report, std::ostream& out, bool verbose, std::size_t width) {
  // Every table's rows and every legend within `width` (the terminal's).
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
  if (per_problem && !runs.empty()) out << '\n' << wrapped(kColumnLegend, text_width) << '\n';
  if (per_problem)
    for (const Group& group : group_by_heading(runs)) {
      out << '\n' << group.title << "  (times in ms)\n";
      if (verbose) out << kRateLegend << '\n';
      print_table_console(fit(make_table(group, detail, false)), out);
      if (const std::string fastest = fastest_line(group, text_width); !fastest.empty()) out << fastest << '\n';
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
  print_sweep_summaries(sweep, out, verbose, width);
}

void report_tables::print_sweep_summaries(const std::vector<SweepSeries>& sweep, std::ostream& out, bool verbose,
                                          std::size_t width) {
  for (const SweepSeries& series : sweep) {
    out << "\nsweep summary: " << series.title << "\n" << wrapped(kSummaryLegend, std::min(width, kLineWidth)) << '\n'
        << (verbose ? "" : "each point's own tables: --verbose, --markdown or --json\n");
    for (const auto& [device, table] : summary_tables(series)) {
      out << device << '\n';
      Table fitted = table;
      fitted.line_width = std::min(fitted.line_width, width);
      print_table_console(fitted, out);
    }
  }
}

}  // namespace cc
