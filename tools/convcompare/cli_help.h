// cli_help.h: the --help text of tools/convcompare/cli.cpp: its 80-column layout and the sections after the options.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace cc {

// CLI11's formatter with descriptions wrapped at 80 columns (see cli_help.cpp).
std::shared_ptr<CLI::Formatter> make_wrapping_formatter();

// One item of a footer list: "  NAME  text" with the text wrapped under itself.
std::string footer_item(std::string_view name, std::string_view text, std::size_t column = 18);

// The sections after the options: variants, filters, exit status, examples, environment.
std::string help_footer(bool for_man_page);

// The --pixel help: the variants with 8-bit kernels, from the table's `pixels` (never a list of names).
std::string pixel_help();

}  // namespace cc
