// safe_text.cpp: valid UTF-8 and visible control characters, for every output format.
#include "common/domain/safe_text.h"

#include <fmt/format.h>

namespace cc {

namespace {

// The length of the well-formed UTF-8 sequence starting at text[at], 0 when none starts there
// (the Unicode standard's table 3-7 of well-formed byte sequences).
std::size_t sequence_length(std::string_view text, std::size_t at) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(at);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the second byte's range
  if (lead >= 0xC2 && lead <= 0xDF) length = 2;
  else if (lead >= 0xE0 && lead <= 0xEF) length = 3, low = lead == 0xE0 ? 0xA0 : 0x80, high = lead == 0xED ? 0x9F : 0xBF;
  else if (lead >= 0xF0 && lead <= 0xF4) length = 4, low = lead == 0xF0 ? 0x90 : 0x80, high = lead == 0xF4 ? 0x8F : 0xBF;
  else return 0;
  if (at + length > text.size()) return 0;
  if (byte(at + 1) < low || byte(at + 1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i)
    if (byte(at + i) < 0x80 || byte(at + i) > 0xBF) return 0;
  return length;
}

}  // namespace

std::string safe_text(std::string_view text, ControlCharacters controls) {
  std::string safe;
  safe.reserve(text.size());
  for (std::size_t at = 0; at < text.size();) {
    const auto byte = static_cast<unsigned char>(text[at]);
    const std::size_t length = sequence_length(text, at);
    if (length == 0) {
      safe += fmt::format("\\x{:02x}", byte);
      ++at;
      continue;
    }
    if (controls == ControlCharacters::Escape && length == 1 && (byte < 0x20 || byte == 0x7f))
      safe += byte == '\n' ? std::string("\\n") : byte == '\t' ? std::string("\\t") : fmt::format("\\x{:02x}", byte);
    else
      safe.append(text, at, length);
    at += length;
  }
  return safe;
}

}  // namespace cc
