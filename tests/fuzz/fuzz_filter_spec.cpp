// fuzz_filter_spec.cpp: libFuzzer target: cc::parse_filter_spec, the --filter parser, on arbitrary text.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/domain/error.h"
#include "common/domain/filter.h"
#include "tests/fuzz/fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string spec(reinterpret_cast<const char*>(data), size);
  // file:PATH would let the fuzzer open any path on the machine (a FIFO or a terminal would block it);
  // the file format itself has its own target, fuzz_filter_text. "file:" with no path stays in.
  if (spec.starts_with("file:") && spec.size() > 5) return -1;
  try {
    const cc::Filter filter = cc::parse_filter_spec(spec);
    fuzz::check_filter(filter);
    fuzz::require(filter.spec == spec, "the filter's spec differs from what was parsed");
  } catch (const cc::InputError&) {
    // The expected outcome for bad input; any other exception escapes and is reported as a finding.
  }
  return 0;
}
