// printer.cpp: the printers, each over its writer in report.cpp.
#include "common/report/printer.h"

namespace cc {

namespace {

template <void (*Write)(const Report&, std::ostream&)>
class WriterPrinter final : public Printer {
 public:
  void print(const Report& report, std::ostream& out) const override { Write(report, out); }
};

}  // namespace

std::unique_ptr<Printer> make_printer(ReportFormat format) {
  switch (format) {
    case ReportFormat::Console: return std::make_unique<WriterPrinter<print_console>>();
    case ReportFormat::Markdown: return std::make_unique<WriterPrinter<write_markdown>>();
    case ReportFormat::Csv: return std::make_unique<WriterPrinter<write_csv>>();
    case ReportFormat::Json: return std::make_unique<WriterPrinter<write_json>>();
  }
  return nullptr;
}

}  // namespace cc
