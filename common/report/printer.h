// printer.h: one interface for every way a report is written out (console, markdown, CSV, JSON), as nvbench's printers.
#pragma once

#include <memory>
#include <ostream>

#include "common/report/report.h"

namespace cc {

enum class ReportFormat { Console, Markdown, Csv, Json };

class Printer {
 public:
  virtual ~Printer() = default;
  virtual void print(const Report& report, std::ostream& out) const = 0;
};

std::unique_ptr<Printer> make_printer(ReportFormat format);

}  // namespace cc
