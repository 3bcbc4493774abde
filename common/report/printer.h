// printer.h: one interface for writing a whole report in any of its formats (console, markdown, CSV, JSON), as nvbench's printers.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "common/report/report.h"

namespace cc {

enum class ReportFormat { Console, Markdown, Csv, Json };

// So that a driver keeps a list of (printer, destination) and writes every format the same way.
class Printer {
 public:
  virtual ~Printer() = default;
  virtual void print(const Report& report, std::ostream& out) const = 0;
};

// `verbose`: the console's detail view (print_console); the files always hold every column.
// `console_width`: the columns the console tables fit (print_console's `width`).
std::unique_ptr<Printer> make_printer(ReportFormat format, bool verbose = false, std::size_t console_width = kConsoleWidth);

// `text` for a terminal or a text file: each line through printable() (safe_text: bytes that are not
// UTF-8 and control characters such as an ESC in a filter file's or device's name shown as \xNN, nothing
// shortened), the line breaks kept. The console, CSV and markdown printers pass everything they print
// through this; JSON's strings go through safe_text too (json_writer.cpp), plot labels as well (canvas.cpp).
std::string printable_lines(std::string_view text);

}  // namespace cc
