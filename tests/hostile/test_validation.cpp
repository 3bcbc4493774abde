// test_validation.cpp: hostile values of options and the environment: spans of seconds, report streams, report sizes, messages.
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/domain/safe_text.h"
#include "common/domain/seconds.h"
#include "tests/hostile/hostile_support.h"
#include "tests/support/temp_dir.h"
#include "tests/support/image_files.h"

using namespace cc::hostile;
using cc::test::TempDir;

TEST_CASE("durations: every span of seconds, option or environment, is checked by one parser: range, sign, NaN, overflow") {
  const std::vector<std::string> bad = {"1e10", "9.3e9", "1000001", "-1", "0", "-0", "nan", "inf", "1e-400", "soon", "5s", ""};
  for (const char* option : {"--time-budget", "--kernel-timeout"})
    for (const std::string& value : bad) {
      CAPTURE(option);
      CAPTURE(value);
      check_refused(convcompare(run_args({"--size", "8x8", "--filter", "identity", option, value})),
                    {option, "'" + value + "'", "not a number of seconds greater than 0 and at most 1000000"});
    }
  check_validated(convcompare(run_args({"--size", "8x8", "--filter", "identity", "--quiet", "--kernel-timeout", "1e6"})));
  // The conversion to the clock: 1e10 s once overflowed the nanoseconds to a deadline in the past.
  CHECK(cc::clock_span(1e10) == std::chrono::seconds(1'000'000));
  CHECK(cc::clock_span(std::numeric_limits<double>::quiet_NaN()) == std::chrono::steady_clock::duration::zero());
  CHECK(cc::Seconds::parse("1e6", "x").span() == std::chrono::seconds(1'000'000));
  CHECK(cc::Seconds::parse("0.25", "x").count() == 0.25);
}

TEST_CASE("durations: CONVCOMPARE_BUILD_TIMEOUT and CONVCOMPARE_LOAD_TIMEOUT past the limit are refused, not a wait timed out at once") {
  if (skipped_unless_opencl("an OpenCL build")) return;
  for (const std::string name : {"CONVCOMPARE_BUILD_TIMEOUT", "CONVCOMPARE_LOAD_TIMEOUT"}) {
    for (const char* value : {"1e10", "9.3e9", "-5", "inf"}) {
      CAPTURE(name);
      CAPTURE(value);
      check_refused(shell(name + "=" + value + " exec $CONVCOMPARE $RUN --variant global --size 16x16 --quiet"),
                    {name, value, "at most 1000000"});
    }
    check_validated(shell(name + "=1e6 exec $CONVCOMPARE $RUN --variant global --size 16x16 --quiet"));
  }
}

TEST_CASE("streams: each output stream is claimed by one report, whatever it is: a pipe, a FIFO, a file, a terminal") {
  TempDir dir("hostile");
  const std::vector<std::string> small = {"--size", "8x4", "--filter", "box:r=1", "--quiet"};
  const auto with = [&](std::vector<std::string> extra) {
    extra.insert(extra.begin(), small.begin(), small.end());
    return run_args(extra);
  };
  // Standard output is a pipe here (run_command reads it): JSON then CSV in it was written and exit 0.
  for (const auto& [first, second] : std::vector<std::pair<std::string, std::string>>{
           {"-", "-"}, {"/dev/stdout", "-"}, {"-", "/proc/self/fd/1"}}) {
    CAPTURE(first + " " + second);
    const CommandResult both = convcompare(with({"--json", first, "--csv", second}));
    check_refused(both, {"--json and --csv", "same stream", "each needs its own"});
    CHECK(both.out.empty());
  }
  check_refused(convcompare(with({"--markdown", "-", "--json", "/dev/fd/1"})), {"--markdown", "--json", "same stream"});
  // The same with standard output a file, and a FIFO named twice: one rule.
  check_refused(shell("exec $CONVCOMPARE $RUN --size 8x4 --quiet --json - --csv - > " + shell_quoted(dir.file("out"))),
                {"--json and --csv", "same file"});
  REQUIRE(::mkfifo(dir.file("fifo").c_str(), 0600) == 0);
  check_refused(convcompare(with({"--json", dir.file("fifo"), "--csv", dir.file("fifo")})), {"same stream", "fifo"});
  // One report a stream is fine; /dev/null loses nothing and takes any number.
  const CommandResult one = convcompare(with({"--json", "-", "--csv", dir.file("r.csv")}));
  check_validated(one);
  CHECK(one.out.find("\"runs\"") != std::string::npos);
  check_validated(convcompare(with({"--json", "/dev/null", "--csv", "/dev/null", "--markdown", "/dev/null"})));
}

namespace {

// `args` (from run_args) with its `option` (--repetitions, --time-budget) set to `value`.
std::vector<std::string> setting(std::vector<std::string> args, const std::string& option, const std::string& value) {
  const auto found = std::ranges::find(args, option);
  REQUIRE(found != args.end());
  *(found + 1) = value;
  return args;
}

}  // namespace

TEST_CASE("report size: a --json report that --repetitions could take past 32 MB is refused before any run") {
  TempDir dir("hostile");
  // The default filters at 256x256 (the bound counts runs and samples, not pixels): refused before
  // measuring, within seconds, where measuring under a 10 s budget would take 10 s a run.
  const auto job = [&](const std::string& repetitions) {
    return setting(run_args({"--size", "256x256", "--quiet", "--json", dir.file("r.json")}), "--repetitions", repetitions);
  };
  const CommandResult many = convcompare(setting(job("1000000"), "--time-budget", "10"));
  check_refused(many, {"--json", "runs of up to 1000000 samples", "more than the 32 MB", "lower --repetitions to at most"}, 5);
  CHECK_FALSE(std::filesystem::exists(dir.file("r.json")));
  // The most it names fits the plan: that job runs (its time budget stops each run long before).
  const std::size_t at = many.err.find("at most ");
  REQUIRE(at != std::string::npos);
  const std::string most = many.err.substr(at + 8, many.err.find(' ', at + 8) - at - 8);
  CAPTURE(most);
  check_validated(convcompare(job(most)));
  CHECK(std::filesystem::file_size(dir.file("r.json")) < (32u << 20));
  // Without --json nothing is read back: no bound.
  check_validated(convcompare(setting(run_args({"--size", "8x8", "--filter", "identity", "--quiet"}), "--repetitions", "1000000")));
}

TEST_CASE("messages: a comma list with no value or an empty item is named as typed, never the next option") {
  for (const char* option : {"--memory", "--variant", "--pixel", "--backend", "--border", "--device"}) {
    CAPTURE(option);
    const CommandResult result = convcompare(run_args({"--size", "8x8", option, ",", "--quiet"}));
    check_refused(result, {std::string(option) + " ','", "the list is empty"});
    CHECK(result.err.find("--quiet") == std::string::npos);
    check_refused(convcompare(run_args({"--size", "8x8", std::string(option) + "=", "--quiet"})), {option, "the list is empty"});
  }
  for (const char* list : {"fast,,naive", ",fast", "fast,"})
    check_refused(convcompare(run_args({"--size", "8x8", "--variant", list, "--quiet"})),
                  {std::string("--variant '") + list + "'", "an empty item"});
}

TEST_CASE("messages: a --kernel-dir source that fails to compile or lacks its kernel, and an unusable POCL_CACHE_DIR: one line each") {
  if (skipped_unless_opencl("OpenCL builds and PoCL")) return;
  TempDir dir("hostile");
  std::filesystem::create_directories(dir.path / "broken");
  cc::test::write_file(dir.file("broken/global.cl"), "// line 1\nthis is not OpenCL C;\nneither is this;\n");
  // Two errors: clang's "2 errors generated." was a second line.
  check_refused(convcompare(run_args({"--size", "32x16", "--variant", "global", "--kernel-dir", dir.file("broken")})),
                {"--kernel-dir", "cannot compile global.cl", "global.cl:2:"});
  std::filesystem::create_directories(dir.path / "empty");
  cc::test::write_file(dir.file("empty/global.cl"), "__kernel void something_else(__global float* x) { x[0] = 1; }\n");
  // Exit 1 and nothing on stderr, with --quiet.
  check_refused(
      convcompare(run_args({"--size", "32x16", "--variant", "global", "--quiet", "--kernel-dir", dir.file("empty")})),
      {"--kernel-dir", "global.cl defines no kernel 'convolve_global'", "'global' variant"});
  // PoCL lists no device when it cannot make its cache: "no device (CL_SUCCESS)" named nothing.
  const std::string cache = "/proc/self/no-such-cache";
  check_refused(shell("POCL_CACHE_DIR=" + cache + " exec $CONVCOMPARE $RUN --size 16x16 --quiet"),
                {"POCL_CACHE_DIR '" + cache + "'", "lists no device without its kernel cache"});
}

namespace {

// Whether `text` is well-formed UTF-8, checked apart from the code under test (Python's rule, by hand).
bool well_formed_utf8(const std::string& text) {
  for (std::size_t at = 0; at < text.size();) {
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
    const unsigned char lead = byte(at);
    std::size_t length = lead < 0x80 ? 1 : lead >= 0xC2 && lead <= 0xDF ? 2 : lead >= 0xE0 && lead <= 0xEF ? 3
                                                                             : lead >= 0xF0 && lead <= 0xF4 ? 4 : 0;
    if (length == 0 || at + length > text.size()) return false;
    for (std::size_t i = 1; i < length; ++i)
      if ((byte(at + i) & 0xC0) != 0x80) return false;
    if ((lead == 0xE0 && byte(at + 1) < 0xA0) || (lead == 0xED && byte(at + 1) > 0x9F) ||
        (lead == 0xF0 && byte(at + 1) < 0x90) || (lead == 0xF4 && byte(at + 1) > 0x8F))
      return false;
    at += length;
  }
  return true;
}

}  // namespace

TEST_CASE("sanitizer: one for every format: bytes that are not UTF-8 and escapes in a file name, the same in each report") {
  using cc::ControlCharacters;
  using cc::safe_text;
  // Well-formed sequences pass; each byte of an ill-formed one is shown, never dropped or guessed.
  CHECK(safe_text("auto\xe2\x86\x92" "fast \xf0\x9f\x99\x82") == "auto\xe2\x86\x92" "fast \xf0\x9f\x99\x82");
  CHECK(safe_text("caf\xe9") == "caf\\xe9");                // Latin-1
  CHECK(safe_text("\xc0\x80") == "\\xc0\\x80");             // overlong NUL
  CHECK(safe_text("\xed\xa0\x80") == "\\xed\\xa0\\x80");    // a surrogate
  CHECK(safe_text("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");  // past U+10FFFF
  CHECK(safe_text("\xe2\x86") == "\\xe2\\x86");             // cut short
  CHECK(safe_text("a\x1b[2J\tb\n") == "a\\x1b[2J\\tb\\n");
  CHECK(safe_text("a\x1b\xff", ControlCharacters::Keep) == "a\x1b\\xff");

  TempDir dir("hostile");
  const std::string name = dir.file("f\xe9\xff\x1b[31m.txt");
  cc::test::write_binary(name, "3 1\n1 2 1\n");
  const CommandResult run = convcompare(run_args({"--size", "8x4", "--filter", "file:" + name, "--json", dir.file("r.json"),
                                                  "--csv", dir.file("r.csv"), "--markdown", dir.file("r.md")}));
  check_validated(run);
  const std::string shown = "f\\xe9\\xff\\x1b[31m.txt";
  for (const auto& [format, text] : std::vector<std::pair<std::string, std::string>>{
           {"console", run.out}, {"csv", read_text(dir.file("r.csv"))}, {"markdown", read_text(dir.file("r.md"))}}) {
    CAPTURE(format);
    CHECK(well_formed_utf8(text));
    CHECK(text.find('\x1b') == std::string::npos);
    CHECK(text.find(shown) != std::string::npos);
  }
  const std::string json = read_text(dir.file("r.json"));
  CHECK(well_formed_utf8(json));
  // JSON escapes the control character itself (\u001b), and holds the other bytes as every format shows them.
  CHECK(nlohmann::json::parse(json)["runs"][0]["filter"] == "file:" + dir.file("f\\xe9\\xff\x1b[31m.txt"));
}
