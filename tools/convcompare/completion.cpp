// completion.cpp: the values each option takes and the table the bash completion is built from.
#include "tools/convcompare/completion.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/domain/backend_names.h"
#include "common/domain/filter.h"
#include "common/domain/problem.h"
#include "common/domain/variants.h"

namespace cc {

const std::vector<std::string> kMemories = {"pinned", "pageable", "mapped", "managed", "managed-faults", "both"};
const std::vector<std::string> kPixels = {"f32", "u8"};
const std::vector<std::string> kOutputFormats = {"png", "pfm"};

namespace {

std::vector<std::pair<std::string, std::vector<std::string>>> completion_values() {
  std::vector<std::string> variants, borders;
  for (const VariantTraits& variant : all_variants()) variants.emplace_back(variant.name);
  variants.emplace_back("all");
  for (Border border : {Border::Zero, Border::Clamp, Border::Mirror, Border::Wrap}) borders.emplace_back(to_string(border));
  std::vector<std::string> filters = builtin_filter_completions();
  filters.emplace_back("file:");
  std::vector<std::string> backends, devices;
  for (const BackendName& backend : kBackendNames) {
    backends.emplace_back(backend.name);
    devices.push_back(first_device_id(backend));
  }
  backends.emplace_back("all");
  return {{"--backend", backends},
          {"--device", devices},
          {"--variant", variants},
          {"--border", borders},
          {"--filter", filters},
          {"--pixel", kPixels},
          {"--memory", kMemories},
          {"--output-format", kOutputFormats},
          {"--sweep", {"radius=", "size="}}};
}

}  // namespace

std::string completion_table(const CLI::App& app, const CLI::App& merge) {
  std::vector<std::string> options, valued, files, directories, merge_options;
  for (const CLI::App* command : {&app, &merge}) {
    for (const CLI::Option* option : command->get_options()) {
      if (option->get_group().empty() || option->get_lnames().empty()) continue;  // hidden or positional
      std::vector<std::string> names;
      for (const std::string& name : option->get_snames()) names.push_back("-" + name);
      for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
      (command == &app ? options : merge_options).insert((command == &app ? options : merge_options).end(),
                                                         names.begin(), names.end());
      if (option->get_type_name().empty()) continue;  // a flag
      valued.insert(valued.end(), names.begin(), names.end());
      const std::string type = option->get_type_name();
      if (type == "FILE" || type == "PATH" || type == "BASELINE.json") files.insert(files.end(), names.begin(), names.end());
      if (type == "DIR") directories.insert(directories.end(), names.begin(), names.end());
    }
  }
  const auto unique = [](std::vector<std::string> names) {
    std::ranges::sort(names);
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
  };
  std::string table = fmt::format("options {}\nvalued {}\nfiles {}\ndirectories {}\nmerge {}\n",
                                  fmt::join(unique(options), " "), fmt::join(unique(valued), " "),
                                  fmt::join(unique(files), " "), fmt::join(unique(directories), " "),
                                  fmt::join(unique(merge_options), " "));
  // "values" for a comma list (each item completes), "value" for one value (a filter spec has its own commas).
  for (const auto& [option, values] : completion_values())
    table += fmt::format("{} {} {}\n", app.get_option(option)->get_delimiter() == ',' ? "values" : "value", option,
                         fmt::join(values, " "));
  return table;
}

}  // namespace cc
