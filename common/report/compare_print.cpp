// compare_print.cpp: the console tables of --compare (print_comparison) and of `convcompare merge` (print_merged).
#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "common/domain/variants.h"
#include "common/report/compare.h"
#include "common/report/compare_cells.h"
#include "common/report/tables.h"

namespace cc {

using compare_cells::has_time;
using compare_cells::percent_text;
using compare_cells::ratio_cell;

namespace {

constexpr std::size_t kDeviceWidth = 16;  // device names are cut to this in table cells
constexpr std::size_t kCompareWidth = 80;  // --compare's table, legend and lines: an 80-column terminal shows them whole

std::string shorten(const std::string& text, std::size_t limit) {
  return text.size() <= limit ? text : text.substr(0, limit - 2) + "..";
}

// One table cell for a run's kernel time: the median, or why there is none.
std::string time_cell(const RunRecord* run) {
  if (!run) return "-";
  if (run->status == Status::Failed) return "FAILED";
  if (run->status == Status::Skipped) return "skipped";
  if (!run->times.untimed.empty()) return "untimed";  // the reason follows the table (print_merged)
  return has_time(*run) ? format_table_number(run->times.kernel_ms.median) : "-";
}

// The problem a run solved, as a table heading.
std::string problem_title(const RunRecord& r) {
  return fmt::format("{}  {}x{}x{}  border {}{}", r.filter, r.width, r.height, r.channels, r.border,
                     r.flip ? "  flipped" : "");
}

// Rows of cells in aligned columns, two spaces apart; numeric columns right-aligned. A row of one
// cell is a caption between rows, printed as it is and left out of the column widths.
void print_aligned(const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& numeric,
                   std::ostream& out) {
  std::vector<std::size_t> widths(numeric.size(), 0);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size() && row.size() > 1; ++c) widths[c] = std::max(widths[c], row[c].size());
  for (const auto& row : rows) {
    if (row.size() == 1) {
      out << row[0] << '\n';
      continue;
    }
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c > 0) line += "  ";
      line += numeric[c] ? fmt::format("{:>{}}", row[c], widths[c]) : fmt::format("{:<{}}", row[c], widths[c]);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out << line << '\n';
  }
}

// p-values to two significant digits, small ones in exponent form.
std::string p_cell(double p) {
  if (!std::isfinite(p)) return "-";
  return p < 0.001 ? fmt::format("{:.1e}", p) : fmt::format("{:.2g}", p);
}

// Within kCompareWidth columns, so that a terminal of 80 does not wrap it.
std::string comparison_legend(const CompareRule& rule) {
  return fmt::format(
      "kernel median in ms; ratio = current / baseline; p: Mann-Whitney U test of\n"
      "the two runs' samples (outliers dropped); needs: the change a row can see,\n"
      "{}% or {} x the runs' combined noise if larger (a GPU's: its medians'); slower\n"
      "or faster when p < {} and the medians moved past it; unchanged when they did\n"
      "not and needs is {}%; inconclusive when the gate cannot tell (the reason below)\n",
      100 * rule.min_change, rule.noise_factor, rule.significance, 100 * rule.min_change);
}

const RunRecord& either_run(const Comparison& c) { return c.current ? *c.current : *c.baseline; }

// One problem's comparisons as a table, each inconclusive row's reason below it.
void print_comparison_table(const std::string& title, const std::vector<const Comparison*>& group, std::ostream& out) {
  // The memory column only when it tells rows apart (pinned and pageable runs of one problem: a CPU
  // run has none beside an OpenCL one's "pinned", which tells nothing). The backend column only when
  // a device id does not name its own ("cpu", "opencl:0:0" do). Both within 80 columns.
  bool pinned = false, pageable = false, backend_in_device = true;
  for (const Comparison* c : group) {
    const RunRecord& r = either_run(*c);
    pinned |= r.memory == "pinned", pageable |= r.memory == "pageable";
    backend_in_device &= r.device.substr(r.device.find('/') + 1).starts_with(r.backend);
  }
  const bool mixed_memory = pinned && pageable;

  std::vector<std::vector<std::string>> rows = {{""}};
  if (!backend_in_device) rows[0].push_back("backend");
  rows[0].insert(rows[0].end(), {"device", "variant"});
  if (mixed_memory) rows[0].push_back("memory");
  for (const char* name : {"baseline", "current", "ratio", "p", "needs", "verdict"}) rows[0].push_back(name);
  std::vector<bool> numeric(rows[0].size(), false);
  std::fill(numeric.end() - 6, numeric.end() - 1, true);  // the ms, ratio, p and needs columns
  std::vector<std::string> reasons;  // the inconclusive rows', below the table
  for (const Comparison* c : group) {
    const RunRecord& r = either_run(*c);
    // "!" in front of a regression, "?" of a run too few samples could decide, so the lines to read
    // first stand out (and grep finds them).
    const char* mark = is_regression(c->verdict) ? "!" : c->verdict == Verdict::Inconclusive ? "?" : "";
    std::vector<std::string> row = {mark};
    if (!backend_in_device) row.push_back(r.backend);
    row.insert(row.end(), {shorten(r.device, kDeviceWidth), r.variant});
    if (mixed_memory) row.push_back(r.memory);
    row.push_back(time_cell(c->baseline ? &*c->baseline : nullptr));
    row.push_back(time_cell(c->current ? &*c->current : nullptr));
    row.push_back(ratio_cell(c->ratio));
    row.push_back(p_cell(c->p_value));
    row.push_back(std::isfinite(c->threshold) ? percent_text(c->threshold) : "-");
    row.push_back(std::string(to_string(c->verdict)));
    rows.push_back(std::move(row));
    if (!c->reason.empty())
      reasons.push_back(fmt::format("? {} {}: {}", shorten(r.device, kDeviceWidth), r.variant, c->reason));
  }
  out << '\n' << title << '\n';
  print_aligned(rows, numeric, out);
  // Reasons name devices and figures of any length: wrapped, so that each line fits 80 columns too.
  for (const std::string& reason : reasons) out << report_tables::wrap_words(reason, kCompareWidth, 4) << '\n';
}

// "2 slower, 1 stopped validating, 40 unchanged", then each machine change. The rows a change touches
// are inconclusive, not slower: the line says why, one change a line, so that each fits 80 columns.
void print_verdict_line(const std::vector<Comparison>& comparisons, const CompareRule& rule,
                        const std::vector<MachineChange>& machine, std::ostream& out) {
  std::array<int, kVerdictCount> counts{};
  for (const Comparison& c : comparisons) ++counts[static_cast<std::size_t>(c.verdict)];
  std::vector<std::string> summary;
  for (std::size_t v = 0; v < counts.size(); ++v)
    if (counts[v] > 0) summary.push_back(fmt::format("{} {}", counts[v], to_string(static_cast<Verdict>(v))));
  out << fmt::format("\n{}", fmt::join(summary, ", "));
  if (!machine.empty()) {
    out << fmt::format(";\nthe machine changed beyond {}% (peaks, clocks) or {} load per CPU,\nso the rows it "
                       "touches are inconclusive, not slower or faster:",
                       100 * rule.machine_tolerance, rule.load_tolerance);
    for (const MachineChange& change : machine) out << "\n  " << change.what;
  }
  out << '\n';
}

// One report's host and devices (with their peaks), and its backends with no device, said once rather
// than as a column of "skipped" in every table.
void print_report_devices(const Report& report, const std::string& label, std::ostream& out) {
  const auto& environment = report.environment;
  const auto host = std::find_if(environment.begin(), environment.end(), [](const auto& e) { return e.first == "host"; });
  out << fmt::format("{}: host {}\n", label, host == environment.end() ? "unknown" : host->second);
  for (const DeviceInfo& d : report.devices) {
    std::string peaks;
    if (std::isfinite(d.peaks.copy_gb_per_s) && std::isfinite(d.peaks.fma_gflop_per_s))
      peaks = fmt::format("  (copy {} GB/s, FMA {} GFLOP/s)", format_table_number(d.peaks.copy_gb_per_s),
                          format_table_number(d.peaks.fma_gflop_per_s));
    out << fmt::format("  {}  {}{}\n", d.id, shorten(d.name, 48), peaks);  // within 100 columns
  }
  std::vector<std::string> not_run;
  for (const RunRecord& run : report.runs)
    if (run.device == "-")
      if (std::string line = fmt::format("  {}: not run: {}", run.backend, run.reason);
          std::ranges::find(not_run, line) == not_run.end())
        not_run.push_back(std::move(line));
  for (const std::string& line : not_run) out << line << '\n';
}

// A problem: what the merged tables group by. A column: one backend on one device of one report.
using ProblemKey = std::tuple<std::string, int, int, int, std::string, bool>;
using ColumnKey = std::tuple<std::size_t, std::string, std::string, std::string>;

ProblemKey problem_of(const RunRecord& r) { return ProblemKey{r.filter, r.width, r.height, r.channels, r.border, r.flip}; }
ColumnKey column_of(std::size_t report, const RunRecord& r) { return ColumnKey{report, r.backend, r.device, r.memory}; }

template <typename List, typename Item>
void add_once(List& list, const Item& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

// One problem's table of print_merged: a row per variant, a column per (report, backend, device, memory).
class MergedProblemTable {
 public:
  MergedProblemTable(const std::vector<Report>& reports, const std::vector<std::string>& labels, ProblemKey problem)
      : reports_(reports), labels_(labels), problem_(std::move(problem)) {
    for (std::size_t i = 0; i < reports.size(); ++i)
      for (const RunRecord& run : reports[i].runs)
        if (problem_of(run) == problem_ && run.device != "-") add_once(columns_, column_of(i, run)), add_once(variants_, run.variant);
    // In the table's order (common/domain/variants.h), as every report's own tables list them: first
    // seen put the first report's CPU variants before OpenCL's "global". Unknown names last.
    std::ranges::stable_sort(variants_, {}, [](const std::string& name) {
      const VariantTraits* traits = find_variant(name);
      return traits ? traits - all_variants().data() : std::ssize(all_variants());
    });
  }

  // Nothing to print when only backends with no device ran the problem.
  bool empty() const { return columns_.empty(); }

  void print(const RunRecord& first_run, std::ostream& out) const {
    std::vector<std::vector<std::string>> rows = header_rows();
    std::vector<std::vector<std::string>> ratio_rows = {
        {fmt::format("ratio to {} on the matching backend and device (below 1: faster)", labels_[0])}};
    for (const std::string& variant : variants_) add_variant_rows(variant, rows, ratio_rows);
    // The ratio lines below the times, in the same columns, when any column has a ratio to show.
    if (ratio_rows.size() > 1) rows.insert(rows.end(), ratio_rows.begin(), ratio_rows.end());
    std::vector<bool> numeric(columns_.size() + 1, true);
    numeric[0] = false;
    out << '\n' << problem_title(first_run) << "  (kernel median, ms)\n";
    print_aligned(rows, numeric, out);
    print_untimed_notes(out);
  }

 private:
  // The first run of each (column, variant) fills the cell.
  const RunRecord* cell_run(const ColumnKey& column, const std::string& variant) const {
    for (const RunRecord& run : reports_[std::get<0>(column)].runs)
      if (problem_of(run) == problem_ && column_of(std::get<0>(column), run) == column && run.variant == variant)
        return &run;
    return nullptr;
  }

  // Each later report's column against the first report's of the same backend, device and memory
  // (two runs of one machine, or two machines' "cuda:0"), else of the same backend and memory where the
  // first report has one such column (one OpenCL device on each machine); none against itself.
  const ColumnKey* base_of(const ColumnKey& column) const {
    const auto& [report, backend, device, memory] = column;
    if (report == 0) return nullptr;
    const ColumnKey* alike = nullptr;
    int alike_count = 0;
    for (const ColumnKey& other : columns_) {
      if (std::get<0>(other) != 0 || std::get<1>(other) != backend || std::get<3>(other) != memory) continue;
      if (std::get<2>(other) == device) return &other;
      alike = &other, ++alike_count;
    }
    return alike_count == 1 ? alike : nullptr;
  }

  // The report's label, backend, device and (where the columns differ in it) memory, a row each.
  std::vector<std::vector<std::string>> header_rows() const {
    bool mixed_memory = false;
    for (const ColumnKey& column : columns_) mixed_memory |= std::get<3>(column) != std::get<3>(columns_.front());
    std::vector<std::vector<std::string>> rows(mixed_memory ? 4 : 3);
    rows[0] = {"variant"}, rows[1] = {""}, rows[2] = {""};
    if (mixed_memory) rows[3] = {""};
    for (const auto& [report, backend, device, memory] : columns_) {
      rows[0].push_back(labels_[report]);
      rows[1].push_back(backend);
      rows[2].push_back(shorten(device, kDeviceWidth));
      if (mixed_memory) rows[3].push_back(memory);
    }
    return rows;
  }

  // A variant's times, and its ratios to the first report where any column has one.
  void add_variant_rows(const std::string& variant, std::vector<std::vector<std::string>>& rows,
                        std::vector<std::vector<std::string>>& ratio_rows) const {
    std::vector<std::string> times = {variant}, ratios = {variant};
    bool any_ratio = false;
    for (const ColumnKey& column : columns_) {
      const RunRecord* run = cell_run(column, variant);
      // The median and its noise (1.4826 x MAD / median): two runs' medians differ within it by chance.
      std::string time = time_cell(run);
      if (run && has_time(*run) && run->times.untimed.empty() && std::isfinite(run->times.kernel_ms.noise_percent))
        time += fmt::format(" ±{:.{}f}%", run->times.kernel_ms.noise_percent,
                            run->times.kernel_ms.noise_percent < 10 ? 1 : 0);
      times.push_back(std::move(time));
      const ColumnKey* base_column = base_of(column);
      const RunRecord* base = base_column ? cell_run(*base_column, variant) : nullptr;
      const bool both_timed = base && run && has_time(*base) && has_time(*run) && base->times.untimed.empty() &&
                              run->times.untimed.empty();
      ratios.push_back(both_timed ? ratio_cell(run->times.kernel_ms.median / base->times.kernel_ms.median) : "-");
      any_ratio |= both_timed;
    }
    rows.push_back(std::move(times));
    if (any_ratio) ratio_rows.push_back(std::move(ratios));
  }

  // Why a cell reads "untimed" (fake profiling timestamps, as Rusticl's), once per column and reason.
  void print_untimed_notes(std::ostream& out) const {
    std::vector<std::string> notes;
    for (const ColumnKey& column : columns_)
      for (const std::string& variant : variants_)
        if (const RunRecord* run = cell_run(column, variant); run && run->status != Status::Skipped && !run->times.untimed.empty())
          if (std::string note = fmt::format("untimed in {} {} {}: {}", labels_[std::get<0>(column)], std::get<1>(column),
                                             shorten(std::get<2>(column), kDeviceWidth), run->times.untimed);
              std::ranges::find(notes, note) == notes.end())
            notes.push_back(std::move(note));
    for (const std::string& note : notes) out << note << '\n';
  }

  const std::vector<Report>& reports_;
  const std::vector<std::string>& labels_;
  const ProblemKey problem_;
  std::vector<ColumnKey> columns_;
  std::vector<std::string> variants_;
};

}  // namespace

void print_comparison(const std::vector<Comparison>& comparisons, const CompareRule& rule, std::ostream& out,
                      const std::vector<MachineChange>& machine) {
  if (comparisons.empty()) {
    out << "nothing to compare: neither report has runs\n";
    return;
  }
  // One table per problem, as in the report, in order of first appearance.
  std::vector<std::string> titles;
  for (const Comparison& c : comparisons)
    if (std::find(titles.begin(), titles.end(), problem_title(either_run(c))) == titles.end())
      titles.push_back(problem_title(either_run(c)));
  out << comparison_legend(rule);
  for (const std::string& title : titles) {
    std::vector<const Comparison*> group;
    for (const Comparison& c : comparisons)
      if (problem_title(either_run(c)) == title) group.push_back(&c);
    print_comparison_table(title, group, out);
  }
  print_verdict_line(comparisons, rule, machine, out);
}

void print_merged(const std::vector<Report>& reports, const std::vector<std::string>& labels, std::ostream& out,
                  bool per_problem_tables) {
  if (labels.size() != reports.size())
    throw std::invalid_argument(fmt::format("print_merged: {} labels for {} reports", labels.size(), reports.size()));
  for (std::size_t i = 0; i < reports.size(); ++i) print_report_devices(reports[i], labels[i], out);
  if (!per_problem_tables) return;

  std::vector<std::pair<ProblemKey, const RunRecord*>> problems;  // the key and its first run, for the title
  for (const Report& report : reports)
    for (const RunRecord& run : report.runs)
      if (std::none_of(problems.begin(), problems.end(), [&](const auto& p) { return p.first == problem_of(run); }))
        problems.emplace_back(problem_of(run), &run);
  for (const auto& [problem, first_run] : problems)
    if (const MergedProblemTable table(reports, labels, problem); !table.empty()) table.print(*first_run, out);
}

}  // namespace cc
