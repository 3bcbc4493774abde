// printer.cpp: the four report printers, each one of report.h's writers behind the Printer interface.
#include "common/report/printer.h"

#include <stdexcept>

namespace cc {

namespace {

template <void (*write)(const Report&, std::ostream&)>
class WriterPrinter final : public Printer {
 public:
  void print(const Report& report, std::ostream& out) const override { write(report, out); }
};

class ConsolePrinter final : public Printer {
 public:
  ConsolePrinter(bool verbose, std::size_t width) : verbose_(verbose), width_(width) {}
  void print(const Report& report, std::ostream& out) const override { print_console(report, out, verbose_, width_); }

 private:
  bool verbose_;
  std::size_t width_;
};

}  // namespace

std::unique_ptr<Printer> make_printer(ReportFormat format, bool verbose, std::size_t console_width) {
  switch (format) {
    case ReportFormat::Console: return std::make_unique<ConsolePrinter>(verbose, console_width);
    case ReportFormat::Markdown: return std::make_unique<WriterPrinter<write_markdown>>();
    case ReportFormat::Csv: return std::make_unique<WriterPrinter<write_csv>>();
    case ReportFormat::Json: return std::make_unique<WriterPrinter<write_json>>();
  }
  throw std::invalid_argument("make_printer: not a ReportFormat");
}

}  // namespace cc
