// tables.h: the report's table engine, shared by the console and markdown writers (console_writer.cpp, markdown_writer.cpp): cell formats, the tables of each problem, the sweep summary.
#pragma once

#include <algorithm>
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/report/record.h"
#include "common/report/report.h"

namespace cc::report_tables {

inline constexpr std::size_t kDeviceWidth = 16;      // a device id or name in a run's row
inline constexpr std::size_t kDeviceNameWidth = 48;  // a device's name in the device block (markdown, --verbose)
inline constexpr std::size_t kCompactNameWidth = 30; // the same in the console's compact view
// Console rows are cut to this, reasons included (an 80-column terminal shows a compact
// table whole; the compact kernel table leaves about 15 columns for two more short statistics).
inline constexpr std::size_t kLineWidth = 100;
inline constexpr std::size_t kVerboseLineWidth = 120;  // --verbose: every column, wider rows

// Columns a terminal shows for `text`: UTF-8 continuation bytes take none ("auto→fast" is 9).
std::size_t display_width(std::string_view text);
// Greedy word wrap to `width` columns, the first line starting at column `first_column`, the others
// indented by `indent` spaces; a word longer than a line stands alone on its own.
std::string wrap_words(std::string_view text, std::size_t width, std::size_t indent, std::size_t first_column = 0);
// `text` padded with spaces to `width` columns, on the left when `right`.
std::string pad(const std::string& text, std::size_t width, bool right);
// "auto→fast": an auto run names the variant it ran (auto_pick, record.h).
std::string variant_label(const RunRecord& r);
// Numbers to about four significant digits, so columns stay narrow; "-" for not measured.
std::string short_number(double v);
// Percentages: whole numbers, a decimal below 10 so a small share does not print as 0.
std::string short_percent(double v);
// `text` cut to `limit` characters, ".." marking the cut.
std::string shorten(const std::string& text, std::size_t limit);
// f32 runs say nothing of their pixel type (the default); u8 runs get tables of their own.
std::string pixel_note(const std::string& pixel);
// The title of a record's problem: its filter, shape, border rule... (a table's heading).
std::string heading(const RunRecord& r);
std::string heading(const StreamRecord& s);

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

// The device block: what each device is and the ceilings measured on it, "-" for a device that ran nothing.
Table make_device_table(const std::vector<DeviceInfo>& devices, Detail detail);
// Whether runs used both pinned and pageable host memory (the CPU's none does not count).
bool mixed_memories(const std::vector<const RunRecord*>& records);
// The kernel table of one group; `stop_column`: the rule that stopped each run's samples.
Table make_table(const Group& group, Detail detail, bool stop_column);
// Setup and the transfers, for the runs that measured any.
Table make_transfer_table(const Group& group, Detail detail);
// One row per --stream run.
Table make_stream_table(const Grouped<StreamRecord>& group, Detail detail);

// What the full view's rate columns count (docs/json-schema.md): GFLOP/s is the direct 2D sum's work,
// which a separable or fft variant does not do, so theirs can read above the FMA peak.
inline constexpr const char* kRateLegend =
    "MPix/s: pixels / kernel median; GB/s: input read once + output written once; GFLOP/s: 2 x the 2D\n"
    "filter's taps x pixels x channels, a direct sum's work (separable, fft do less; % bound: their own,\n"
    "% direct: a direct sum's)";
inline constexpr const char* kStreamLegend =
    "ms/frame overlapped; serial: upload, filter, download in turn; floor: max(h2d, d2h), the host-device link "
    "(PCIe on a GPU, memory on a CPU device)";
inline constexpr const char* kTransferLegend =
    "setup and transfers (ms); reuse: a second filter on the image on the device, launch + download";

// One line per variant that two or more runs of the group completed, kernel medians over a common
// denominator. `device_width`: the console cuts device names to a column; markdown keeps them whole.
std::vector<std::string> ratio_lines(const Group& group, std::size_t device_width = kDeviceWidth);

// "fastest: separable on opencl:0:0, 0.391 ms (13% noise); lowrank 1.00x (within noise), fast 9.62x": the
// group's timed runs by kernel median, each after the first as a multiple of it, "within noise" where
// the two medians differ by less than 3 x their combined noise (the --compare rule). "" when none was timed.
// Cut to `width` columns at a whole entry, ", ..." marking the cut.
std::string fastest_line(const Group& group, std::size_t width = std::string::npos);

// The console's one line (100 columns) on its columns; the markdown report says it at length at each table.
inline constexpr const char* kColumnLegend =
    "noise: 1.4826 MAD/median of n samples; % bound: own work vs peak, % direct: 2D sum's; max err vs ref";

// "cuda: not run: no CUDA driver installed", once per backend, in report order.
std::vector<std::string> unavailable_lines(const Report& report);
// The runs the tables show: every run that reached a device.
std::vector<RunRecord> shown_runs(const Report& report);

// ---- the sweep summary (sweep_summary.cpp) -------------------------------------------------------

// What a sweep holds fixed (the filter without its radius, the border, the pixel type...); its points
// are the radii and sizes that vary within it.
struct SweepSeries {
  std::string title;
  std::vector<const RunRecord*> records;
  std::vector<std::string> points;  // "r=3", "2048x2048", "r=3 2048x2048", in order of first appearance
  bool radii = false, sizes = false;
};

// The series of a sweep; empty when no series has two points (no sweep: the per-problem tables say all).
std::vector<SweepSeries> sweep_series(const std::vector<RunRecord>& runs);
// One table per API and device of a series: a row per point, a column per variant.
std::vector<std::pair<std::string, Table>> summary_tables(const SweepSeries& series);

// The console's summary of each series (console_writer.cpp): a sweep's own report, and merge's of a
// merged sweep.
void print_sweep_summaries(const std::vector<SweepSeries>& sweep, std::ostream& out, bool verbose, std::size_t width);

inline constexpr const char* kSummaryLegend = "kernel MPix/s (median launch); skip: not run here, FAIL: failed validation";

}  // namespace cc::report_tables
