// outputs.h: --output-dir: where each problem's reference and each run's result go, and the contact sheet.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/domain/image.h"
#include "common/domain/problem.h"
#include "tools/job.h"
#include "tools/targets.h"

namespace cc {

// Writes the --json, --csv and --markdown files (atomically) and the --plot picture of a report.
void write_reports(const Report& report, const ReportDestinations& destinations);

// File-name-safe form: lowercase, anything but [a-z0-9.-] becomes '-'.
std::string slug(std::string_view text);

// Writes the images of one job, named from the problem and the target; does nothing without --output-dir.
class OutputWriter {
 public:
  OutputWriter(const Job& job, const Image& input);  // resolves the format (throws InputError)
  bool enabled() const { return !dir_.empty(); }

  // A new image size (the sheet shows the last size of a sweep): the sheet starts with the original.
  void begin_image(const Image& image);
  // A new problem: writes its reference; the sheet's tile is this problem's first validated device result.
  void begin_problem(const Problem& problem, const Image& reference);
  // Writes one run's result; returns the path for the report. `run_ok`: it validated (the sheet may
  // keep the image).
  std::string write_result(const Target& target, bool pinned, Image output, bool run_ok);
  void end_problem();
  void write_contact_sheet() const;

 private:
  struct Tile {
    std::string label;
    Image image;
  };
  void save(const Image& image, const std::filesystem::path& path) const;

  std::filesystem::path dir_;
  std::string format_;
  bool several_sizes_, several_memories_, several_pixels_;
  std::string stem_, problem_label_;
  const Image* reference_ = nullptr;
  std::optional<Tile> tile_;
  std::vector<Tile> sheet_;
};

}  // namespace cc
