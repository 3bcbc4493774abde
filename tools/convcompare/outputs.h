// outputs.h: every file a run writes, planned and checked before any work (OutputPlan), and the --output-dir images and contact sheet (OutputWriter).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/domain/image.h"
#include "common/domain/problem.h"
#include "tools/convcompare/job.h"
#include "tools/convcompare/targets.h"

namespace cc {

// Writes the --json, --csv and --markdown files (atomically) and the --plot picture of a report.
void write_reports(const Report& report, const ReportDestinations& destinations);

// Every path a run writes, computed from the job, the input and the targets in one place before any
// work starts (docs/architecture.md, "Outputs"): the reports (--json, --csv, --markdown), --plot, and
// under --output-dir each problem's reference, each run's result, contact_sheet.png and the probe that
// proves the directory writable. The constructor refuses (InputError, one line) two writers on one
// stream (a file, a pipe, a terminal: canonical paths, symlinks and hard links included; the console
// report claims standard output unless --quiet; /dev/null is shared), an output that is an input of the
// run (the image, a filter file, the --compare baseline, the tuning cache, a --kernel-dir source), a name too long
// for its temporary, and a directory that does not exist or cannot be written; then creates
// --output-dir.
class OutputPlan {
 public:
  OutputPlan(const Job& job, const Image& input, const std::vector<Target>& targets);

  bool images() const { return !dir_.empty(); }
  const std::string& format() const { return format_; }
  bool several_pixels() const { return several_pixels_; }
  // Every image of a problem starts with its stem: filter, border, flip, and the size and pixel type
  // where the job has several.
  std::string stem(const Problem& problem) const;
  std::filesystem::path reference_path(const std::string& stem) const;
  std::filesystem::path result_path(const std::string& stem, const Target& target, HostMemory memory) const;
  std::filesystem::path contact_sheet_path() const { return dir_ / "contact_sheet.png"; }

 private:
  std::string stem(std::string_view spec, Border border, bool flip, int width, int height, PixelType pixel) const;

  std::filesystem::path dir_;
  std::string format_;
  bool several_sizes_ = false, several_memories_ = false, several_pixels_ = false;
};

// Refuses (InputError, one line) a --json job whose report could pass what merge and --compare read back
// (kMaxReportBytes): its run records, each with its names and up to --repetitions raw samples, counted
// from the plan before any run. Called once the job's repetitions are final (--compare raises them).
void check_json_report_fits(const Job& job, const std::vector<Target>& targets);

// Writes the images of one job at the plan's paths; does nothing without --output-dir.
class OutputWriter {
 public:
  explicit OutputWriter(const OutputPlan& plan) : plan_(plan) {}
  bool enabled() const { return plan_.images(); }

  // A new image size (the sheet shows the last size of a sweep): the sheet starts with the original.
  void begin_image(const Image& image);
  // A new problem: writes its reference; the sheet's tile is this problem's first validated device result.
  void begin_problem(const Problem& problem, const Image& reference);
  // Writes one run's result; returns the path for the report. `run_ok`: it validated (the sheet may
  // keep the image).
  std::string write_result(const Target& target, HostMemory memory, Image output, bool run_ok);
  void end_problem();
  void write_contact_sheet() const;
  // At least one image is on the contact sheet (a job interrupted before its first run has none).
  bool has_images() const { return !sheet_.empty(); }

 private:
  struct Tile {
    std::string label;
    Image image;
  };
  void save(const Image& image, const std::filesystem::path& path) const;

  const OutputPlan& plan_;
  std::string stem_, problem_label_;
  const Image* reference_ = nullptr;
  std::optional<Tile> tile_;
  std::vector<Tile> sheet_;
};

}  // namespace cc
