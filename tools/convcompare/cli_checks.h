// cli_checks.h: the command line's value checks, and CLI11's parse with its errors said in convcompare's words.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace cc {

// A value checked against a list of names, said with the list and the closest name (CLI11's IsMember
// names neither); `other_names`: what other tools call a value ("uint8"), suggested as ours.
CLI::Validator one_of(const std::vector<std::string>& names,
                      std::vector<std::pair<std::string, std::string>> other_names = {});

// An option naming a file or directory given "" would otherwise mean "not given" (--image "" ran the
// generated image): refused instead.
CLI::Validator named_file();

// A span of seconds is checked as typed by the one parser every duration goes through (common/domain/seconds.h):
// out of range, NaN and 1e-400 (which reads as 0) are each refused with the text the user wrote.
CLI::Validator seconds_span();

// Parses argv into the options `app` binds. False when --help or --version printed its text to `out`;
// every usage error becomes one InputError line.
bool parse_arguments(CLI::App& app, int argc, const char* const* argv, std::ostream& out);

}  // namespace cc
