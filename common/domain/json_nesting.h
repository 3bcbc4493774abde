// json_nesting.h: parsing a JSON file read back (a report, the tuning cache) with a limit on how deeply it nests.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace cc {

// The deepest arrays and objects may sit within each other in a JSON file convcompare reads back. A report
// nests 4 deep (the document, runs, a run, its kernel_ms group), the tuning cache 6 (down to a measured time);
// nlohmann's parser itself is iterative, but its dump() and every walk over the tree recurse, so a file of
// `[[[[...` 150,000 deep (300 KB) ran out of stack as a crash. Documented in docs/json-schema.md.
inline constexpr int kMaxJsonNesting = 64;

// Thrown by parse_json_nested when the text nests deeper than kMaxJsonNesting; what() is one line without
// the file's name.
class JsonTooDeep : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Json::parse(text), refused with JsonTooDeep as soon as an array or object opens kMaxJsonNesting deep;
// every other failure is the parser's own exception. The parser's callback sees each container as it
// opens, so a deep file is refused after reading its first 65 brackets, with no tree built.
template <class Json>
Json parse_json_nested(std::string_view text) {
  const auto within_limit = [](int depth, typename Json::parse_event_t event, Json&) {
    const bool opens = event == Json::parse_event_t::object_start || event == Json::parse_event_t::array_start;
    // depth counts the containers around this one: the root opens at 0.
    if (opens && depth + 1 > kMaxJsonNesting)
      throw JsonTooDeep(fmt::format("arrays and objects nested more than {} deep, the most convcompare reads",
                                    kMaxJsonNesting));
    return true;
  };
  return Json::parse(text.begin(), text.end(), within_limit);
}

}  // namespace cc
