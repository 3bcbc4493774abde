// baseline.cpp: the checks a --compare baseline must pass before any run.
#include "common/report/baseline.h"

#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/domain/error.h"
#include "common/report/compare.h"
#include "common/report/report_read.h"

namespace cc {

void check_baseline(const Report& baseline, std::string_view source) {
  if (baseline.runs.empty())
    throw InputError(fmt::format("{}: the baseline holds no runs: there is nothing to compare against", source));
  std::map<RunIdentity, std::size_t> first_of;  // each identity's first run, 1-based as the reader counts them
  for (std::size_t i = 0; i < baseline.runs.size(); ++i) {
    const RunRecord& run = baseline.runs[i];
    const auto [found, added] = first_of.emplace(identity_of(run), i + 1);
    if (added) continue;
    // What the identity holds, the empty parts (a CPU run has no memory mode) left out.
    std::vector<std::string> parts;
    for (const std::string& part :
         {fmt::format("{} {} on {}", run.backend, run.variant, run.device),
          fmt::format("{} {}x{}x{}", run.filter, run.width, run.height, run.channels),
          run.border.empty() ? std::string() : run.border + " border" + (run.flip ? " flipped" : ""), run.pixel,
          run.memory.empty() ? std::string() : run.memory + " memory"})
      if (!part.empty()) parts.push_back(part);
    throw InputError(fmt::format("{}: runs {} and {} of the baseline are the same run ({}): a baseline holds each "
                                 "run once (convcompare measures a problem named twice once; this report was made or edited elsewhere)",
                                 source, found->second, i + 1, fmt::join(parts, ", ")));
  }
}

Report read_baseline(const std::string& path) {
  Report baseline = read_json_report(path);
  check_baseline(baseline, path);
  return baseline;
}

}  // namespace cc
