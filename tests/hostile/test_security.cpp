// test_security.cpp: hostile runs against the tuning cache in a shared temp directory, terminal escapes in names, report destinations that cannot take a report, and misleading messages.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tests/hostile/hostile_support.h"
#include "tests/support/image_files.h"
#include "tests/support/temp_dir.h"
#include "tools/convcompare/progress.h"

namespace fs = std::filesystem;
using namespace cc::hostile;
using cc::test::TempDir;

namespace {

bool has_control_character(const std::string& text) {
  return std::ranges::any_of(text, [](unsigned char c) { return (c < 0x20 && c != '\n') || c == 0x7f; });
}

// A run with no home and no cache setting, so the tuning cache goes to the temp directory `tmp`.
CommandResult auto_run_without_home(const std::string& tmp, const std::string& extra = "") {
  return shell("exec env -u HOME -u XDG_CACHE_HOME -u CONVCOMPARE_CACHE_DIR TMPDIR=" + shell_quoted(tmp) +
               " $CONVCOMPARE $RUN --size 9x5 --filter box:r=1 --variant auto --quiet " + extra);
}

std::string shared_cache_name(const std::string& tmp) { return tmp + "/convcompare-cache-" + std::to_string(::geteuid()); }

}  // namespace

TEST_CASE("security: the tuning cache in a shared temp directory is private, made 0700, and refused when planted") {
  if (driver_case_skipped("the tuning cache's directory in a shared TMPDIR")) return;
  TempDir dir("hostile");
  const std::string tmp = dir / "tmp", victim = dir / "victim";
  fs::create_directories(tmp);
  fs::create_directories(victim);

  // Made by the run: private, and the cache file in it.
  check_validated(auto_run_without_home(tmp));
  const std::string cache = shared_cache_name(tmp);
  struct stat made {};
  REQUIRE(::lstat(cache.c_str(), &made) == 0);
  CHECK(S_ISDIR(made.st_mode));
  CHECK((made.st_mode & 0777) == 0700);
  std::string cache_file;
  for (const auto& entry : fs::directory_iterator(cache))
    if (entry.path().extension() == ".json") cache_file = entry.path().string();
  REQUIRE_FALSE(cache_file.empty());

  // The cache file and its lock replaced by symlinks to the victim's files: neither is followed.
  cc::test::write_binary(victim + "/precious.txt", "precious");
  fs::remove(cache_file);
  fs::remove(cache_file + ".lock");
  fs::create_symlink(victim + "/precious.txt", cache_file);
  fs::create_symlink(victim + "/created-by-lock", cache_file + ".lock");
  const CommandResult through_links = auto_run_without_home(tmp);
  check_validated(through_links, 2);
  CHECK(through_links.err.find("symbolic link") != std::string::npos);
  CHECK(read_text(victim + "/precious.txt") == "precious");
  CHECK_FALSE(fs::exists(victim + "/created-by-lock"));

  // The directory itself a symlink planted by someone else: not used, nothing written into its target.
  fs::remove_all(cache);
  fs::create_symlink(victim, cache);
  const CommandResult linked_dir = auto_run_without_home(tmp);
  check_validated(linked_dir, 1);
  CHECK(linked_dir.err.find("symbolic link") != std::string::npos);
  CHECK(std::distance(fs::directory_iterator(victim), fs::directory_iterator()) == 1);  // precious.txt only

  // A directory others can write (they could swap its files): not used.
  fs::remove(cache);
  fs::create_directory(cache);
  fs::permissions(cache, fs::perms::all);
  const CommandResult shared_dir = auto_run_without_home(tmp);
  check_validated(shared_dir, 1);
  CHECK(shared_dir.err.find("others can write") != std::string::npos);
  CHECK(fs::is_empty(cache));

  // Another user's directory (only root can make one here): not used.
  if (::geteuid() == 0) {
    fs::permissions(cache, fs::perms::owner_all, fs::perm_options::replace);
    REQUIRE(::chown(cache.c_str(), 65534, 65534) == 0);
    const CommandResult foreign = auto_run_without_home(tmp);
    check_validated(foreign, 1);
    CHECK(foreign.err.find("another user") != std::string::npos);
    CHECK(fs::is_empty(cache));
  }
}

TEST_CASE("security: a held cache lock is a warning after a few seconds, and the cache warning quotes none of the file") {
  if (driver_case_skipped("the tuning cache's lock and warnings")) return;
  TempDir dir("hostile");
  const std::string env = "CONVCOMPARE_CACHE_DIR=" + shell_quoted(dir / "cache") + " ";
  const std::string run = "$CONVCOMPARE $RUN --size 9x5 --filter box:r=1 --variant auto --quiet";
  check_validated(shell(env + "exec " + run));
  std::string cache_file;
  for (const auto& entry : fs::directory_iterator(dir / "cache"))
    if (entry.path().extension() == ".json") cache_file = entry.path().string();
  REQUIRE_FALSE(cache_file.empty());

  // The file's bytes (a title-setting escape and a word) never reach the warning.
  cc::test::write_binary(cache_file, "\x1b]0;pwned\x07{");
  if (::access("/usr/bin/flock", X_OK) == 0) {
    // Another process holds the lock for longer than the wait: the run ends with its result and a warning.
    // The holder outlives the 5 s wait; the shell waits for it, so the next run finds the lock free.
    const CommandResult locked = shell("flock " + shell_quoted(cache_file + ".lock") +
                                       " sleep 8 > /dev/null 2>&1 & sleep 0.5; " + env + run +
                                       " --retune; status=$?; wait; exit $status");
    check_validated(locked, 2);
    CHECK(locked.err.find("held the lock") != std::string::npos);
    CHECK(locked.seconds < 20);
    CHECK(locked.err.find("pwned") == std::string::npos);
    CHECK(locked.err.find("not valid JSON at byte") != std::string::npos);
    CHECK_FALSE(has_control_character(locked.err));
  }
  const CommandResult rebuilt = shell(env + "exec " + run);
  check_validated(rebuilt, 1);
  CHECK(rebuilt.err.find("pwned") == std::string::npos);
  CHECK_FALSE(has_control_character(rebuilt.err));
}

TEST_CASE("security: TMPDIR naming a file, for the cache of a run with no home, is one line and exit 2") {
  TempDir dir("hostile");
  cc::test::write_binary(dir / "file", "x");
  check_refused(auto_run_without_home(dir / "file"), {"TMPDIR", "not a directory"});
}

TEST_CASE("terminal escapes: names in the console tables, the comparison and the progress line are escaped") {
  TempDir dir("hostile");
  const std::string name = dir / "f\x1b[2J\x1b]0;title\x07.txt";
  cc::test::write_binary(name, "3 1\n1 2 1\n");
  const CommandResult run =
      convcompare(run_args({"--size", "8x4", "--filter", "file:" + name, "--json", dir / "r.json"}));
  check_validated(run);
  CHECK(run.out.find("\\x1b[2J") != std::string::npos);
  CHECK_FALSE(has_control_character(run.out));
  // The files keep the name as it is.
  CHECK(read_text(dir / "r.json").find("\\u001b[2J") != std::string::npos);
  // The comparison's table, whatever the timings: a baseline without raw samples is "untested", exit 0
  // (against r.json's one cold sample a loaded machine read "inconclusive", exit 4, in CI).
  nlohmann::json untimed = nlohmann::json::parse(read_text(dir / "r.json"));
  for (nlohmann::json& record : untimed["runs"]) record.erase("kernel_samples_ms");
  cc::test::write_binary(dir / "untimed.json", untimed.dump());
  const CommandResult compared =
      convcompare(run_args({"--size", "8x4", "--filter", "file:" + name, "--compare", dir / "untimed.json"}));
  CHECK(compared.status == 0);
  CHECK(compared.out.find("untested") != std::string::npos);
  CHECK(compared.out.find("\\x1b[2J") != std::string::npos);
  CHECK_FALSE(has_control_character(compared.out));

  // merge prints the device names a saved report holds: escaped too.
  nlohmann::json saved = nlohmann::json::parse(read_text(dir / "r.json"));
  REQUIRE(saved.at("devices").size() > 0);
  saved["devices"][0]["name"] = "cpu\x1b]0;title\x07";
  cc::test::write_binary(dir / "named.json", saved.dump());
  const CommandResult merged = convcompare({"merge", dir / "named.json"});
  CHECK(merged.status == 0);
  CHECK(merged.out.find("\\x1b]0;title\\x07") != std::string::npos);
  CHECK_FALSE(has_control_character(merged.out));

  // The progress line (after its quiet first seconds), into a log.
  std::ostringstream log;
  cc::Progress progress(2, log, 0);
  progress.step("first");
  std::this_thread::sleep_for(std::chrono::milliseconds(3100));
  progress.step("cpu fast file:f\x1b[2J.txt");
  CHECK(log.str().find("\\x1b[2J") != std::string::npos);
  CHECK_FALSE(has_control_character(log.str()));
}

TEST_CASE("lost reports: --json - or /dev/stderr on a closed stream is refused before the run") {
  check_refused(shell("exec $CONVCOMPARE $RUN --size 8x4 --filter box:r=1 --quiet --json - >&-"),
                {"--json", "standard output is closed"});
  check_refused(shell("exec $CONVCOMPARE $RUN --size 8x4 --filter box:r=1 --quiet --csv /dev/stdout >&-"),
                {"--csv", "standard output is closed"});
  // Its one line goes to the closed stderr, so only the status can say it; nothing reaches stdout.
  const CommandResult no_stderr =
      shell("exec $CONVCOMPARE $RUN --size 8x4 --filter box:r=1 --quiet --json /dev/stderr 2>&-");
  CHECK(no_stderr.status == 2);
  CHECK(no_stderr.out.empty());
}

TEST_CASE("lost reports: a destination that cannot be written is refused before any run") {
  TempDir dir("hostile");
  for (const std::string option : {"--json", "--csv", "--markdown", "--plot"}) {
    CAPTURE(option);
    const std::string path = "/sys/convcompare-report" + std::string(option == "--plot" ? ".svg" : ".out");
    const CommandResult refused = convcompare(run_args({"--size", "8x4", "--filter", "box:r=1", option, path}));
    check_refused(refused, {option, path});
    CHECK(refused.out.empty());  // refused before the console report, i.e. before any run
  }
  if (::geteuid() != 0) {  // root writes through permissions
    fs::create_directory(dir / "ro");
    fs::permissions(dir / "ro", fs::perms::owner_read | fs::perms::owner_exec, fs::perm_options::replace);
    check_refused(convcompare(run_args({"--size", "8x4", "--filter", "box:r=1", "--json", dir / "ro/r.json"})),
                  {"--json", "permission denied"});
  }
  // The probe leaves nothing behind.
  check_validated(convcompare(run_args({"--size", "8x4", "--filter", "box:r=1", "--quiet", "--json", dir / "ok.json"})));
  for (const auto& entry : fs::directory_iterator(dir.path))
    CHECK(entry.path().filename().string().find("probe") == std::string::npos);
}

TEST_CASE("lost reports: every --json report the tool writes is one merge and --compare can read") {
  TempDir dir("hostile");
  // Runs with long names: the bytes per run record, times the most records a --json job may make, fit the
  // reader's limit (32 MB).
  // 25 filter files (a filter named twice is measured once), each with a 200-character name.
  std::vector<std::string> args{"--size", "1x1", "--border", "zero,clamp,mirror,wrap", "--pixel", "f32,u8",
                                "--quiet", "--json", dir / "r.json"};
  std::string filter;
  for (int i = 0; i < 25; ++i) {
    filter = dir / fmt::format("{}{:02}.txt", std::string(198, 'f'), i);
    cc::test::write_binary(filter, "3 1\n1 2 1\n");
    args.insert(args.end(), {"--filter", "file:" + filter});
  }
  check_validated(convcompare(run_args(args)));
  const nlohmann::json report = nlohmann::json::parse(read_text(dir / "r.json"));
  const std::size_t runs = report.at("runs").size();
  REQUIRE(runs >= 200);
  const double bytes_per_run = static_cast<double>(fs::file_size(dir / "r.json")) / runs;
  // The plan allows 32 MB / (2048 + 3 x the longest filter spec) records: each must take less than that share.
  const std::size_t spec_length = filter.size() + std::string("file:").size();
  CHECK(bytes_per_run < 2048 + 3.0 * spec_length);
  check_validated(convcompare({"merge", dir / "r.json", "--quiet", "--json", dir / "merged.json"}));

  // A job of more records than that is refused before it runs.
  std::vector<std::string> many{"--size", "1x1", "--border", "zero,clamp,mirror,wrap", "--pixel", "f32,u8",
                                "--memory", "both", "--json", dir / "big.json"};
  for (int i = 0; i < 2100; ++i) many.insert(many.end(), {"--filter", fmt::format("gaussian:sigma={:.4f}", 1 + i / 1e4)});
  check_refused(convcompare(run_args(many)), {"--json", "runs of up to", "more than the 32 MB", "split"});
  CHECK_FALSE(fs::exists(dir / "big.json"));
}

TEST_CASE("messages: a NUL in a filter file is shown escaped, not cut") {
  TempDir dir("hostile");
  cc::test::write_binary(dir / "f.txt", std::string("3 1\n1 2\0x 1\n", 12));
  const CommandResult result = convcompare(run_args({"--size", "8x4", "--filter", "file:" + dir / "f.txt"}));
  check_refused(result, {"line 2", "\\x00x", "is not a number"});
}

TEST_CASE("messages: option values are named as typed and limits said as they are") {
  const CommandResult platform = convcompare(run_args({"--size", "8x4", "--cl-platform", "-1"}));
  check_refused(platform, {"--cl-platform", "-1"});
  CHECK(platform.err.size() < 200);
  check_refused(convcompare({"--backend", backend(), "--size", "8x4", "--time-budget", "1e-400"}), {"--time-budget", "1e-400"});
  // Given twice (run_args has one): said so, not as "At Most 1 required".
  check_refused(convcompare(run_args({"--size", "8x4", "--repetitions", "0x10"})), {"--repetitions given 2 times"});
  // A too-low open-file limit is said as such, not as a missing driver.
  check_refused(shell("ulimit -n 12 && exec $CONVCOMPARE $RUN --size 8x4 --filter box:r=1"), {"ulimit -n", "12"});
}

TEST_CASE("messages: --cold's flush scratch that does not fit is named as the cause, not the image size") {
  if (backend() != "cpu") return;  // ulimit -v would starve the OpenCL runtime itself; the message is the same code
#if defined(__SANITIZE_ADDRESS__)
  MESSAGE("not under AddressSanitizer: its shadow memory needs terabytes of address space, so ulimit -v stops it");
  return;
#endif
  // The CPU's scratch is twice its last-level cache (backends/cpu/cpu_backend.cpp): it must alone pass
  // the 500 MB of address space given, so the run fits without --cold and not with it.
  constexpr long kLimitKb = 500000;
  const long cache = ::sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (2 * cache <= kLimitKb * 1024L) {
    MESSAGE("the last-level cache is too small here for --cold's scratch alone to pass the limit");
    return;
  }
  const std::string limited = "ulimit -v " + std::to_string(kLimitKb) + " && exec $CONVCOMPARE $RUN --size 9x5 --filter box:r=1 --quiet";
  check_validated(shell(limited));
  check_refused(shell(limited + " --cold"), {"out of host memory", "--cold", "scratch"});
}
