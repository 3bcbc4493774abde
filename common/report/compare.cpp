// compare.cpp: verdicts of a report against a baseline, and the side-by-side table of several reports.
#include "common/report/compare.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ostream.h>

namespace cc {

namespace {

constexpr std::size_t kDeviceWidth = 16;  // device names are cut to this in table cells

std::string shorten(const std::string& text, std::size_t limit) {
  return text.size() <= limit ? text : text.substr(0, limit - 2) + "..";
}

// A kernel median worth comparing: the run passed and was timed.
bool has_time(const RunRecord& run) {
  return run.status == Status::Ok && run.times.kernel_ms.samples > 0 && run.times.kernel_ms.median > 0;
}

// One table cell for a run's kernel time: the median, or why there is none.
std::string time_cell(const RunRecord* run) {
  if (!run) return "-";
  if (run->status == Status::Failed) return "FAILED";
  if (run->status == Status::Skipped) return "skipped";
  return has_time(*run) ? format_table_number(run->times.kernel_ms.median) : "-";
}

// Ratios to two decimals; past 100 (a CPU against a GPU) the decimals say nothing.
std::string ratio_cell(double ratio) {
  return std::isfinite(ratio) ? fmt::format("{:.{}f}", ratio, ratio < 100 ? 2 : 0) : "-";
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

Comparison judge(const RunRecord& baseline, const RunRecord& current, const CompareRule& rule) {
  Comparison c{baseline, current};
  const Status was = baseline.status, now = current.status;
  if (now == Status::Failed && was != Status::Failed) c.verdict = Verdict::StoppedValidating;
  else if (now == Status::Ok && was != Status::Ok) c.verdict = Verdict::NowValidating;
  else if (now == Status::Skipped && was != Status::Skipped) c.verdict = Verdict::NewlySkipped;
  else if (has_time(baseline) && has_time(current)) {
    const Stats &b = baseline.times.kernel_ms, &k = current.times.kernel_ms;
    c.ratio = k.median / b.median;
    const std::vector<double>&before = baseline.times.kernel_samples_ms, &after = current.times.kernel_samples_ms;
    if (before.empty() || after.empty()) {
      c.verdict = Verdict::Untested;
      return c;
    }
    c.p_value = mann_whitney_u(before, after).p_value;
    if (c.p_value < rule.significance) {
      if (k.median > b.median * (1 + rule.min_change)) c.verdict = Verdict::Slower;
      else if (b.median > k.median * (1 + rule.min_change)) c.verdict = Verdict::Faster;
    }
  }
  return c;
}

// p-values to two significant digits, small ones in exponent form.
std::string p_cell(double p) {
  if (!std::isfinite(p)) return "-";
  return p < 0.001 ? fmt::format("{:.1e}", p) : fmt::format("{:.2g}", p);
}

}  // namespace

RunIdentity identity_of(const RunRecord& r) {
  return {r.backend, r.device, r.variant, r.filter, r.width, r.height, r.channels, r.border, r.flip, r.pixel, r.memory};
}

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::Slower: return "slower";
    case Verdict::StoppedValidating: return "stopped validating";
    case Verdict::NewlySkipped: return "newly skipped";
    case Verdict::Missing: return "missing";
    case Verdict::Faster: return "faster";
    case Verdict::NowValidating: return "now validating";
    case Verdict::New: return "new";
    case Verdict::Unchanged: return "unchanged";
    case Verdict::Untested: return "untested (no raw samples)";
  }
  return "unknown";
}

bool is_regression(Verdict verdict) { return verdict == Verdict::Slower || verdict == Verdict::StoppedValidating; }

bool any_slower(const std::vector<Comparison>& comparisons) {
  return std::ranges::any_of(comparisons, [](const Comparison& c) { return c.verdict == Verdict::Slower; });
}

std::vector<Comparison> compare_reports(const Report& baseline, const Report& current, const CompareRule& rule) {
  std::vector<RunIdentity> baseline_ids;
  for (const RunRecord& run : baseline.runs) baseline_ids.push_back(identity_of(run));
  std::vector<bool> matched(baseline.runs.size(), false);

  std::vector<Comparison> comparisons;
  for (const RunRecord& run : current.runs) {
    const RunIdentity id = identity_of(run);
    std::size_t i = 0;
    while (i < baseline_ids.size() && (matched[i] || baseline_ids[i] != id)) ++i;
    if (i == baseline_ids.size()) {
      comparisons.push_back({std::nullopt, run, Verdict::New});
      continue;
    }
    matched[i] = true;
    comparisons.push_back(judge(baseline.runs[i], run, rule));
  }
  for (std::size_t i = 0; i < baseline.runs.size(); ++i)
    if (!matched[i]) comparisons.push_back({baseline.runs[i], std::nullopt, Verdict::Missing});
  return comparisons;
}

void print_comparison(const std::vector<Comparison>& comparisons, const CompareRule& rule, std::ostream& out) {
  if (comparisons.empty()) {
    out << "nothing to compare: neither report has runs\n";
    return;
  }
  const auto either = [](const Comparison& c) -> const RunRecord& { return c.current ? *c.current : *c.baseline; };
  // One table per problem, as in the report, in order of first appearance.
  std::vector<std::string> titles;
  for (const Comparison& c : comparisons)
    if (std::find(titles.begin(), titles.end(), problem_title(either(c))) == titles.end())
      titles.push_back(problem_title(either(c)));

  out << fmt::format(
      "kernel median in ms; ratio = current / baseline; p: Mann-Whitney U test of the two runs' samples; slower or "
      "faster when p < {} and the medians differ by more than {}%\n",
      rule.significance, 100 * rule.min_change);
  for (const std::string& title : titles) {
    std::vector<const Comparison*> group;
    for (const Comparison& c : comparisons)
      if (problem_title(either(c)) == title) group.push_back(&c);
    // The memory column only when it tells rows apart (pinned and pageable runs of one problem).
    bool mixed_memory = false;
    for (const Comparison* c : group) mixed_memory |= either(*c).memory != either(*group.front()).memory;

    std::vector<std::vector<std::string>> rows = {{"", "backend", "device", "variant"}};
    if (mixed_memory) rows[0].push_back("memory");
    for (const char* name : {"baseline", "current", "ratio", "p", "verdict"}) rows[0].push_back(name);
    std::vector<bool> numeric(rows[0].size(), false);
    std::fill(numeric.end() - 5, numeric.end() - 1, true);  // the ms, ratio and p columns
    for (const Comparison* c : group) {
      const RunRecord& r = either(*c);
      // "!" in front of a regression, so the lines to read first stand out (and grep finds them).
      std::vector<std::string> row = {is_regression(c->verdict) ? "!" : "", r.backend, shorten(r.device, kDeviceWidth),
                                      r.variant};
      if (mixed_memory) row.push_back(r.memory);
      row.push_back(time_cell(c->baseline ? &*c->baseline : nullptr));
      row.push_back(time_cell(c->current ? &*c->current : nullptr));
      row.push_back(ratio_cell(c->ratio));
      row.push_back(p_cell(c->p_value));
      row.push_back(std::string(to_string(c->verdict)));
      rows.push_back(std::move(row));
    }
    out << '\n' << title << '\n';
    print_aligned(rows, numeric, out);
  }

  std::array<int, 9> counts{};
  for (const Comparison& c : comparisons) ++counts[static_cast<std::size_t>(c.verdict)];
  std::vector<std::string> summary;
  for (std::size_t v = 0; v < counts.size(); ++v)
    if (counts[v] > 0) summary.push_back(fmt::format("{} {}", counts[v], to_string(static_cast<Verdict>(v))));
  out << fmt::format("\n{}\n", fmt::join(summary, ", "));
}

void print_merged(const std::vector<Report>& reports, const std::vector<std::string>& labels, std::ostream& out) {
  if (labels.size() != reports.size())
    throw std::invalid_argument(fmt::format("print_merged: {} labels for {} reports", labels.size(), reports.size()));

  for (std::size_t i = 0; i < reports.size(); ++i) {
    const auto& environment = reports[i].environment;
    const auto host = std::find_if(environment.begin(), environment.end(), [](const auto& e) { return e.first == "host"; });
    out << fmt::format("{}: host {}\n", labels[i], host == environment.end() ? "unknown" : host->second);
    for (const DeviceInfo& d : reports[i].devices) {
      std::string peaks;
      if (std::isfinite(d.peaks.copy_gb_per_s) && std::isfinite(d.peaks.fma_gflop_per_s))
        peaks = fmt::format("  (copy {} GB/s, FMA {} GFLOP/s)", format_table_number(d.peaks.copy_gb_per_s),
                            format_table_number(d.peaks.fma_gflop_per_s));
      out << fmt::format("  {}  {}{}\n", d.id, d.name, peaks);
    }
  }

  // A problem: what the tables group by. A column: one backend on one device of one report.
  using ProblemKey = std::tuple<std::string, int, int, int, std::string, bool>;
  using ColumnKey = std::tuple<std::size_t, std::string, std::string, std::string>;
  const auto problem_of = [](const RunRecord& r) {
    return ProblemKey{r.filter, r.width, r.height, r.channels, r.border, r.flip};
  };
  const auto column_of = [](std::size_t report, const RunRecord& r) {
    return ColumnKey{report, r.backend, r.device, r.memory};
  };
  const auto add_once = [](auto& list, const auto& item) {
    if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
  };

  std::vector<std::pair<ProblemKey, const RunRecord*>> problems;  // the key and its first run, for the title
  for (const Report& report : reports)
    for (const RunRecord& run : report.runs)
      if (std::none_of(problems.begin(), problems.end(), [&](const auto& p) { return p.first == problem_of(run); }))
        problems.emplace_back(problem_of(run), &run);

  for (const auto& entry : problems) {
    // Named, not a structured binding: the lambda below captures it (clang before 16 rejects that).
    const ProblemKey& problem = entry.first;
    const RunRecord* first_run = entry.second;
    std::vector<ColumnKey> columns;
    std::vector<std::string> variants;
    for (std::size_t i = 0; i < reports.size(); ++i)
      for (const RunRecord& run : reports[i].runs)
        if (problem_of(run) == problem) add_once(columns, column_of(i, run)), add_once(variants, run.variant);
    // The first run of each (column, variant) fills the cell.
    const auto cell_run = [&](const ColumnKey& column, const std::string& variant) -> const RunRecord* {
      for (const RunRecord& run : reports[std::get<0>(column)].runs)
        if (problem_of(run) == problem && column_of(std::get<0>(column), run) == column && run.variant == variant)
          return &run;
      return nullptr;
    };

    bool mixed_memory = false;
    for (const ColumnKey& column : columns) mixed_memory |= std::get<3>(column) != std::get<3>(columns.front());
    std::vector<std::vector<std::string>> rows(mixed_memory ? 4 : 3);
    rows[0] = {"variant"}, rows[1] = {""}, rows[2] = {""};
    if (mixed_memory) rows[3] = {""};
    for (const auto& [report, backend, device, memory] : columns) {
      rows[0].push_back(labels[report]);
      rows[1].push_back(backend);
      rows[2].push_back(shorten(device, kDeviceWidth));
      if (mixed_memory) rows[3].push_back(memory);
    }
    const auto& [first_report, first_backend, first_device, first_memory] = columns.front();
    std::vector<std::vector<std::string>> ratio_rows = {{fmt::format(
        "ratio to {} {} {} (below 1: faster)", labels[first_report], first_backend, shorten(first_device, kDeviceWidth))}};
    for (const std::string& variant : variants) {
      std::vector<std::string> times = {variant}, ratios = {variant};
      const RunRecord* first = cell_run(columns.front(), variant);
      bool any_ratio = false;
      for (const ColumnKey& column : columns) {
        const RunRecord* run = cell_run(column, variant);
        times.push_back(time_cell(run));
        const bool both_timed = first && run && has_time(*first) && has_time(*run);
        ratios.push_back(both_timed ? ratio_cell(run->times.kernel_ms.median / first->times.kernel_ms.median) : "-");
        any_ratio |= both_timed && run != first;
      }
      rows.push_back(std::move(times));
      if (any_ratio) ratio_rows.push_back(std::move(ratios));
    }

    // The ratio lines below the times, in the same columns, when any column has a ratio to show.
    if (ratio_rows.size() > 1) rows.insert(rows.end(), ratio_rows.begin(), ratio_rows.end());
    std::vector<bool> numeric(columns.size() + 1, true);
    numeric[0] = false;
    out << '\n' << problem_title(*first_run) << "  (kernel median, ms)\n";
    print_aligned(rows, numeric, out);
  }
}

}  // namespace cc
