// fuzz_report.cpp: libFuzzer target: cc::parse_json_report (--compare, merge) on arbitrary bytes.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string_view>

#include "common/domain/error.h"
#include "common/report/report.h"
#include "common/report/report_read.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

std::string json_text(const cc::Report& report) {
  std::ostringstream text;
  cc::write_json(report, text);
  return text.str();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const cc::Report report =
        cc::parse_json_report(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
    // Whatever was accepted must survive a write and a read unchanged, as a saved baseline must.
    const std::string written = json_text(report);
    fuzz::require(json_text(cc::parse_json_report(written, "rewritten.json")) == written,
                  "a report read back does not write the same text");
  } catch (const cc::InputError&) {
    // The expected outcome for bad input; any other exception escapes and is reported as a finding.
  }
  return 0;
}
