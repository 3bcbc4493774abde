// cli_checks.cpp: the command line's value checks, and CLI11's parse with its errors said in convcompare's words.
#include "tools/convcompare/cli_checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <string_view>

#include "common/domain/error.h"
#include "common/domain/seconds.h"
#include "common/domain/suggest.h"

namespace cc {

namespace {

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

CLI::Validator one_of(const std::vector<std::string>& names,
                      std::vector<std::pair<std::string, std::string>> other_names) {
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

CLI::Validator named_file() {
  return CLI::Validator(
      [](std::string& value) { return value.empty() ? std::string("an empty name is not a file") : std::string(); }, "");
}

CLI::Validator seconds_span() {
  return CLI::Validator(
      [](std::string& value) {
        try {
          Seconds::parse(value, "");
          return std::string();
        } catch (const InputError& problem) {
          return std::string(problem.what());
        }
      },
      "");
}

bool parse_arguments(CLI::App& app, int argc, const char* const* argv, std::ostream& out) {
  try {
    refuse_empty_list_items(app, argc, argv);
    app.parse(argc, argv);
  } catch (const CLI::Success& done) {  // --help, --version
    app.exit(done, out);
    return false;
  } catch (const CLI::ExtrasError& error) {
    throw InputError(unexpected_arguments(app, error));
  } catch (const CLI::ParseError& error) {
    throw InputError(without_program_name(error.what(), app.get_name()));
  }
  return true;
}

}  // namespace cc
