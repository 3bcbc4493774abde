// cli.h: the convcompare command line, parsed by CLI11 into a plain Config; meaning is checked by the driver.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "backends/device_watchdog.h"
#include "common/domain/stats.h"

namespace cc {

// What the user asked for, as typed (names are checked by the driver, which knows the backends).
struct Config {
  bool list = false;
  std::vector<std::string> backends{"all"};  // cpu, cuda, opencl, all
  std::vector<std::string> devices;          // cpu, cuda:N, opencl:P:D (--cl-platform/--cl-device folded in)
  std::vector<std::string> variants{"all"};  // names from kVariants, or all
  std::string image_path;                    // empty: the generated default image
  int width = 2048, height = 2048;           // of the generated image
  int channels = 1;                          // of the generated image
  std::vector<std::string> filters;          // empty: default_filter_specs()
  std::vector<std::string> borders{"zero"};
  bool flip = false;
  std::string output_dir;
  std::string output_format;  // png, pfm, or empty: by the input (png for 8-bit, pfm for float)
  MeasurementSettings measurement;  // --repetitions, --warmup, --time-budget, --min-samples, --max-noise, --cold
  double kernel_timeout_s = kDefaultKernelTimeoutS;  // --kernel-timeout: the longest one wait for the device
  double min_change_percent = 5;   // --compare: a slower median by less than this is not a regression
  double significance = 0.01;      // --compare: the Mann-Whitney U test's p-value must be under this
  std::vector<std::string> command;  // argv as typed, for the report
  std::vector<std::string> memories{"pinned"};  // where the frames live: pinned, pageable, mapped, managed or both (pinned, pageable)
  std::vector<std::string> pixels{"f32"};       // pixel storage on the device: f32, u8 (each runs)
  std::string json_path, csv_path, markdown_path;
  std::string kernel_dir;
  bool quiet = false;
  bool verbose = false;  // the console's detail view
  std::vector<std::string> sweeps;  // "radius=1..32", "size=512..8192"
  std::string plot_path;            // .png or .svg
  std::string compare_path;         // baseline JSON report
  int stream_frames = 0;            // --stream N: also push N frames through with overlap
  bool split = false;               // --split: one frame in bands over the --device list of one backend
  bool retune = false;
  bool measure_peaks = true;        // the device block's copy and FMA rates (off for simulators)
  std::vector<std::string> merge_reports;  // `convcompare merge a.json b.json ...`
};

// Parses argv into a Config. Returns nullopt when --help or --version has printed its text to `out`
// (the command then exits 0). Throws InputError, one line, on any usage error.
std::optional<Config> parse_command_line(int argc, const char* const* argv, std::ostream& out);

// "640x480" -> {640, 480}; throws InputError unless both are positive integers.
std::pair<int, int> parse_size(const std::string& text);

}  // namespace cc
