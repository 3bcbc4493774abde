// printer.cpp: the four report printers, each one of report.h's writers behind the Printer interface.
#include "common/report/printer.h"

#include <algorithm>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "common/domain/error.h"

namespace cc {

namespace {

template <void (*write)(const Report&, std::ostream&)>
class WriterPrinter final : public Printer {
 public:
  void print(const Report& report, std::ostream& out) const override { write(report, out); }
};

// A text report file (CSV, markdown) through the same sanitizer as the console: names from file names and
// drivers may hold bytes that are not UTF-8, or an escape sequence that `cat report.md` would run.
template <void (*write)(const Report&, std::ostream&)>
class SanitizedWriterPrinter final : public Printer {
 public:
  void print(const Report& report, std::ostream& out) const override {
    std::ostringstream text;
    write(report, text);
    out << printable_lines(text.str());
  }
};

class ConsolePrinter final : public Printer {
 public:
  ConsolePrinter(bool verbose, std::size_t width) : verbose_(verbose), width_(width) {}
  // Names come from arguments, files and drivers: escaped here, where all of them reach the terminal.
  void print(const Report& report, std::ostream& out) const override {
    std::ostringstream text;
    print_console(report, text, verbose_, width_);
    out << printable_lines(text.str());
  }

 private:
  bool verbose_;
  std::size_t width_;
};

}  // namespace

std::string printable_lines(std::string_view text) {
  std::string result;
  for (std::size_t begin = 0; begin < text.size();) {
    const std::size_t end = std::min(text.find('\n', begin), text.size());
    result += printable(text.substr(begin, end - begin), std::numeric_limits<std::size_t>::max());
    if (end < text.size()) result += '\n';
    begin = end + 1;
  }
  return result;
}

std::unique_ptr<Printer> make_printer(ReportFormat format, bool verbose, std::size_t console_width) {
  switch (format) {
    case ReportFormat::Console: return std::make_unique<ConsolePrinter>(verbose, console_width);
    case ReportFormat::Markdown: return std::make_unique<SanitizedWriterPrinter<write_markdown>>();
    case ReportFormat::Csv: return std::make_unique<SanitizedWriterPrinter<write_csv>>();
    case ReportFormat::Json: return std::make_unique<WriterPrinter<write_json>>();
  }
  throw std::invalid_argument("make_printer: not a ReportFormat");
}

}  // namespace cc
