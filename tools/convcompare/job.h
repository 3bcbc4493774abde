// job.h: the command line checked and resolved into one Job: everything a run reads, validated before any slow work.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"
#include "common/domain/backend_names.h"
#include "common/domain/filter.h"
#include "common/domain/problem.h"
#include "common/domain/variants.h"
#include "common/report/compare.h"
#include "common/report/printer.h"
#include "common/report/report.h"
#include "tools/convcompare/cli.h"

namespace cc {

// A device id split at its colons: "opencl:1:0" -> {"opencl", {1, 0}}.
struct DeviceId {
  std::string backend;
  std::vector<int> numbers;
};

// One --device. Fewer numbers select more: "opencl:1" is every device of OpenCL platform 1.
struct DeviceSelector {
  std::string text;
  DeviceId id;
  bool matches(const DeviceInfo& device) const;
};

// A report file to write, and in which format.
struct ReportOutput {
  std::string path;
  ReportFormat format;
};

struct Job {
  bool list = false;  // --list: describe, run nothing

  // What runs: backends in report order, devices, variants in table order, problems.
  std::vector<std::string> backends;
  bool backends_named = false;  // --backend listed them (not "all"): a missing one is reported
  std::vector<DeviceSelector> devices;
  std::vector<const VariantTraits*> variants;
  std::vector<Filter> filters;  // with --sweep radius, every filter at every radius
  std::vector<Border> borders;
  bool flip = false;

  // The input: an image file, or the generated test chart at each size (several with --sweep size).
  std::string image_path;  // empty: generated
  std::vector<std::pair<int, int>> sizes;
  bool size_sweep = false;
  int channels = 1;  // of the generated image

  // How it is measured.
  RunOptions options;
  std::vector<HostMemory> memories;  // per --memory mode, in order
  std::vector<PixelType> pixels;  // per --pixel type, in order
  int stream_frames = 0;
  bool split = false;  // --split over the devices of each backend named twice or more (docs/multi-device.md)
  bool retune = false;
  bool measure_peaks = true;

  // What is written.
  bool quiet = false;
  bool verbose = false;  // the console's detail view (every column, per-point tables of a sweep)
  std::vector<ReportOutput> reports;
  std::string plot_path;
  std::string output_dir;     // the reference, every result and the contact sheet
  std::string output_format;  // png, pfm, or empty: by the input (png for 8-bit, pfm for float)
  std::string compare_path;        // --compare: an input the outputs must not overwrite
  std::optional<Report> baseline;  // read from it once the output plan has checked the paths, before any work
  CompareRule compare_rule;        // --min-change, --significance

  // As the user gave them, for the report's environment block.
  std::vector<std::string> memory_names;
  std::vector<std::string> command;  // argv
  std::vector<std::string> merged_reports;  // merge: the reports it reads, inputs the outputs must not overwrite

  bool runs_variant(std::string_view name) const;
};

// Where a report goes, for the main job and for merge alike: the --json, --csv and --markdown files
// ("-": standard output) and the --plot picture. OutputPlan (tools/convcompare/outputs.h) checks them.
struct ReportDestinations {
  std::vector<ReportOutput> reports;
  std::string plot_path;
};
ReportDestinations report_destinations(const Config& config);

// Checks and resolves the configuration; throws InputError (one line) on anything wrong, before any
// slow work: names, sizes, inputs that cannot be read (a pipe named twice). Where the outputs go is checked by OutputPlan (tools/convcompare/outputs.h), once the targets are known.
Job make_job(const Config& config);

// The host memory the run needs at its largest image, refused before allocating it (InputError with
// the figures: common/domain/memory.h). Counted in images of width x height x channels floats: the
// input, its reference, a result and the backend's two host frames; with --pixel u8 the 8-bit input
// and its reference; with --output-dir an encoded copy and the contact sheet's tiles; with --stream the
// three slots' frames. `input_loaded`: the input is already in memory (an --image file).
void check_run_memory(const Job& job, int width, int height, int channels, bool input_loaded);

// png for 8-bit input, pfm for float, unless --output-format says otherwise; throws InputError when
// the chosen format cannot hold the image's channels.
std::string output_format(const Job& job, const Image& image);

}  // namespace cc
