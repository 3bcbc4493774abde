// merge.cpp: `convcompare merge`: saved reports read back, printed as one table and written as one report.
#include "tools/convcompare/merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "common/report/compare.h"
#include "common/report/report_read.h"
#include "common/report/tables.h"
#include "tools/convcompare/job.h"
#include "tools/convcompare/outputs.h"

namespace cc {

Report merged_report(const std::vector<Report>& reports, const std::vector<std::string>& labels) {
  Report merged;
  if (!reports.empty()) std::tie(merged.tool_name, merged.tool_version) = std::tie(reports[0].tool_name, reports[0].tool_version);
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const auto prefixed = [&](const std::string& id) { return id == "-" ? id : labels[i] + "/" + id; };
    for (const auto& [key, value] : reports[i].environment) merged.environment.emplace_back(labels[i] + ": " + key, value);
    for (DeviceInfo device : reports[i].devices) {
      device.id = prefixed(device.id);
      merged.devices.push_back(std::move(device));
    }
    for (RunRecord run : reports[i].runs) {
      run.device = prefixed(run.device);
      merged.runs.push_back(std::move(run));
    }
    for (StreamRecord stream : reports[i].streams) {
      stream.device = prefixed(stream.device);
      merged.streams.push_back(std::move(stream));
    }
  }
  return merged;
}

int run_merge(const Config& config, std::ostream& out) {
  // The outputs planned as the main job's are (tools/convcompare/outputs.h), the merged reports as their inputs,
  // all checked before any report is read.
  Job job;
  job.quiet = config.quiet;
  ReportDestinations destinations = report_destinations(config);
  job.reports = destinations.reports;
  job.plot_path = destinations.plot_path;
  job.merged_reports = config.merge_reports;
  const OutputPlan plan(job, Image{}, {});
  std::vector<Report> reports;
  std::vector<std::string> labels;
  for (const std::string& path : config.merge_reports) {
    reports.push_back(read_json_report(path));
    std::string label = std::filesystem::path(path).stem().string();
    if (std::ranges::find(labels, label) != labels.end()) label += fmt::format("#{}", labels.size() + 1);
    labels.push_back(std::move(label));
  }
  const Report merged = merged_report(reports, labels);
  // Merged sweeps keep the sweep's own summary, a row per radius (or size) and a column per variant for
  // each machine's device; the side-by-side table of each point is the detail view's.
  const std::vector<RunRecord> shown = report_tables::shown_runs(merged);  // the series point into it
  const std::vector<report_tables::SweepSeries> sweep = report_tables::sweep_series(shown);
  if (!config.quiet) {
    print_merged(reports, labels, out, sweep.empty() || config.verbose);
    report_tables::print_sweep_summaries(sweep, out, config.verbose, report_tables::kLineWidth);
  }
  write_reports(merged, destinations);
  return 0;
}

}  // namespace cc
