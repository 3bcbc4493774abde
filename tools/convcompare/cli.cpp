// cli.cpp: the convcompare command line (CLI11): its options, how they fold into a Config, and the WxH size syntax.
#include "tools/convcompare/cli.h"
#include "tools/convcompare/cli_checks.h"
#include "tools/convcompare/cli_help.h"
#include "tools/convcompare/completion.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

#include "backends/backend.h"
#include "common/domain/backend_names.h"
#include "common/domain/error.h"
#include "common/domain/problem.h"

namespace cc {

std::pair<int, int> parse_size(const std::string& text) {
  const auto parse_positive = [&](std::string_view digits) {
    int value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || error != std::errc{} || end != digits.data() + digits.size() || value <= 0)
      throw InputError(
          fmt::format("bad --size '{}': expected WIDTHxHEIGHT with positive integers, e.g. 640x480", text));
    return value;
  };
  const std::size_t x = text.find_first_of("xX");
  if (x == std::string::npos)
    throw InputError(fmt::format("bad --size '{}': expected WIDTHxHEIGHT with positive integers, e.g. 640x480", text));
  const std::string_view view = text;
  return {parse_positive(view.substr(0, x)), parse_positive(view.substr(x + 1))};
}

namespace {

// "convcompare 0.1.0 (git 2abe048c1d2e)" and the backends this binary was built with.
std::string version_text() {
  return fmt::format("convcompare {} (git {})\nbackends: {}", CONVCOMPARE_VERSION, CONVCOMPARE_GIT_REVISION,
                     fmt::join(compiled_backends(), ", "));
}

// Options typed in forms the Config does not keep, folded into it once parsed.
struct TypedOptions {
  std::string size;                    // --size WxH
  int cl_platform = -1, cl_device = -1;  // --cl-platform, --cl-device: one more --device
  bool pinned = false, pageable = false;  // the old spellings of --memory
  bool help_man = false, print_completion_table = false;
};

// The help text's layout, --version, and the hidden flags the man page and bash completion are made from.
void add_help_options(CLI::App& app, int argc, const char* const* argv, TypedOptions& typed) {
  app.formatter(make_wrapping_formatter());
  app.set_version_flag("--version", version_text(), "Print the version, git revision and the backends compiled in");
  // --help-man: the --help that help2man reads (its EXIT STATUS section marked), hidden from --help.
  const bool man_page = std::any_of(argv + std::min(argc, 1), argv + argc, [](const char* arg) {
    return std::string_view(arg) == "--help-man";
  });
  app.footer(help_footer(man_page));
  app.add_flag("--help-man", typed.help_man)->group("");
  app.add_flag("--completion-table", typed.print_completion_table)->group("");  // for cmake/bash_completion.cmake
}

// Each add_*_options below adds its options in --help's order, so the calls' order is the help's.

// What runs: backends, devices and variants, and --list.
void add_selection_options(CLI::App& app, Config& config, TypedOptions& typed) {
  app.add_flag("--list", config.list, "List backends, devices, variants and filters; run nothing (--json FILE: as JSON)");
  app.add_option("--backend", config.backends, backend_name_list(", ", ", ") + " or all (comma list)")
      ->type_name("LIST")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->default_str("all");
  app.add_option("--device", config.devices,
                 "Device to run: " + device_id_forms(", ", ", ") + " (repeatable or comma list; default: every device)")
      ->type_name("ID")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--cl-platform", typed.cl_platform, "OpenCL platform P (with --cl-device D: opencl:P:D)")
      ->type_name("P")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()));
  app.add_option("--cl-device", typed.cl_device, "OpenCL device D on --cl-platform (default platform 0)")
      ->type_name("D")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()));
  app.add_option("--variant", config.variants, "Variants to run (comma list) or all")
      ->type_name("LIST")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->default_str("all");
}

// The input image, the filters applied to it, and where the results are written.
void add_image_options(CLI::App& app, Config& config, TypedOptions& typed) {
  CLI::Option* image =
      app.add_option("--image", config.image_path, "Input image: PNG, JPEG, BMP or PFM")->type_name("PATH")->check(named_file());
  app.add_option("--size", typed.size, "Size of the generated image, WIDTHxHEIGHT")
      ->type_name("WxH")
      ->default_str("2048x2048")
      ->excludes(image);
  app.add_option("--channels", config.channels, "Channels of the generated image")
      ->type_name("N")
      ->check(CLI::Range(1, 4))
      ->default_str("1")
      ->excludes(image);
  // Not split on commas: a spec has its own commas (gaussian:sigma=2,r=5).
  app.add_option("--filter", config.filters, "Filter spec, repeatable: box:r=3, gaussian:sigma=3.2, file:PATH, ...")
      ->type_name("SPEC")
      ->allow_extra_args(false);
  app.add_option("--border", config.borders, "zero, clamp, mirror or wrap (comma list runs each)")
      ->type_name("LIST")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->default_str("zero");
  app.add_flag("--flip", config.flip, "True convolution (filter rotated 180 degrees) instead of correlation");
  app.add_option("--output-dir", config.output_dir, "Write the reference and every result here")->type_name("DIR")->check(named_file());
  app.add_option("--output-format", config.output_format, "png or pfm (default: png for 8-bit input, pfm for float)")
      ->type_name("FORMAT")
      ->check(one_of(kOutputFormats));
}

// The measurement protocol's settings (MeasurementSettings) and the device wait limit.
void add_measurement_options(CLI::App& app, Config& config) {
  app.add_option("--repetitions", config.measurement.repetitions, "Timed launches per run")
      ->type_name("N")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--warmup", config.measurement.warmup, "Untimed launches before timing (0 acts as 1: one launch sizes the time budget)")
      ->type_name("N")
      ->check(CLI::Range(0, 1000000))
      ->capture_default_str();
  app.add_option("--time-budget", config.measurement.time_budget_s,
                 "Cut each run (warm-ups, samples, batch, transfers) once it has spent about this long (build and first launch "
                 "not counted; at least --min-samples launches are timed)")
      ->type_name("SECONDS")
      ->check(seconds_span())
      ->capture_default_str();
  app.add_option("--kernel-timeout", config.kernel_timeout_s, "Give up (exit 2) on a device wait (a launch, a batch, a copy) that takes longer")
      ->type_name("SECONDS")->check(seconds_span())->capture_default_str();
  app.add_option("--min-samples", config.measurement.min_samples,
                 "The fewest samples before --time-budget or --max-noise may stop a run")
      ->type_name("N")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  app.add_option("--max-noise", config.measurement.max_noise_percent,
                 "Stop a run once its noise (1.4826 x MAD / median) is at or under PCT percent; 0: take --repetitions "
                 "(with --compare: the noise that lets it see --min-change, up to 50 samples)")
      ->type_name("PCT")
      ->check(CLI::Range(0.0, 1000.0))
      ->capture_default_str();
  app.add_flag("--cold", config.measurement.cold, "Flush the device's L2 (and the CPU's caches) before every sample, outside the timing");
}

// Where the frames live on the host and the device's pixel storage.
void add_memory_options(CLI::App& app, Config& config, TypedOptions& typed) {
  CLI::Option* memory =
      app.add_option("--memory", config.memories, "Where frames live: pinned, pageable (copied), mapped (zero-copy), managed (CUDA managed / OpenCL SVM), managed-faults (managed without prefetch: page faults; OpenCL fine-grained SVM) or both (pinned,pageable); comma list")
          ->type_name("LIST")
          ->delimiter(',')
          ->allow_extra_args(false)
          ->check(one_of(kMemories))
          ->default_str("pinned");
  app.add_option("--pixel", config.pixels, pixel_help())
      ->type_name("LIST")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(one_of(kPixels, {{"uint8", "u8"}, {"uchar", "u8"}, {"8", "u8"}, {"float", "f32"}, {"float32", "f32"}}))
      ->default_str("f32");
  app.add_flag("--pinned", typed.pinned, "Page-locked host memory for transfers (the default; --memory pinned)")->excludes(memory);
  app.add_flag("--pageable", typed.pageable, "Pageable host memory for transfers (--memory pageable)")->excludes(memory);
}

// The reports written and what the console shows (--kernel-dir sits among them to keep --help's order).
void add_report_options(CLI::App& app, Config& config) {
  app.add_option("--json", config.json_path, "Write the report as JSON")->type_name("FILE")->check(named_file());
  app.add_option("--csv", config.csv_path, "Write the runs as CSV")->type_name("FILE")->check(named_file());
  app.add_option("--markdown", config.markdown_path, "Write the report as markdown")->type_name("FILE")->check(named_file());
  app.add_option("--kernel-dir", config.kernel_dir,
                 "Read kernel sources from this directory instead of the embedded copies")
      ->type_name("DIR")
      ->check(named_file());
  app.add_flag("--quiet", config.quiet, "No table on stdout");
  app.add_flag("--verbose", config.verbose,
               "Every column in the console tables (backend, GFLOP/s, device MB, tolerance) and each point of a sweep");
  app.add_option("--sweep", config.sweeps,
                 "Vary the radius of every --filter (radius=1..32 or radius=1,2,3,7) or the generated image "
                 "(size=512..8192 doubles; size=640x480,1920x1080); repeatable, combined as a grid")
      ->type_name("WHAT=RANGE")
      ->allow_extra_args(false);
  app.add_option("--plot", config.plot_path, "Draw MPix/s against radius or size and the phases: FILE.png, FILE.svg or FILE.pdf")
      ->type_name("FILE")
      ->check(named_file());
}

// --compare against a saved report and its two thresholds.
void add_compare_options(CLI::App& app, Config& config) {
  app.add_option("--compare", config.compare_path,
                 "Mark runs slower than in this saved --json report (Mann-Whitney U test on the samples and --min-change) "
                 "or no longer validating; exit 3 when any is slower, 4 when one cannot be judged (too noisy, too "
                 "few samples, the machine changed)")
      ->type_name("BASELINE.json")
      ->check(named_file());
  app.add_option("--min-change", config.min_change_percent,
                 "--compare: a run is slower or faster only when its median moved by more than PCT percent")
      ->type_name("PCT")
      ->check(CLI::Range(0.0, 1000.0))
      ->default_str("5");
  app.add_option("--significance", config.significance,
                 "--compare: and when the Mann-Whitney U test on the two runs' samples gives p under P")
      ->type_name("P")
      ->check(CLI::Range(1e-12, 1.0))
      ->default_str("0.01");
}

// Runs beyond the default ones, and the switches for measuring peaks and retuning.
void add_extra_run_options(CLI::App& app, Config& config) {
  app.add_option("--stream", config.stream_frames,
                 "Also push N frames through upload, filter and download, overlapped, per GPU variant; with two "
                 "or more --device of one backend, also the N frames dealt round robin over them (one row, "
                 "frames per device)")
      ->type_name("N")
      ->check(CLI::Range(1, 100000));
  app.add_flag("--split", config.split,
               "Also run one frame cut in horizontal bands over the --device list of one backend (two or more, "
               "e.g. --device opencl:0:0,opencl:0:1), each band with its halo rows, stitched and validated");
  app.add_flag("!--no-peaks", config.measure_peaks,
               "Do not measure the devices' copy and FMA rates (no % of bound; for simulators such as Oclgrind)");
  app.add_flag("--retune", config.retune, "With --variant auto: measure the candidates again and rewrite the cache");
}

// The merge subcommand, with its own copies of the report options.
CLI::App* add_merge_command(CLI::App& app, Config& config) {
  CLI::App* merge = app.add_subcommand(
      "merge", "One side-by-side table from saved --json reports; takes --json, --csv, --markdown, --plot, --quiet");
  merge->add_option("reports", config.merge_reports, "JSON reports written by --json, from any machines")
      ->type_name("REPORT.json");
  merge->footer("Example:\n" + footer_item("convcompare merge a.json b.json --markdown both.md",
                                             "One side-by-side table from reports saved on two machines.") +
                "\nExit status: 0 merged, 2 a report could not be read.");
  // Its own copies of the report options, so `merge --help` lists them; given before `merge` the main
  // command's set the same fields.
  merge->add_option("--json", config.json_path, "Write the merged report as JSON")->type_name("FILE")->check(named_file());
  merge->add_option("--csv", config.csv_path, "Write the merged runs as CSV")->type_name("FILE")->check(named_file());
  merge->add_option("--markdown", config.markdown_path, "Write the merged tables as markdown")
      ->type_name("FILE")
      ->check(named_file());
  merge->add_option("--plot", config.plot_path, "Draw the merged series: FILE.png, FILE.svg or FILE.pdf")
      ->type_name("FILE")
      ->check(named_file());
  merge->add_flag("--quiet", config.quiet, "No table on stdout");
  merge->add_flag("--verbose", config.verbose, "Every column in the console tables");
  merge->fallthrough();  // options merge lacks go to the main command, which refuses them below
  return merge;
}

void check_merge_command(const CLI::App& app, const CLI::App& merge, const Config& config) {
  if (merge.parsed()) {
    // merge reads its report files and writes reports: any other option would be silently ignored.
    const std::vector<std::string> report_options = {"--json", "--csv", "--markdown", "--plot", "--quiet", "--verbose"};
    std::vector<std::string> ignored;
    for (const CLI::Option* option : app.get_options())
      if (option->count() > 0 && std::ranges::find(report_options, option->get_name()) == report_options.end())
        ignored.push_back(option->get_name());
    if (!ignored.empty())
      throw InputError(fmt::format("merge takes report files and {}, not {} (convcompare merge a.json b.json ...)",
                                   fmt::join(report_options, ", "), fmt::join(ignored, ", ")));
  }
  if (merge.parsed() && config.merge_reports.empty())
    throw InputError("merge needs the JSON reports to merge: convcompare merge a.json b.json ...");
}

// --pinned/--pageable and "both" as the --memory list they mean.
void fold_memory_flags(Config& config, const TypedOptions& typed) {
  if (typed.pinned) config.memories = {"pinned"};
  if (typed.pageable) config.memories = {"pageable"};
  if (typed.pinned && typed.pageable) config.memories = {"pinned", "pageable"};
  if (const auto both = std::ranges::find(config.memories, "both"); both != config.memories.end()) {
    *both = "pinned";  // in place, so that "both,mapped" keeps its order
    config.memories.insert(both + 1, "pageable");
  }
}

// Options that contradict each other, or values CLI11's checks let through: each said, never silently
// dropped or ignored.
void check_option_conflicts(const Config& config, const TypedOptions& typed) {
  if (!typed.size.empty() &&
      std::ranges::any_of(config.sweeps, [](const std::string& sweep) { return sweep.starts_with("size="); }))
    throw InputError(fmt::format("--size {} and --sweep size=... both set the image size: give one", typed.size));
  if (config.image_path == "-")
    throw InputError("--image -: reading the image from standard input is not supported; give a file name");
  if (config.list && !(config.csv_path.empty() && config.markdown_path.empty() && config.plot_path.empty()))
    throw InputError("--list prints to the console, or with --json FILE (- for standard output) as JSON: it writes no "
                     "--csv, --markdown or --plot");
  // CLI::Range lets NaN through (every comparison with it is false), and a NaN threshold switches the
  // gate off: a 100x slowdown read "unchanged".
  for (const auto& [name, value] : {std::pair{"--significance", config.significance},
                                    std::pair{"--min-change", config.min_change_percent},
                                    std::pair{"--max-noise", config.measurement.max_noise_percent}})
    if (!std::isfinite(value)) throw InputError(fmt::format("bad {} {}: expected a finite number", name, value));
}

// --cl-platform/--cl-device as the opencl:P:D --device they name.
void fold_cl_device(Config& config, const TypedOptions& typed) {
  if (typed.cl_platform < 0 && typed.cl_device < 0) return;
  const int platform = std::max(typed.cl_platform, 0);
  config.devices.push_back(typed.cl_device >= 0 ? fmt::format("opencl:{}:{}", platform, typed.cl_device)
                                                : fmt::format("opencl:{}", platform));
}

}  // namespace

std::optional<Config> parse_command_line(int argc, const char* const* argv, std::ostream& out) {
  Config config;
  TypedOptions typed;
  CLI::App app{
      "convcompare: the same 2D convolution through CUDA and OpenCL, every memory space, "
      "validated against a CPU reference and timed.",
      "convcompare"};
  add_help_options(app, argc, argv, typed);
  add_selection_options(app, config, typed);
  add_image_options(app, config, typed);
  add_measurement_options(app, config);
  add_memory_options(app, config, typed);
  add_report_options(app, config);
  add_compare_options(app, config);
  add_extra_run_options(app, config);
  CLI::App* merge = add_merge_command(app, config);
  if (!parse_arguments(app, argc, argv, out)) return std::nullopt;

  if (typed.help_man) {
    out << app.help();
    return std::nullopt;
  }
  if (typed.print_completion_table) {
    out << completion_table(app, *merge);
    return std::nullopt;
  }
  check_merge_command(app, *merge, config);
  config.command.assign(argv, argv + argc);
  if (config.measurement.min_samples > config.measurement.repetitions && app.get_option("--min-samples")->count() > 0)
    throw InputError(fmt::format("--min-samples {} is more than --repetitions {}, the most samples a run takes",
                                 config.measurement.min_samples, config.measurement.repetitions));
  fold_memory_flags(config, typed);
  if (!typed.size.empty()) std::tie(config.width, config.height) = parse_size(typed.size);
  check_option_conflicts(config, typed);
  fold_cl_device(config, typed);
  return config;
}

}  // namespace cc
