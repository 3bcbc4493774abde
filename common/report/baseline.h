// baseline.h: a --compare baseline read and checked as strictly as any other input, before any run.
#pragma once

#include <string>
#include <string_view>

#include "common/report/report.h"

namespace cc {

// read_json_report(path) (every field's type, times never negative), then check_baseline.
Report read_baseline(const std::string& path);

// What makes a report unfit to compare against, each an InputError of one line naming `source`: no runs
// (every current run would be "new" and a gate would pass on nothing), or two runs of the same identity
// (compare.h, RunIdentity: which of the two a current run is tested against would be a guess).
void check_baseline(const Report& baseline, std::string_view source);

}  // namespace cc
