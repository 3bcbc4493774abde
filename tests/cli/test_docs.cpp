// test_docs.cpp: README.md against the code: every option --help lists, every environment variable the tool reads, auto's candidates.
#include <doctest/doctest.h>
#include <fmt/format.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "common/domain/variants.h"
#include "run_command.h"
#include "tests/support/text.h"

using cc::test::read_file;

namespace {

// The long options of a CLI11 --help text: the first word of each option line ("  --plot FILE  ...").
std::set<std::string> options_in_help(const std::string& help) {
  std::set<std::string> options;
  const std::regex option_line(R"(^\s+(?:-[a-zA-Z],)?(--[a-z][a-z0-9-]*))");
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);)
    if (std::smatch match; std::regex_search(line, match, option_line)) options.insert(match[1]);
  return options;
}

std::string help_of(std::vector<std::string> args) {
  args.insert(args.begin(), CONVCOMPARE_EXE);
  const cc::test::CommandResult result = cc::test::run_command(args);
  REQUIRE(result.status == 0);
  return result.out;
}

}  // namespace

TEST_CASE("README: every option of convcompare --help and convcompare merge --help is documented") {
  const std::string readme = read_file(CONVCOMPARE_SOURCE_DIR "/README.md");
  std::set<std::string> options = options_in_help(help_of({"--help"}));
  for (const std::string& option : options_in_help(help_of({"merge", "--help"}))) options.insert(option);
  REQUIRE(options.size() > 20);  // the parse found the option table
  CHECK(options.contains("--time-budget"));
  for (const std::string& option : options)
    CHECK_MESSAGE(readme.find("`" + option) != std::string::npos,
                  option << " is an option of convcompare that README.md does not mention (as `" << option << "`)");
}

TEST_CASE("README: every environment variable the tool reads is documented") {
  const std::string readme = read_file(CONVCOMPARE_SOURCE_DIR "/README.md");
  const std::regex getenv_call(R"re((?:getenv|environment)\("(CONVCOMPARE_[A-Z_]+)")re");
  int found = 0;
  for (const char* source : {"/tools/convcompare/autotune.cpp", "/tools/convcompare/progress.cpp", "/tools/convcompare/driver.cpp"}) {
    const std::string text = read_file(std::string(CONVCOMPARE_SOURCE_DIR) + source);
    for (std::sregex_iterator it(text.begin(), text.end(), getenv_call), end; it != end; ++it) {
      const std::string name = (*it)[1].str();
      ++found;
      CHECK_MESSAGE(readme.find("`" + name) != std::string::npos, name << " is read by the tool but README.md does not mention it");
    }
  }
  CHECK(found >= 1);  // CONVCOMPARE_CACHE_DIR
}

// README names no variant list (a new variant is its table line, docs/architecture.md): it points at the
// table for auto's candidates, and --help, generated from the table, names them.
TEST_CASE("README and --help: auto's candidates are the variant table's") {
  std::vector<std::string> candidates;
  for (const cc::VariantTraits& variant : cc::all_variants())
    if (variant.auto_candidate) candidates.push_back(std::string(variant.name));
  const std::string list = fmt::format("{}", fmt::join(candidates, ", "));
  const std::string readme = read_file(CONVCOMPARE_SOURCE_DIR "/README.md");
  CHECK_MESSAGE(readme.find("measures its candidates (the table's `auto_candidate`)") != std::string::npos,
                "README.md should say where auto's candidates come from");
  // --help wraps the list at 80 columns: a line break and the indentation read as one space.
  std::string help;
  for (const char c : help_of({"--help"})) {
    const bool space = c == ' ' || c == '\n';
    if (!(space && !help.empty() && help.back() == ' ')) help += space ? ' ' : c;
  }
  CHECK_MESSAGE(help.find(list) != std::string::npos, "--help should name auto's candidates: " << list);
}
