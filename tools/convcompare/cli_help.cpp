// cli_help.cpp: the --help text of the convcompare command line: 80-column wrapping and the footer sections.
#include "tools/convcompare/cli_help.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "common/domain/filter.h"
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

}  // namespace

std::shared_ptr<CLI::Formatter> make_wrapping_formatter() { return std::make_shared<WrappingFormatter>(); }

std::string footer_item(std::string_view name, std::string_view text, std::size_t column) {
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

std::string pixel_help() {
  std::vector<std::string_view> eight_bit;
  for (const VariantTraits& variant : all_variants())
    if (variant.pixels & kU8) eight_bit.push_back(variant.name);
  return fmt::format("Pixel storage on the device: f32 (float planes) or u8 (8-bit, 1 or 4 interleaved channels, "
                     "float arithmetic, results rounded and saturated; runs in {}, the others skip); a comma list "
                     "runs each",
                     fmt::join(eight_bit, ", "));
}

}  // namespace cc
