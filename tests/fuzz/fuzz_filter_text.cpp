// fuzz_filter_text.cpp: libFuzzer target: cc::parse_filter_text, the filter-file parser, on arbitrary text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/domain/error.h"
#include "common/domain/filter.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const cc::Filter filter = cc::parse_filter_text(text, "fuzz.txt");
    fuzz::check_filter(filter);
    fuzz::require(filter.spec == "file:fuzz.txt", "filter-file spec does not name its origin");
  } catch (const cc::InputError&) {
    // The expected outcome for bad input; any other exception escapes and is reported as a finding.
  }
  return 0;
}
