// merge.h: `convcompare merge a.json b.json ...`: one side-by-side table from reports saved anywhere.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace cc {

// Reads every report (InputError on a bad one), names each column by its file stem (a repeated stem
// gets its position appended) and prints the merged table to `out`. Returns the exit status.
int run_merge(const std::vector<std::string>& paths, std::ostream& out);

}  // namespace cc
