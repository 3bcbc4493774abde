// merge.h: `convcompare merge a.json b.json ...`: one side-by-side table from reports saved anywhere, and the merged report in any format.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "common/report/report.h"
#include "tools/convcompare/cli.h"

namespace cc {

// The reports as one: each device id prefixed with its report's label ("nvidia-box/cuda:0") so runs of
// two machines stay apart, each environment entry with the label; the first report's tool.
Report merged_report(const std::vector<Report>& reports, const std::vector<std::string>& labels);

// Reads every report of config.merge_reports (InputError on a bad one), names each column by its file
// stem (a repeated stem gets its position appended), prints the merged table to `out` unless --quiet
// and writes --json, --csv, --markdown and --plot of the merged report. Returns the exit status.
int run_merge(const Config& config, std::ostream& out);

}  // namespace cc
