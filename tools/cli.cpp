// cli.cpp: the convcompare command line (CLI11): options, help text, and the WxH size syntax.
#include "tools/cli.h"

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
#include "common/domain/error.h"
#include "common/domain/filter.h"
#include "common/domain/variants.h"

namespace cc {

namespace {

std::string help_footer() {
  std::vector<std::string_view> candidates;
  for (const VariantTraits& variant : all_variants())
    if (variant.auto_candidate) candidates.push_back(variant.name);
  std::string variants;
  for (const VariantTraits& variant : all_variants())
    variants += variant.kind == VariantKind::Choice  // its candidates from the table, never a list kept by hand
                    ? fmt::format("  {:<14} {} ({}; not in all)\n", variant.name, variant.memory_space, fmt::join(candidates, ", "))
                    : fmt::format("  {:<14} {}\n", variant.name, variant.memory_space);
  return fmt::format(
      "Variants:\n{}Filters: {}, file:PATH\n"
      "Exit status: 0 every run validated (skips are fine), 1 a run failed validation, 2 bad usage or input or\n"
      "nothing to run (or a --compare baseline that matches no run), 3 --compare found a run slower than its\n"
      "baseline (and nothing failed validation), 4 --compare found a run too few samples could decide (nothing\n"
      "slower or failing).",
      variants, fmt::join(builtin_filter_names(), ", "));
}

// The --pixel help: the variants with 8-bit kernels, from the table's `pixels` (never a list of names).
std::string pixel_help() {
  std::vector<std::string_view> eight_bit;
  for (const VariantTraits& variant : all_variants())
    if (variant.pixels & kU8) eight_bit.push_back(variant.name);
  return fmt::format("Pixel storage on the device: f32 (float planes) or u8 (8-bit, 1 or 4 interleaved channels, "
                     "float arithmetic, results rounded and saturated; runs in {}, the others skip); a comma list "
                     "runs each",
                     fmt::join(eight_bit, ", "));
}

// "convcompare 0.1.0 (git 2abe048c1d2e)" and the backends this binary was built with.
std::string version_text() {
  return fmt::format("convcompare {} (git {})\nbackends: {}", CONVCOMPARE_VERSION, CONVCOMPARE_GIT_REVISION,
                     fmt::join(compiled_backends(), ", "));
}

// CLI11 prefixes some messages with the program name; the driver adds its own prefix.
std::string without_program_name(std::string message, const std::string& name) {
  const std::string prefix = name + ": ";
  if (message.starts_with(prefix)) message.erase(0, prefix.size());
  // CLI11's words for a one-value option given twice ("--repetitions: At Most 1 required but received 2")
  // read as a range check on the value: said as what happened.
  constexpr std::string_view kTwice = ": At Most 1 required but received ";
  if (const std::size_t at = message.find(kTwice); at != std::string::npos)
    message = fmt::format("{} given {} times: it takes one value", message.substr(0, at),
                          message.substr(at + kTwice.size()));
  return message;
}

}  // namespace

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

std::optional<Config> parse_command_line(int argc, const char* const* argv, std::ostream& out) {
  Config config;
  CLI::App app{
      "convcompare: the same 2D convolution through CUDA and OpenCL, every memory space, "
      "validated against a CPU reference and timed.",
      "convcompare"};
  app.set_version_flag("--version", version_text(), "Print the version, git revision and the backends compiled in");
  app.footer(help_footer());

  std::string size;
  int cl_platform = -1, cl_device = -1;
  // An option naming a file or directory given "" would otherwise mean "not given" (--image "" ran the
  // generated image): refused instead.
  const CLI::Validator named_file(
      [](std::string& value) { return value.empty() ? std::string("an empty name is not a file") : std::string(); }, "");
  app.add_flag("--list", config.list, "List backends, devices, variants and filters; run nothing");
  app.add_option("--backend", config.backends, "cpu, cuda, opencl or all (comma list)")
      ->type_name("LIST")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->default_str("all");
  app.add_option("--device", config.devices,
                 "Device to run: cpu, cuda:N, opencl:P:D (repeatable or comma list; default: every device)")
      ->type_name("ID")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--cl-platform", cl_platform, "OpenCL platform P (with --cl-device D: opencl:P:D)")
      ->type_name("P")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()));
  app.add_option("--cl-device", cl_device, "OpenCL device D on --cl-platform (default platform 0)")
      ->type_name("D")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()));
  app.add_option("--variant", config.variants, "Variants to run (comma list) or all")
      ->type_name("LIST")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->default_str("all");
  CLI::Option* image =
      app.add_option("--image", config.image_path, "Input image: PNG, JPEG, BMP or PFM")->type_name("PATH")->check(named_file);
  app.add_option("--size", size, "Size of the generated image, WIDTHxHEIGHT")
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
  app.add_option("--output-dir", config.output_dir, "Write the reference and every result here")->type_name("DIR")->check(named_file);
  app.add_option("--output-format", config.output_format, "png or pfm (default: png for 8-bit input, pfm for float)")
      ->type_name("FORMAT")
      ->check(CLI::IsMember({"png", "pfm"}));
  app.add_option("--repetitions", config.repetitions, "Timed launches per run")
      ->type_name("N")
      ->check(CLI::Range(1, 1000000))
      ->default_str("10");
  app.add_option("--warmup", config.warmup, "Untimed launches before timing (0 acts as 1: one launch sizes the time budget)")
      ->type_name("N")
      ->check(CLI::Range(0, 1000000))
      ->default_str("2");
  app.add_option("--time-budget", config.time_budget_s,
                 "Stop repeating a run once its timed launches have spent about this long (at least one is timed)")
      ->type_name("SECONDS")
      ->default_str("2");
  app.add_option("--min-samples", config.min_samples,
                 "With --max-noise: samples taken before the noise is judged (the time budget still caps a run)")
      ->type_name("N")
      ->check(CLI::Range(1, 1000000))
      ->default_str("5");
  app.add_option("--max-noise", config.max_noise_percent,
                 "Stop a run once its noise (1.4826 x MAD / median) is at or under PCT percent; 0: take --repetitions")
      ->type_name("PCT")
      ->check(CLI::Range(0.0, 1000.0))
      ->default_str("0");
  app.add_flag("--cold", config.cold, "Flush the device's L2 (and the CPU's caches) before every sample, outside the timing");
  bool pinned = false, pageable = false;
  CLI::Option* memory =
      app.add_option("--memory", config.memories, "Host memory for transfers: pinned, pageable or both (comma list)")
          ->type_name("LIST")
          ->delimiter(',')
          ->allow_extra_args(false)
          ->check(CLI::IsMember({"pinned", "pageable", "both"}))
          ->default_str("pinned");
  app.add_option("--pixel", config.pixels, pixel_help())
      ->type_name("LIST")
      ->delimiter(',')
      ->allow_extra_args(false)
      ->check(CLI::IsMember({"f32", "u8"}))
      ->default_str("f32");
  app.add_flag("--pinned", pinned, "Page-locked host memory for transfers (the default; --memory pinned)")->excludes(memory);
  app.add_flag("--pageable", pageable, "Pageable host memory for transfers (--memory pageable)")->excludes(memory);
  app.add_option("--json", config.json_path, "Write the report as JSON")->type_name("FILE")->check(named_file);
  app.add_option("--csv", config.csv_path, "Write the runs as CSV")->type_name("FILE")->check(named_file);
  app.add_option("--markdown", config.markdown_path, "Write the report as markdown")->type_name("FILE")->check(named_file);
  app.add_option("--kernel-dir", config.kernel_dir,
                 "Read kernel sources from this directory instead of the embedded copies")
      ->type_name("DIR")
      ->check(named_file);
  app.add_flag("--quiet", config.quiet, "No table on stdout");
  app.add_flag("--verbose", config.verbose,
               "Every column in the console tables (backend, GFLOP/s, device MB, tolerance) and each point of a sweep");
  app.add_option("--sweep", config.sweeps,
                 "Vary the radius of every --filter (radius=1..32 or radius=1,2,3,7) or the generated image "
                 "(size=512..8192 doubles; size=640x480,1920x1080); repeatable, combined as a grid")
      ->type_name("WHAT=RANGE")
      ->allow_extra_args(false);
  app.add_option("--plot", config.plot_path, "Draw MPix/s against radius or size and the phases: FILE.png or FILE.svg")
      ->type_name("FILE")
      ->check(named_file);
  app.add_option("--compare", config.compare_path,
                 "Mark runs slower than in this saved --json report (Mann-Whitney U test on the samples and --min-change) "
                 "or no longer validating; exit 3 when any is slower, 4 when too few samples decide")
      ->type_name("BASELINE.json")
      ->check(named_file);
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
  app.add_option("--stream", config.stream_frames,
                 "Also push N frames through upload, filter and download, overlapped, per GPU variant")
      ->type_name("N")
      ->check(CLI::Range(1, 100000));
  app.add_flag("!--no-peaks", config.measure_peaks,
               "Do not measure the devices' copy and FMA rates (no % of bound; for simulators such as Oclgrind)");
  app.add_flag("--retune", config.retune, "--variant auto: measure the candidates again and rewrite the cache");
  CLI::App* merge = app.add_subcommand(
      "merge", "One side-by-side table from saved --json reports; takes --json, --csv, --markdown, --plot, --quiet");
  merge->add_option("reports", config.merge_reports, "JSON reports written by --json, from any machines")
      ->type_name("REPORT.json ...");
  merge->fallthrough();  // the report options may follow the report files

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& done) {  // --help, --version
    app.exit(done, out);
    return std::nullopt;
  } catch (const CLI::ParseError& error) {
    throw InputError(without_program_name(error.what(), app.get_name()));
  }

  if (merge->parsed()) {
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
  if (merge->parsed() && config.merge_reports.empty())
    throw InputError("merge needs the JSON reports to merge: convcompare merge a.json b.json ...");
  config.command.assign(argv, argv + argc);
  if (config.min_samples > config.repetitions && app.get_option("--min-samples")->count() > 0)
    throw InputError(fmt::format("--min-samples {} is more than --repetitions {}, the most samples a run takes",
                                 config.min_samples, config.repetitions));
  if (pinned) config.memories = {"pinned"};
  if (pageable) config.memories = {"pageable"};
  if (pinned && pageable) config.memories = {"pinned", "pageable"};
  if (std::ranges::find(config.memories, "both") != config.memories.end()) config.memories = {"pinned", "pageable"};
  if (!size.empty()) std::tie(config.width, config.height) = parse_size(size);
  if (!(config.time_budget_s > 0)) {  // also NaN, which CLI11 would accept as a number
    // As typed: 1e-400 reads as 0, and "bad --time-budget 0" would not be what the user wrote.
    const std::vector<std::string>& typed = app.get_option("--time-budget")->results();
    throw InputError(fmt::format("bad --time-budget '{}': expected seconds greater than 0 (it reads as {})",
                                 typed.empty() ? fmt::format("{}", config.time_budget_s) : typed.back(),
                                 config.time_budget_s));
  }
  // CLI::Range lets NaN through (every comparison with it is false), and a NaN threshold switches the
  // gate off: a 100x slowdown read "unchanged" (issue #30).
  for (const auto& [name, value] : {std::pair{"--significance", config.significance},
                                    std::pair{"--min-change", config.min_change_percent},
                                    std::pair{"--max-noise", config.max_noise_percent}})
    if (!std::isfinite(value)) throw InputError(fmt::format("bad {} {}: expected a finite number", name, value));
  if (cl_platform >= 0 || cl_device >= 0) {
    const int platform = std::max(cl_platform, 0);
    config.devices.push_back(cl_device >= 0 ? fmt::format("opencl:{}:{}", platform, cl_device)
                                            : fmt::format("opencl:{}", platform));
  }
  return config;
}

}  // namespace cc
