// error.cpp: formats ApiError's one-line message from its parts.
#include "common/domain/error.h"

#include <fmt/format.h>

#include "common/domain/safe_text.h"

namespace cc {

namespace {
std::string describe(const std::string& api, long code, const std::string& code_name,
                     const std::string& call, const std::string& file, int line,
                     const std::string& detail) {
  std::string message = fmt::format("{} error {} ({}) in {} at {}:{}", api, code_name, code, call, file, line);
  if (!detail.empty()) message += ": " + detail;
  return message;
}
}  // namespace

std::string printable(std::string_view text, std::size_t longest_word) {
  const std::string escaped = safe_text(text);
  // Shorten each long word; the kept ends are whole UTF-8 characters (no cut inside a sequence).
  const auto start_of_character = [&](std::size_t i) {
    while (i > 0 && i < escaped.size() && (static_cast<unsigned char>(escaped[i]) & 0xC0) == 0x80) --i;
    return i;
  };
  std::string result;
  for (std::size_t begin = 0; begin < escaped.size();) {
    const std::size_t space = escaped.find(' ', begin);
    const std::size_t end = space == std::string::npos ? escaped.size() : space;
    const std::size_t length = end - begin;
    if (length <= longest_word) {
      result.append(escaped, begin, length);
    } else {
      const std::size_t head_end = start_of_character(begin + longest_word * 2 / 3);
      const std::size_t tail_begin = start_of_character(end - longest_word / 4);
      result.append(escaped, begin, head_end - begin);
      result += fmt::format("...[{} bytes]...", length);
      result.append(escaped, tail_begin, end - tail_begin);
    }
    if (space == std::string::npos) break;
    result += ' ';
    begin = space + 1;
  }
  return result;
}

ApiError::ApiError(std::string api, long code, std::string code_name, std::string call,
                   std::string file, int line, std::string detail, std::string build_log)
    : std::runtime_error(describe(api, code, code_name, call, file, line, detail)),
      api_(std::move(api)),
      code_name_(std::move(code_name)),
      call_(std::move(call)),
      file_(std::move(file)),
      build_log_(std::move(build_log)),
      code_(code),
      line_(line) {}

}  // namespace cc
