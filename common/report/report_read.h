// report_read.h: reading a saved JSON report back, for --compare and merge.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/report/report.h"

namespace cc {

// Far above any real report (a run is about 1 KB of JSON: 32 MB hold 30,000 runs), low enough that
// the parsed document fits in memory: nlohmann's tree takes 6 to 9 times the text of a real report and
// up to 19 times for text made of tiny values (measured with 3.11.2), so a 238 MB report once asked for
// several GB and aborted. A larger file is an InputError naming its size and this limit. The writer keeps
// within it: a --json job whose records (2 KB each plus their names) could pass it is refused before it
// runs (tools/convcompare/outputs.cpp), so every report convcompare writes is one merge and --compare read back.
inline constexpr std::uintmax_t kMaxReportBytes = std::uintmax_t{32} << 20;
// What the parsed tree may take per byte of text, for the memory check before parsing.
inline constexpr std::uintmax_t kReportTreeBytesPerTextByte = 24;

// Reads every field write_json writes (null -> kNotMeasured or empty), so that
// write_json(parse_json_report(write_json(r))) is the same text. A run must have the fields that
// identify it and its result (backend, device, variant, filter, width, height, channels, border,
// status, kernel_ms); every other field may be missing (reports from older versions lack the newer
// fields) and then keeps its default. Bad input throws InputError with one line that starts with
// the file name: "baseline.json: run 2: missing \"variant\"". Nothing but InputError escapes: a
// parser failure of any kind, and running out of memory while parsing, are InputErrors too.
Report read_json_report(const std::string& path);
Report parse_json_report(std::string_view text, std::string_view source_name);

}  // namespace cc
