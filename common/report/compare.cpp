// compare.cpp: verdicts of a report against a baseline: run by run, and what changed on the machine.
#include "common/report/compare.h"
#include "common/report/compare_cells.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <tuple>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "common/domain/error.h"
#include "common/domain/variants.h"

namespace cc {

using compare_cells::has_time;
using compare_cells::percent_text;
using compare_cells::ratio_cell;

namespace {

// Whether a device's kernels run on the host's CPUs, so that the host's load and clock move them.
bool runs_on_host(const DeviceInfo& device) {
  if (device.backend == "cpu") return true;
  const auto type = std::ranges::find(device.properties, std::string("type"), &std::pair<std::string, std::string>::first);
  return type != device.properties.end() && type->second == "CPU";
}

// The two runs' noise as a fraction, combined as independent spreads; 0 where a run has none measured.
// On a device that runs on the host's CPUs each run's noise is its samples' spread, a proxy for the
// drift between runs that the host's load brings; on a GPU it is the spread of its median
// (kMedianStandardError x spread / sqrt(n), n the samples kept), since a GPU's drift shows in the clocks and peaks
// that machine_changes compares (docs/performance.md, "Comparing with a baseline").
double combined_noise(const Stats& baseline, const Stats& current, std::size_t baseline_samples,
                      std::size_t current_samples, bool on_host) {
  const auto fraction = [&](double percent, std::size_t samples) {
    if (!std::isfinite(percent)) return 0.0;
    const double spread = percent / 100;
    return on_host || samples == 0 ? spread : kMedianStandardError * spread / std::sqrt(static_cast<double>(samples));
  };
  return std::hypot(fraction(baseline.noise_percent, baseline_samples), fraction(current.noise_percent, current_samples));
}

Comparison judge(const RunRecord& baseline, const RunRecord& current, const CompareRule& rule, bool on_host) {
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
    const double noise = combined_noise(b, k, before.size(), after.size(), on_host);
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
        inconclusive(fmt::format("{} {}: can only see changes over {}", on_host ? "noise" : "noise of the medians",
                                 percent_text(noise), percent_text(c.threshold)));
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
  const auto on_host = [&](const RunRecord& run) {
    const auto device = std::ranges::find(current.devices, run.device, &DeviceInfo::id);
    return device == current.devices.end() || runs_on_host(*device);  // unknown: the cautious rule
  };
  const auto change_touching = [&](const RunRecord& run) -> const MachineChange* {
    for (const MachineChange& change : machine)
      if (change.device == run.device ||
          (change.device.empty() && on_host(run)))
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
    Comparison c = judge(baseline.runs[i], run, rule, on_host(run));
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

}  // namespace cc
