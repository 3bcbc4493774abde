// fuzz_filter_spec.cpp: libFuzzer target: cc::parse_filter_spec, the --filter parser, on arbitrary text, and the file-name stem of every spec it accepts.
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>

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
    // --output-dir names images by filter_stem: file-name characters only, bounded, and two accepted
    // specs never share a stem (checked across the run for the stems without a hash, whose
    // distinctness rests on the spec grammar rather than on the hash).
    const std::string stem = cc::filter_stem(spec);
    fuzz::require(!stem.empty() && stem.size() <= 73, "a filter stem is empty or too long");
    for (const char c : stem)
      fuzz::require((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-',
                    "a filter stem holds a character outside [a-z0-9.-]");
    static std::unordered_map<std::string, std::string> seen;  // stem -> the spec that made it
    if (stem == cc::slug(spec) && seen.size() < 1000000) {
      const auto [entry, added] = seen.emplace(stem, spec);
      fuzz::require(added || entry->second == spec, "two accepted filter specs share a file-name stem");
    }
  } catch (const cc::InputError&) {
    // The expected outcome for bad input; any other exception escapes and is reported as a finding.
  }
  return 0;
}
