// cli.cpp: the convcompare command line (CLI11): options, help text, and the WxH size syntax.
#include "tools/convcompare/cli.h"
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
#include "common/domain/filter.h"
#include "common/domain/problem.h"
#include "common/domain/seconds.h"
#include "common/domain/suggest.h"
#include "common/domain/variants.h"
#include "common/report/tables.h"

namespace cc {

namespace {

// Every --help line within 80 columns, so a terminal and help2man's man page both read it.
std::string wrap(std::string_view text, std::size_t width, std::size_t indent, std::size_t first_column = 0) {
  return report_tables::wrap_words(text, width, indent, first_column);
}

constexpr std::size_t kHelpWidth = 80;
constexpr std::size_t kHelpColumn = 30;  // where option descriptions start

// CLI11 2.1's formatter never wraps: descriptions wrap here at 80 columns, and a negated flag's
// "{false}" (CLI11's note that --no-peaks sets false) is dropped, as help2man copied it into the man page.
class WrappingFormatter : public CLI::Formatter {
 public:
  std::string make_option_name(const CLI::Option* option, bool is_positional) const override {
    std::string name = CLI::Formatter::make_option_name(option, is_positional);
    if (const std::size_t brace = name.find('{'); brace != std::string::npos) name.erase(brace);
    return name;
  }
  std::string make_option(const CLI::Option* option, bool is_positional) const override {
    std::string left = "  " + make_option_name(option, is_positional) + make_option_opts(option);
    const std::string description = make_option_desc(option);
    if (left.size() + 2 > kHelpColumn) {  // too wide for the column: the description starts on the next line
      left += '\n';
      left += std::string(kHelpColumn, ' ');
    } else {
      left.resize(kHelpColumn, ' ');
    }
    return left + wrap(description, kHelpWidth, kHelpColumn, kHelpColumn) + '\n';
  }
  std::string make_subcommand(const CLI::App* command) const override {
    std::string left = "  " + command->get_display_name(true);
    left.resize(std::max(left.size() + 1, kHelpColumn), ' ');
    return left + wrap(command->get_description(), kHelpWidth, kHelpColumn, left.size()) + '\n';
  }
  std::string make_description(const CLI::App* app) const override {
    return wrap(app->get_description(), kHelpWidth, 0) + "\n";
  }
};

// One item of a footer list: "  NAME  text" with the text wrapped under itself.
std::string footer_item(std::string_view name, std::string_view text, std::size_t column = 18) {
  std::string line = fmt::format("  {}", name);
  line += line.size() + 1 < column ? std::string(column - line.size(), ' ') : "\n" + std::string(column, ' ');
  return line + wrap(text, kHelpWidth, column, column) + "\n";
}

// The sections after the options. help2man turns "Examples:" and "Environment:" into EXAMPLES and
// ENVIRONMENT; "*Exit status*" is its marker for a section of another name (only in --help-man, the text
// the man page is made from; --help says "Exit status:").
std::string help_footer(bool for_man_page) {
  std::vector<std::string_view> candidates;
  for (const VariantTraits& variant : all_variants())
    if (variant.auto_candidate) candidates.push_back(variant.name);
  std::string variants;
  for (const VariantTraits& variant : all_variants())
    // A Choice's candidates from the table, never a list kept by hand, wrapped under its text like any
    // item (tests/cli/test_docs.cpp finds the list with the wrapping undone).
    variants += variant.kind == VariantKind::Choice
                    ? footer_item(variant.name, std::string(variant.memory_space) + " (not in all), from:") +
                          std::string(18, ' ') + wrap(fmt::format("{}", fmt::join(candidates, ", ")), kHelpWidth, 18, 18) +
                          "\n"
                    : footer_item(variant.name, variant.memory_space);
  const std::string filters = "  " + wrap(fmt::format("{}, file:PATH (a text file of rows of weights)",
                                                     fmt::join(builtin_filter_names(), ", ")),
                                         kHelpWidth, 2, 2);
  const std::string examples =
      footer_item("convcompare --backend cpu --size 256x256",
                  "A quick first run on the CPU alone: every variant, validated and timed.") +
      footer_item("convcompare --image photo.png --filter gaussian:sigma=2 --output-dir out",
                  "Blur a photo through every backend; the results are written to out/.") +
      footer_item("convcompare --size 8192x8192 --json base.json",
                  "A GPU-sized run saved as a baseline (a CPU takes minutes at this size).") +
      footer_item("convcompare --size 8192x8192 --compare base.json",
                  "The same run again; exit status 3 when a run got slower.") +
      footer_item("convcompare --backend cpu --sweep radius=1..8 --size 512x512 --plot r.svg",
                  "MPix/s against the filter radius, drawn to r.svg (or .png, .pdf).") +
      footer_item("convcompare merge a.json b.json --markdown both.md",
                  "One side-by-side table from reports saved on two machines.");
  const std::string environment =
      footer_item("CONVCOMPARE_CACHE_DIR", "Where --variant auto keeps its tuning cache.", 24) +
      footer_item("XDG_CACHE_HOME", "Else the cache is in $XDG_CACHE_HOME/convcompare (an absolute path), else in "
                                    "$HOME/.cache/convcompare.", 24) +
      footer_item("COLUMNS", "The progress line's width when stderr is not a terminal.", 24) +
      footer_item("OCL_ICD_VENDORS", "Read by the OpenCL ICD loader: where the platforms' .icd files are.", 24) +
      footer_item("RUSTICL_ENABLE", "Read by Mesa's Rusticl: the drivers it exposes (e.g. radeonsi, iris, llvmpipe).",
                  24) +
      footer_item("POCL_DEVICES", "Read by PoCL, as are its other POCL_ settings (e.g. POCL_MEMORY_LIMIT).", 24) +
      footer_item("CUDA_VISIBLE_DEVICES", "Read by the CUDA driver: the GPUs that cuda:N numbers.", 24);
  const std::string exit_status =
      footer_item("0", "Every run validated (skipped runs are fine).", 6) +
      footer_item("1", "A run failed validation.", 6) +
      footer_item("2", "Bad usage or input, nothing to run, or a --compare baseline that matches no run.", 6) +
      footer_item("3", "--compare found a run slower than its baseline (and nothing failed validation).", 6) +
      footer_item("4", "--compare found a run it cannot judge (inconclusive: too noisy to see --min-change, too few "
                       "samples, or the machine changed), and nothing slower or failing.", 6) +
      footer_item("130", "Interrupted by SIGINT (143: SIGTERM): the runs that finished are printed and written, "
                         "marked incomplete; two signals within a second are one.", 6);
  return fmt::format("Variants:\n{}\nFilters:\n{}\n\n{}\n{}\nExamples:\n{}\nEnvironment:\n{}", variants, filters,
                     for_man_page ? "*Exit status*" : "Exit status:", exit_status, examples, environment);
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
// A comma list with an empty item ("--memory ,", "--variant fast,,tiled"), as typed, before CLI11 sees it:
// CLI11 drops the empty items, so a list of none took the next argument as its value ("--memory , --quiet"
// named --quiet as the bad memory mode). Both spellings, "--memory ," and "--memory=,".
void refuse_empty_list_items(const CLI::App& app, int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") return;
    if (!arg.starts_with("--")) continue;
    const std::size_t equals = arg.find('=');
    const std::string name(arg.substr(0, equals));
    const CLI::Option* option = app.get_option_no_throw(name);
    if (!option || option->get_delimiter() != ',') continue;
    if (equals == std::string_view::npos && i + 1 >= argc) return;  // no value: CLI11 says so
    const std::string_view value = equals == std::string_view::npos ? std::string_view(argv[++i]) : arg.substr(equals + 1);
    if (value.find_first_not_of(',') == std::string_view::npos)
      throw InputError(fmt::format("{} '{}': the list is empty; give one or more values separated by commas", name, value));
    if (value.front() == ',' || value.back() == ',' || value.find(",,") != std::string_view::npos)
      throw InputError(fmt::format("{} '{}': an empty item in the list (a comma at an end, or two together)", name, value));
  }
}

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

// A value checked against a list of names, said with the list and the closest name (CLI11's IsMember
// names neither); `other_names`: what other tools call a value ("uint8"), suggested as ours.
CLI::Validator one_of(const std::vector<std::string>& names,
                      std::vector<std::pair<std::string, std::string>> other_names = {}) {
  return CLI::Validator(
      [names, other_names](std::string& value) {
        if (std::ranges::find(names, value) != names.end()) return std::string();
        const auto other = std::ranges::find(other_names, value, &std::pair<std::string, std::string>::first);
        return fmt::format("unknown value '{}' ({}){}", value, fmt::join(names, ", "),
                           other != other_names.end() ? fmt::format("; did you mean '{}'?", other->second)
                                                      : did_you_mean(value, names));
      },
      "");
}

// Arguments CLI11 found no place for: the first unknown option with the closest option's name
// ("--sizes 256x256": CLI11 said "arguments were not expected: 256x256 --sizes", in reverse), or the first
// stray word (a mistyped subcommand gets "merge").
std::string unexpected_arguments(const CLI::App& app, const CLI::ExtrasError& error) {
  const std::vector<std::string> extras = app.remaining(true);
  std::vector<std::string> option_names;
  for (const CLI::Option* option : app.get_options())
    if (!option->get_group().empty())
      for (const std::string& name : option->get_lnames()) option_names.push_back("--" + name);
  for (const std::string& extra : extras)
    if (extra.size() > 1 && extra.front() == '-') {
      const std::string name = extra.substr(0, extra.find('='));
      return fmt::format("unknown option '{}'{}", name, did_you_mean(name, option_names));
    }
  if (extras.empty()) return without_program_name(error.what(), app.get_name());
  return fmt::format("unexpected argument '{}'{}", extras.front(), did_you_mean(extras.front(), std::vector<std::string_view>{"merge"}));
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
  app.formatter(std::make_shared<WrappingFormatter>());
  app.set_version_flag("--version", version_text(), "Print the version, git revision and the backends compiled in");
  // --help-man: the --help that help2man reads (its EXIT STATUS section marked), hidden from --help.
  const bool man_page = std::any_of(argv + std::min(argc, 1), argv + argc, [](const char* arg) {
    return std::string_view(arg) == "--help-man";
  });
  app.footer(help_footer(man_page));
  bool help_man = false, print_completion_table = false;
  app.add_flag("--help-man", help_man)->group("");
  app.add_flag("--completion-table", print_completion_table)->group("");  // for cmake/bash_completion.cmake

  std::string size;
  int cl_platform = -1, cl_device = -1;
  // An option naming a file or directory given "" would otherwise mean "not given" (--image "" ran the
  // generated image): refused instead.
  const CLI::Validator named_file(
      [](std::string& value) { return value.empty() ? std::string("an empty name is not a file") : std::string(); }, "");
  // A span of seconds is checked as typed by the one parser every duration goes through (common/domain/seconds.h):
  // out of range, NaN and 1e-400 (which reads as 0) are each refused with the text the user wrote.
  const CLI::Validator seconds(
      [](std::string& value) {
        try {
          Seconds::parse(value, "");
          return std::string();
        } catch (const InputError& problem) {
          return std::string(problem.what());
        }
      },
      "");
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
      ->check(one_of(kOutputFormats));
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
      ->check(seconds)
      ->capture_default_str();
  app.add_option("--kernel-timeout", config.kernel_timeout_s, "Give up (exit 2) on a device wait (a launch, a batch, a copy) that takes longer")
      ->type_name("SECONDS")->check(seconds)->capture_default_str();
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
  bool pinned = false, pageable = false;
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
  app.add_option("--plot", config.plot_path, "Draw MPix/s against radius or size and the phases: FILE.png, FILE.svg or FILE.pdf")
      ->type_name("FILE")
      ->check(named_file);
  app.add_option("--compare", config.compare_path,
                 "Mark runs slower than in this saved --json report (Mann-Whitney U test on the samples and --min-change) "
                 "or no longer validating; exit 3 when any is slower, 4 when one cannot be judged (too noisy, too "
                 "few samples, the machine changed)")
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
  CLI::App* merge = app.add_subcommand(
      "merge", "One side-by-side table from saved --json reports; takes --json, --csv, --markdown, --plot, --quiet");
  merge->add_option("reports", config.merge_reports, "JSON reports written by --json, from any machines")
      ->type_name("REPORT.json");
  merge->footer("Example:\n" + footer_item("convcompare merge a.json b.json --markdown both.md",
                                             "One side-by-side table from reports saved on two machines.") +
                "\nExit status: 0 merged, 2 a report could not be read.");
  // Its own copies of the report options, so `merge --help` lists them; given before `merge` the main
  // command's set the same fields.
  merge->add_option("--json", config.json_path, "Write the merged report as JSON")->type_name("FILE")->check(named_file);
  merge->add_option("--csv", config.csv_path, "Write the merged runs as CSV")->type_name("FILE")->check(named_file);
  merge->add_option("--markdown", config.markdown_path, "Write the merged tables as markdown")
      ->type_name("FILE")
      ->check(named_file);
  merge->add_option("--plot", config.plot_path, "Draw the merged series: FILE.png, FILE.svg or FILE.pdf")
      ->type_name("FILE")
      ->check(named_file);
  merge->add_flag("--quiet", config.quiet, "No table on stdout");
  merge->add_flag("--verbose", config.verbose, "Every column in the console tables");
  merge->fallthrough();  // options merge lacks go to the main command, which refuses them below

  try {
    refuse_empty_list_items(app, argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::Success& done) {  // --help, --version
    app.exit(done, out);
    return std::nullopt;
  } catch (const CLI::ExtrasError& error) {
    throw InputError(unexpected_arguments(app, error));
  } catch (const CLI::ParseError& error) {
    throw InputError(without_program_name(error.what(), app.get_name()));
  }

  if (help_man) {
    out << app.help();
    return std::nullopt;
  }
  if (print_completion_table) {
    out << completion_table(app, *merge);
    return std::nullopt;
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
  if (config.measurement.min_samples > config.measurement.repetitions && app.get_option("--min-samples")->count() > 0)
    throw InputError(fmt::format("--min-samples {} is more than --repetitions {}, the most samples a run takes",
                                 config.measurement.min_samples, config.measurement.repetitions));
  if (pinned) config.memories = {"pinned"};
  if (pageable) config.memories = {"pageable"};
  if (pinned && pageable) config.memories = {"pinned", "pageable"};
  if (const auto both = std::ranges::find(config.memories, "both"); both != config.memories.end()) {
    *both = "pinned";  // in place, so that "both,mapped" keeps its order
    config.memories.insert(both + 1, "pageable");
  }
  if (!size.empty()) std::tie(config.width, config.height) = parse_size(size);
  // Said instead of silently dropping or ignoring (issue #28).
  if (!size.empty() && std::ranges::any_of(config.sweeps, [](const std::string& sweep) { return sweep.starts_with("size="); }))
    throw InputError(fmt::format("--size {} and --sweep size=... both set the image size: give one", size));
  if (config.image_path == "-")
    throw InputError("--image -: reading the image from standard input is not supported; give a file name");
  if (config.list && !(config.csv_path.empty() && config.markdown_path.empty() && config.plot_path.empty()))
    throw InputError("--list prints to the console, or with --json FILE (- for standard output) as JSON: it writes no "
                     "--csv, --markdown or --plot");
  // CLI::Range lets NaN through (every comparison with it is false), and a NaN threshold switches the
  // gate off: a 100x slowdown read "unchanged" (issue #30).
  for (const auto& [name, value] : {std::pair{"--significance", config.significance},
                                    std::pair{"--min-change", config.min_change_percent},
                                    std::pair{"--max-noise", config.measurement.max_noise_percent}})
    if (!std::isfinite(value)) throw InputError(fmt::format("bad {} {}: expected a finite number", name, value));
  if (cl_platform >= 0 || cl_device >= 0) {
    const int platform = std::max(cl_platform, 0);
    config.devices.push_back(cl_device >= 0 ? fmt::format("opencl:{}:{}", platform, cl_device)
                                            : fmt::format("opencl:{}", platform));
  }
  return config;
}

}  // namespace cc
