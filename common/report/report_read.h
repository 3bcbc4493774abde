// report_read.h: reading a saved JSON report back, for --compare and merge.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/report/report.h"

namespace cc {

// Far above any real report (a run is about 1.5 KB of JSON), low enough that the parsed document
// fits in memory: a larger file is an InputError, not an out-of-memory crash.
inline constexpr std::uintmax_t kMaxReportBytes = std::uintmax_t{256} << 20;

// Reads every field write_json writes (null -> kNotMeasured or empty), so that
// write_json(parse_json_report(write_json(r))) is the same text. A run must have the fields that
// identify it and its result (backend, device, variant, filter, width, height, channels, border,
// status, kernel_ms); every other field may be missing (reports from older versions lack the newer
// fields) and then keeps its default. Bad input throws InputError with one line that starts with
// the file name: "baseline.json: run 2: missing \"variant\"".
Report read_json_report(const std::string& path);
Report parse_json_report(std::string_view text, std::string_view source_name);

}  // namespace cc
