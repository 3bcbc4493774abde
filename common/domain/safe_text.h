// safe_text.h: the one sanitizer of text from outside (file names, arguments, drivers) for every output: valid UTF-8, control characters visible.
#pragma once

#include <string>
#include <string_view>

namespace cc {

enum class ControlCharacters {
  Escape,  // \n, \t, \xNN: the console, error lines, CSV, markdown and plot labels
  Keep,    // left for the format to escape losslessly itself (JSON's \u001b)
};

// `text` as valid UTF-8 (RFC 3629: no overlong forms, surrogates or code points past U+10FFFF): each byte
// that does not begin or continue a well-formed sequence becomes "\xNN", so the byte stays visible and
// every report is valid UTF-8 (a file name's Latin-1 bytes once made the CSV and markdown reports invalid).
// With Escape, control characters too: newline as \n, tab as \t, the others and DEL as \xNN. The same
// bytes in give the same text out in every format. (utfcpp finds invalid sequences too, but replaces them
// with U+FFFD, losing the byte; it is not among the build's dependencies.)
std::string safe_text(std::string_view text, ControlCharacters controls = ControlCharacters::Escape);

}  // namespace cc
