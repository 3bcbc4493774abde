// completion.h: the values each option takes and the table the bash completion is built from.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace cc {

// The values an option takes, one list for both CLI11's checks and the bash completion.
extern const std::vector<std::string> kMemories;
extern const std::vector<std::string> kPixels;
extern const std::vector<std::string> kOutputFormats;

// What cmake/bash_completion.cmake builds the completion from, one list a line: every option, those taking
// a value, those naming a file or a directory, merge's, and each option's values. Read from the parsed
// options themselves, so the completion cannot drift from them.
std::string completion_table(const CLI::App& app, const CLI::App& merge);

}  // namespace cc
