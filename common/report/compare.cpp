// compare.cpp: verdicts of a report against a baseline, and the side-by-side table of several reports.
#include "common/report/compare.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "common/domain/error.h"
#include "common/domain/variants.h"
#include "common/report/tables.h"

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
  if (!run->times.untimed.empty()) return "untimed";  // the reason follows the table (print_merged)
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

// The two runs' noise as a fraction, combined as independent spreads; 0 where a run has none measured.
double combined_noise(const Stats& baseline, const Stats& current) {
  const auto fraction = [](double percent) { return std::isfinite(percent) ? percent / 100 : 0.0; };
  return std::hypot(fraction(baseline.noise_percent), fraction(current.noise_percent));
}

// A fraction as a whole percent for people: 0.37 -> "37%", 0.054 -> "5.4%".
std::string percent_text(double fraction) {
  const double percent = 100 * fraction;
  return fmt::format("{:.{}f}%", percent, percent < 10 ? 1 : 0);
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
    if (baseline.times.kernel_samples_ms.empty() || current.times.kernel_samples_ms.empty()) {
      c.verdict = Verdict::Untested;
      return c;
    }
    const std::vector<double> before = without_outliers(baseline.times.kernel_samples_ms);
    const std::vector<double> after = without_outliers(current.times.kernel_samples_ms);
    const UTest test = mann_whitney_u(before, after);
    c.p_value = test.p_value;
    // U counts the baseline samples above current ones: under half the pairs, the current run's
    // samples tend to be the larger (slower). A verdict needs the samples and the medians to agree.
    const bool samples_slower = test.u < static_cast<double>(before.size() * after.size()) / 2;
    const double noise = combined_noise(b, k);
    c.threshold = std::max(rule.min_change, rule.noise_factor * noise);
    const bool moved_up = k.median > b.median * (1 + c.threshold);
    const bool moved_down = b.median > k.median * (1 + c.threshold);
    const auto inconclusive = [&](std::string reason) {
      c.verdict = Verdict::Inconclusive;
      c.reason = std::move(reason);
    };
    if (!(smallest_u_test_p(before.size(), after.size()) < rule.significance)) {
      inconclusive(fmt::format("{} against {} samples: no p under {} is possible", before.size(), after.size(),
                               rule.significance));
    } else if (!moved_up && !moved_down) {
      // Unchanged only when the threshold is what the user asked to see; a noisier pair hides changes under it.
      if (c.threshold > rule.min_change)
        inconclusive(fmt::format("noise {}: can only see changes over {}", percent_text(noise), percent_text(c.threshold)));
    } else if (!(c.p_value < rule.significance)) {
      inconclusive(fmt::format("the median moved {}, but the samples overlap (p = {:.2g})", percent_text(std::fabs(c.ratio - 1)),
                               c.p_value));
    } else if (moved_up != samples_slower) {
      inconclusive("the medians and the samples disagree on the direction");
    } else {
      c.verdict = moved_up ? Verdict::Slower : Verdict::Faster;
    }
  }
  return c;
}

// Whether a device's kernels run on the host's CPUs, so that the host's load and clock move them.
bool runs_on_host(const DeviceInfo& device) {
  if (device.backend == "cpu") return true;
  const auto type = std::ranges::find(device.properties, std::string("type"), &std::pair<std::string, std::string>::first);
  return type != device.properties.end() && type->second == "CPU";
}

// p-values to two significant digits, small ones in exponent form.
std::string p_cell(double p) {
  if (!std::isfinite(p)) return "-";
  return p < 0.001 ? fmt::format("{:.1e}", p) : fmt::format("{:.2g}", p);
}

}  // namespace

double compare_noise_target_percent(const CompareRule& rule) {
  return rule.noise_factor > 0 ? 100 * rule.min_change / (rule.noise_factor * std::sqrt(2.0)) : 0;
}

std::vector<MachineChange> machine_changes(const Report& baseline, const Report& current, const CompareRule& rule) {
  std::vector<MachineChange> changes;
  // A measured figure beyond the tolerance, either way: both must be known to tell.
  const auto moved = [&](double before, double after) {
    return std::isfinite(before) && std::isfinite(after) && before > 0 && after > 0 &&
           std::max(before, after) > std::min(before, after) * (1 + rule.machine_tolerance);
  };
  const auto figure = [](double before, double after, std::string_view unit) {
    return fmt::format("{} -> {} {} ({:+.0f}%)", format_table_number(before), format_table_number(after), unit,
                       100 * (after / before - 1));
  };
  const HostState &was = baseline.host, &now = current.host;
  // The host's own changes only where a device of this run computes on its CPUs (a GPU job's kernels
  // do not feel the host's load).
  if (std::ranges::any_of(current.devices, runs_on_host)) {
    if (was.cpus > 0 && now.cpus > 0 && was.cpus != now.cpus)
      changes.push_back({"", fmt::format("host CPUs {} -> {}", was.cpus, now.cpus)});
    if (moved(was.cpu_mhz, now.cpu_mhz)) changes.push_back({"", "host CPU clock " + figure(was.cpu_mhz, now.cpu_mhz, "MHz")});
    if (std::isfinite(was.load_average) && std::isfinite(now.load_average) && now.cpus > 0 &&
        std::fabs(now.load_average - was.load_average) / now.cpus > rule.load_tolerance)
      changes.push_back({"", fmt::format("host load average {:.2f} -> {:.2f} on {} CPUs", was.load_average,
                                         now.load_average, now.cpus)});
  }
  for (const DeviceInfo& device : current.devices) {
    const auto before = std::ranges::find(baseline.devices, device.id, &DeviceInfo::id);
    if (before == baseline.devices.end()) continue;  // its rows are new: nothing to compare against
    if (before->name != device.name)
      changes.push_back({device.id, fmt::format("{} is now '{}', was '{}'", device.id, device.name, before->name)});
    if (moved(before->peaks.copy_gb_per_s, device.peaks.copy_gb_per_s))
      changes.push_back({device.id, fmt::format("{} copy peak {}", device.id,
                                                figure(before->peaks.copy_gb_per_s, device.peaks.copy_gb_per_s, "GB/s"))});
    if (moved(before->peaks.fma_gflop_per_s, device.peaks.fma_gflop_per_s))
      changes.push_back({device.id, fmt::format("{} FMA peak {}", device.id,
                                                figure(before->peaks.fma_gflop_per_s, device.peaks.fma_gflop_per_s, "GFLOP/s"))});
    // Driver, runtime and platform versions, and the clocks the API reports (text: "1980 MHz").
    for (const auto& [name, value] : device.properties) {
      if (name.find("version") == std::string::npos && name.find("clock") == std::string::npos) continue;
      const auto old = std::ranges::find(before->properties, name, &std::pair<std::string, std::string>::first);
      if (old != before->properties.end() && old->second != value)
        changes.push_back({device.id, fmt::format("{} {} '{}' -> '{}'", device.id, name, old->second, value)});
    }
  }
  return changes;
}

RunIdentity identity_of(const RunRecord& r) {
  return {r.backend, r.device, r.variant, r.filter, r.width, r.height, r.channels, r.border, r.flip, r.pixel, r.memory};
}

std::string_view to_string(Verdict verdict) {
  switch (verdict) {
    case Verdict::Slower: return "slower";
    case Verdict::StoppedValidating: return "stopped validating";
    case Verdict::NewlySkipped: return "newly skipped";
    case Verdict::Missing: return "missing";
    case Verdict::Inconclusive: return "inconclusive";
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

bool any_inconclusive(const std::vector<Comparison>& comparisons) {
  return std::ranges::any_of(comparisons, [](const Comparison& c) { return c.verdict == Verdict::Inconclusive; });
}

int compare_sample_floor(const Report& baseline, const CompareRule& rule) {
  constexpr int kMostSamples = 100;
  std::size_t fewest = 0;
  for (const RunRecord& run : baseline.runs)
    if (has_time(run) && !run.times.kernel_samples_ms.empty() && (fewest == 0 || run.times.kernel_samples_ms.size() < fewest))
      fewest = run.times.kernel_samples_ms.size();
  if (fewest == 0) return 0;
  // Planted ranks: the baseline's samples all below the current's but one pair swapped.
  for (int n = 2; n <= kMostSamples; ++n) {
    std::vector<double> before(fewest), after(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < fewest; ++i) before[i] = static_cast<double>(i);
    for (std::size_t j = 0; j < after.size(); ++j) after[j] = static_cast<double>(fewest + j);
    std::swap(before.back(), after.front());
    // A quarter more, for the outliers the test drops (without_outliers) from a busy host's run.
    if (mann_whitney_u(before, after).p_value < rule.significance) return std::min(kMostSamples, n + n / 4);
  }
  return kMostSamples;
}

void check_any_matched(const std::vector<Comparison>& comparisons) {
  std::vector<const RunRecord*> baseline, current;
  for (const Comparison& c : comparisons) {
    if (c.baseline && c.current) return;
    if (c.baseline) baseline.push_back(&*c.baseline);
    if (c.current) current.push_back(&*c.current);
  }
  if (baseline.empty() || current.empty()) return;  // one side has no runs: nothing could match
  // Each part of the identity the two reports share no value of, with the values each holds.
  using Part = std::pair<const char*, std::string (*)(const RunRecord&)>;
  const Part parts[] = {
      {"backend", [](const RunRecord& r) { return r.backend; }},
      {"device", [](const RunRecord& r) { return r.device; }},
      {"variant", [](const RunRecord& r) { return r.variant; }},
      {"filter", [](const RunRecord& r) { return r.filter; }},
      {"size", [](const RunRecord& r) { return fmt::format("{}x{}x{}", r.width, r.height, r.channels); }},
      {"border", [](const RunRecord& r) { return r.border + (r.flip ? " flipped" : ""); }},
      {"pixel", [](const RunRecord& r) { return r.pixel; }},
      {"memory", [](const RunRecord& r) { return r.memory; }},
  };
  const auto values = [](const std::vector<const RunRecord*>& runs, const Part& part) {
    std::vector<std::string> found;
    for (const RunRecord* r : runs)
      if (std::string value = part.second(*r); std::ranges::find(found, value) == found.end()) found.push_back(value);
    return found;
  };
  const auto listed = [](const std::vector<std::string>& list) {
    constexpr std::size_t kShown = 3;
    std::vector<std::string> shown(list.begin(), list.begin() + static_cast<long>(std::min(list.size(), kShown)));
    return fmt::format("{}{}", fmt::join(shown, ", "), list.size() > kShown ? fmt::format(" (+{})", list.size() - kShown) : "");
  };
  std::vector<std::string> differences;
  for (const Part& part : parts) {
    const std::vector<std::string> before = values(baseline, part), after = values(current, part);
    if (std::ranges::none_of(after, [&](const std::string& v) { return std::ranges::find(before, v) != before.end(); }))
      differences.push_back(fmt::format("{} {} there, {} here", part.first, listed(before), listed(after)));
  }
  throw InputError(fmt::format("--compare: no run matches one in the baseline ({} run{} there, {} here){}{}",
                               baseline.size(), baseline.size() == 1 ? "" : "s", current.size(),
                               differences.empty() ? ": no single field tells them apart" : ": ",
                               fmt::join(differences, "; ")));
}

void attach_verdicts(Report& current, const std::vector<Comparison>& comparisons) {
  for (std::size_t i = 0; i < current.runs.size() && i < comparisons.size(); ++i) {
    const Comparison& c = comparisons[i];
    RunRecord& run = current.runs[i];
    run.compare_verdict = std::string(to_string(c.verdict));
    run.compare_ratio = c.ratio, run.compare_p_value = c.p_value, run.compare_threshold = c.threshold;
    run.compare_reason = c.reason;
  }
}

std::vector<Comparison> compare_reports(const Report& baseline, const Report& current, const CompareRule& rule) {
  std::vector<RunIdentity> baseline_ids;
  for (const RunRecord& run : baseline.runs) baseline_ids.push_back(identity_of(run));
  std::vector<bool> matched(baseline.runs.size(), false);
  const std::vector<MachineChange> machine = machine_changes(baseline, current, rule);
  // The first machine change that touches a run's device: its own, or the host's where it runs there.
  const auto change_touching = [&](const RunRecord& run) -> const MachineChange* {
    const auto device = std::ranges::find(current.devices, run.device, &DeviceInfo::id);
    for (const MachineChange& change : machine)
      if (change.device == run.device ||
          (change.device.empty() && device != current.devices.end() && runs_on_host(*device)))
        return &change;
    return nullptr;
  };

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
    Comparison c = judge(baseline.runs[i], run, rule);
    // A change measured on a machine that changed may be the machine's: not a regression, not a gain.
    if (c.verdict == Verdict::Slower || c.verdict == Verdict::Faster)
      if (const MachineChange* change = change_touching(run)) {
        c.reason = fmt::format("{} {}, but the machine changed: {}", to_string(c.verdict), ratio_cell(c.ratio), change->what);
        c.verdict = Verdict::Inconclusive;
      }
    comparisons.push_back(std::move(c));
  }
  for (std::size_t i = 0; i < baseline.runs.size(); ++i)
    if (!matched[i]) comparisons.push_back({baseline.runs[i], std::nullopt, Verdict::Missing});
  return comparisons;
}

void print_comparison(const std::vector<Comparison>& comparisons, const CompareRule& rule, std::ostream& out,
                      const std::vector<MachineChange>& machine) {
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

  // Within 80 columns, so that a terminal of 80 does not wrap it (it was 96 wide: #28).
  out << fmt::format(
      "kernel median in ms; ratio = current / baseline; p: Mann-Whitney U test of\n"
      "the two runs' samples (outliers dropped); needs: the change a row can see,\n"
      "{}% or {} x the runs' combined noise if larger; slower or faster when\n"
      "p < {} and the medians moved past it; unchanged when they did not and needs\n"
      "is {}%; inconclusive when the gate cannot tell (the reason below)\n",
      100 * rule.min_change, rule.noise_factor, rule.significance, 100 * rule.min_change);
  for (const std::string& title : titles) {
    std::vector<const Comparison*> group;
    for (const Comparison& c : comparisons)
      if (problem_title(either(c)) == title) group.push_back(&c);
    // The memory column only when it tells rows apart (pinned and pageable runs of one problem: a CPU
    // run has none beside an OpenCL one's "pinned", which tells nothing). The backend column only when
    // a device id does not name its own ("cpu", "opencl:0:0" do). Both within 80 columns (#28: 83).
    bool pinned = false, pageable = false, backend_in_device = true;
    for (const Comparison* c : group) {
      const RunRecord& r = either(*c);
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
      const RunRecord& r = either(*c);
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
    for (const std::string& reason : reasons) out << report_tables::wrap_words(reason, 80, 4) << '\n';
  }

  std::array<int, kVerdictCount> counts{};
  for (const Comparison& c : comparisons) ++counts[static_cast<std::size_t>(c.verdict)];
  std::vector<std::string> summary;
  for (std::size_t v = 0; v < counts.size(); ++v)
    if (counts[v] > 0) summary.push_back(fmt::format("{} {}", counts[v], to_string(static_cast<Verdict>(v))));
  out << fmt::format("\n{}", fmt::join(summary, ", "));
  // The verdict line says when the machine changed: the rows it touches are inconclusive, not slower.
  // One change a line, so that each fits an 80-column terminal.
  if (!machine.empty()) {
    out << fmt::format(";\nthe machine changed beyond {}% (peaks, clocks) or {} load per CPU,\nso the rows it "
                       "touches are inconclusive, not slower or faster:",
                       100 * rule.machine_tolerance, rule.load_tolerance);
    for (const MachineChange& change : machine) out << "\n  " << change.what;
  }
  out << '\n';
}

void print_merged(const std::vector<Report>& reports, const std::vector<std::string>& labels, std::ostream& out,
                  bool per_problem_tables) {
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
      out << fmt::format("  {}  {}{}\n", d.id, shorten(d.name, 48), peaks);  // within 100 columns
    }
    // A backend with no device there: said once, not a column of "skipped" in every table.
    std::vector<std::string> not_run;
    for (const RunRecord& run : reports[i].runs)
      if (run.device == "-")
        if (std::string line = fmt::format("  {}: not run: {}", run.backend, run.reason);
            std::ranges::find(not_run, line) == not_run.end())
          not_run.push_back(std::move(line));
    for (const std::string& line : not_run) out << line << '\n';
  }
  if (!per_problem_tables) return;

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
        if (problem_of(run) == problem && run.device != "-") add_once(columns, column_of(i, run)), add_once(variants, run.variant);
    if (columns.empty()) continue;  // only backends with no device ran it
    // In the table's order (common/domain/variants.h), as every report's own tables list them: first
    // seen put the first report's CPU variants before OpenCL's "global" (#28). Unknown names last.
    std::ranges::stable_sort(variants, {}, [](const std::string& name) {
      const VariantTraits* traits = find_variant(name);
      return traits ? traits - all_variants().data() : std::ssize(all_variants());
    });
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
    // Each later report's column against the first report's of the same backend, device and memory
    // (two runs of one machine, or two machines' "cuda:0"), else of the same backend and memory where the
    // first report has one such column (one OpenCL device on each machine); none against itself.
    const auto base_of = [&](const ColumnKey& column) -> const ColumnKey* {
      const auto& [report, backend, device, memory] = column;
      if (report == 0) return nullptr;
      const ColumnKey* alike = nullptr;
      int alike_count = 0;
      for (const ColumnKey& other : columns) {
        if (std::get<0>(other) != 0 || std::get<1>(other) != backend || std::get<3>(other) != memory) continue;
        if (std::get<2>(other) == device) return &other;
        alike = &other, ++alike_count;
      }
      return alike_count == 1 ? alike : nullptr;
    };
    std::vector<std::vector<std::string>> ratio_rows = {
        {fmt::format("ratio to {} on the matching backend and device (below 1: faster)", labels[0])}};
    for (const std::string& variant : variants) {
      std::vector<std::string> times = {variant}, ratios = {variant};
      bool any_ratio = false;
      for (const ColumnKey& column : columns) {
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

    // The ratio lines below the times, in the same columns, when any column has a ratio to show.
    if (ratio_rows.size() > 1) rows.insert(rows.end(), ratio_rows.begin(), ratio_rows.end());
    std::vector<bool> numeric(columns.size() + 1, true);
    numeric[0] = false;
    out << '\n' << problem_title(*first_run) << "  (kernel median, ms)\n";
    print_aligned(rows, numeric, out);
    // Why a cell reads "untimed" (fake profiling timestamps, as Rusticl's), once per column and reason.
    std::vector<std::string> notes;
    for (const ColumnKey& column : columns)
      for (const std::string& variant : variants)
        if (const RunRecord* run = cell_run(column, variant); run && run->status != Status::Skipped && !run->times.untimed.empty())
          if (std::string note = fmt::format("untimed in {} {} {}: {}", labels[std::get<0>(column)], std::get<1>(column),
                                             shorten(std::get<2>(column), kDeviceWidth), run->times.untimed);
              std::ranges::find(notes, note) == notes.end())
            notes.push_back(std::move(note));
    for (const std::string& note : notes) out << note << '\n';
  }
}

}  // namespace cc
