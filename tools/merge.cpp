// merge.cpp: `convcompare merge`: saved reports read back and printed as one table.
#include "tools/merge.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "common/report/compare.h"
#include "common/report/report_read.h"

namespace cc {

int run_merge(const std::vector<std::string>& paths, std::ostream& out) {
  std::vector<Report> reports;
  std::vector<std::string> labels;
  for (const std::string& path : paths) {
    reports.push_back(read_json_report(path));
    std::string label = std::filesystem::path(path).stem().string();
    if (std::ranges::find(labels, label) != labels.end()) label += fmt::format("#{}", labels.size() + 1);
    labels.push_back(std::move(label));
  }
  print_merged(reports, labels, out);
  return 0;
}

}  // namespace cc
