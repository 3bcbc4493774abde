// test_output_plan.cpp: hostile runs against the output plan and the run's memory estimate: colliding names, links, outputs over inputs, standard output shared, full disks, readers that go away, whole-run memory, device allocation limits.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/domain/image_io.h"
#include "tests/hostile/hostile_support.h"
#include "tests/support/image_files.h"
#include "tests/support/temp_dir.h"

namespace fs = std::filesystem;
using namespace cc::hostile;
using cc::test::TempDir;
using cc::test::write_binary;

namespace {

// Every name in `dir`, sorted (what a refused run must leave as it was).
std::set<std::string> listing(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) names.insert(fs::relative(entry.path(), dir).string());
  return names;
}

std::vector<std::string> small_run(std::vector<std::string> extra) {
  std::vector<std::string> args{"--size", "9x5"};
  args.insert(args.end(), extra.begin(), extra.end());
  return run_args(args);
}

}  // namespace

TEST_CASE("lost files: file: filters whose names sanitize alike write distinct images, and the JSON points at each") {
  TempDir dir("hostile");
  fs::create_directories(dir / "a");
  // Three different 3x1 filters under names that all sanitize to "file-...-a-b.txt".
  write_binary(dir / "a/b.txt", "3 1\n1 0 0\n");
  write_binary(dir / "a-b.txt", "3 1\n0 1 0\n");
  write_binary(dir / "a_b.txt", "3 1\n0 0 1\n");
  const CommandResult result =
      convcompare(small_run({"--filter", "file:" + dir / "a/b.txt", "--filter", "file:" + dir / "a-b.txt", "--filter",
                             "file:" + dir / "a_b.txt", "--output-dir", dir / "out", "--json", dir / "r.json", "--quiet"}));
  check_validated(result);
  const nlohmann::json report = nlohmann::json::parse(read_text(dir / "r.json"));
  std::set<std::string> outputs;
  std::map<std::string, std::set<std::string>> contents_by_variant;  // each filter's result differs
  for (const nlohmann::json& run : report.at("runs")) {
    if (run.at("status") != "ok") continue;
    const std::string output = run.at("output");
    CHECK(outputs.insert(output).second);
    CHECK(contents_by_variant[run.at("variant")].insert(read_text(output)).second);
  }
  CHECK(outputs.size() >= 3);
  for (const auto& [variant, contents] : contents_by_variant) CHECK_MESSAGE(contents.size() == 3, variant);
}

TEST_CASE("lost files: outputs meeting through hard links, symlinks, the output dir or an input are refused first") {
  TempDir dir("hostile");
  const std::string image = cc::test::pfm_file(9, 5, [](int x, int y) { return x + 2.0f * y; });
  write_binary(dir / "identity_zero_reference.pfm", image);  // the name the run's reference would take
  write_binary(dir / "f.txt", "3 1\n1 2 1\n");
  write_binary(dir / "old.json", "old");
  REQUIRE(::link((dir / "old.json").c_str(), (dir / "hard.json").c_str()) == 0);
  fs::create_symlink("target.json", dir / "dangling.json");  // a write through it creates target.json
  fs::create_directories(dir / "out");
  fs::create_symlink("../f.txt", dir / "out/box-r-1_zero_reference.png");  // the chart is 8-bit: PNG
  const std::set<std::string> before = listing(dir.path);

  check_refused(convcompare(small_run({"--json", dir / "old.json", "--csv", dir / "hard.json"})),
                {"--json and --csv", "same file"});
  check_refused(convcompare(small_run({"--json", dir / "dangling.json", "--markdown", dir / "target.json"})),
                {"--json and --markdown", "same file"});
  check_refused(convcompare(small_run({"--output-dir", dir / "out", "--plot", dir / "out/contact_sheet.png"})),
                {"--plot", "contact sheet", "same file"});
  check_refused(convcompare(run_args({"--image", dir / "identity_zero_reference.pfm", "--filter", "identity",
                                      "--output-dir", dir.path})),
                {"identity_zero_reference.pfm", "--image input"});
  // The reference's name in out/ is a symlink to a filter file of the run.
  check_refused(convcompare(small_run({"--filter", "box:r=1", "--filter", "file:" + dir / "f.txt", "--output-dir",
                                       dir / "out"})),
                {"box-r-1_zero_reference.png", "--filter input"});
  CHECK(listing(dir.path) == before);
  CHECK(read_text(dir / "identity_zero_reference.pfm") == image);
  CHECK(read_text(dir / "f.txt") == "3 1\n1 2 1\n");
  CHECK(read_text(dir / "old.json") == "old");

  // The tuning cache of --variant auto is an input too.
  if (!driver_case_skipped("the tuning cache as an input of the output plan")) {
    const std::string cache = "CONVCOMPARE_CACHE_DIR=" + shell_quoted(dir / "cache") + " ";
    check_validated(shell(cache + "exec $CONVCOMPARE $RUN --size 9x5 --filter box:r=1 --variant auto --quiet"));
    std::string cache_file;
    for (const auto& entry : fs::directory_iterator(dir / "cache"))
      if (entry.path().extension() == ".json") cache_file = entry.path().string();
    REQUIRE_FALSE(cache_file.empty());
    const std::string tuned = read_text(cache_file);
    check_refused(shell(cache + "exec $CONVCOMPARE $RUN --size 9x5 --filter box:r=1 --variant auto --quiet --csv " +
                        shell_quoted(cache_file)),
                  {"--csv", "tuning cache input"});
    CHECK(read_text(cache_file) == tuned);
  }

  // The same filter twice is measured once: it runs, and its report is one --compare takes as a baseline.
  const CommandResult twice = convcompare(small_run({"--filter", "box:r=1", "--filter", "box:r=1", "--output-dir",
                                                     dir / "twice", "--json", dir / "twice.json"}));
  check_validated(twice);
  check_validated(convcompare(small_run({"--filter", "box:r=1", "--json", dir / "once.json"})));
  CHECK(nlohmann::json::parse(read_text(dir / "twice.json")).at("runs").size() ==
        nlohmann::json::parse(read_text(dir / "once.json")).at("runs").size());
  const CommandResult against = convcompare(small_run({"--filter", "box:r=1", "--compare", dir / "twice.json"}));
  INFO("stderr: " << against.err);
  CHECK(against.status != 2);
}

TEST_CASE("lost files: standard output shared with the console, and output paths that cannot be written") {
  TempDir dir("hostile");
  check_refused(convcompare(small_run({"--filter", "box:r=1", "--json", "-"})), {"--json", "standard output", "--quiet"});
  check_refused(convcompare(small_run({"--filter", "box:r=1", "--csv", "/dev/stdout"})), {"--csv", "--quiet"});
  // Standard error is the run's own (progress, warnings, errors), by any of its names, even with --quiet.
  for (const char* name : {"/dev/stderr", "/dev/fd/2", "/proc/self/fd/2"})
    check_refused(convcompare(small_run({"--filter", "box:r=1", "--quiet", "--json", name})), {"--json", name, "standard error"});
  check_refused(convcompare(small_run({"--filter", "box:r=1", "--plot", "/dev/stderr"})), {"--plot", "standard error"});
  const CommandResult quiet = convcompare(small_run({"--filter", "box:r=1", "--json", "-", "--quiet"}));
  check_validated(quiet);
  CHECK(nlohmann::json::parse(quiet.out).at("runs").size() > 0);
  // /dev/null as both loses nothing: not refused.
  check_validated(shell("exec $CONVCOMPARE $RUN --size 9x5 --filter box:r=1 --json /dev/null > /dev/null"));

  write_binary(dir / "file", "x");
  check_refused(convcompare(small_run({"--output-dir", dir / "file"})), {"--output-dir", "not a directory"});
  check_refused(convcompare(small_run({"--output-dir", dir / "file/sub"})), {"cannot create", "--output-dir"});
  check_refused(convcompare(small_run({"--json", dir / "no/such/r.json"})), {"--json", "does not exist"});
  check_refused(convcompare(small_run({"--markdown", dir.path})), {"--markdown", "is a directory"});
  check_refused(convcompare(small_run({"--json", dir / std::string(240, 'j')})), {"--json", "223"});
  if (::geteuid() != 0) {  // root writes anywhere
    fs::create_directories(dir / "read-only");
    fs::permissions(dir / "read-only", fs::perms::owner_read | fs::perms::owner_exec);
    check_refused(convcompare(small_run({"--output-dir", dir / "read-only"})), {"--output-dir", "not writable"});
  }
  std::set<std::string> expected{"file"};
  if (::geteuid() != 0) expected.insert("read-only");
  CHECK(listing(dir.path) == expected);
}

TEST_CASE("lost files: a full disk keeps the old report and leaves no temporary; a reader that goes away loses no report") {
  TempDir dir("hostile");
  write_binary(dir / "r.json", "old");
  // ulimit -f: the report (a few KB) is larger than the 512 bytes allowed, as on a full disk. On cpu only:
  // an OpenCL runtime writes its own kernel cache files and fails first (the report's write is the same code).
  if (backend() == "cpu")
    check_refused(shell("ulimit -f 1 && exec $CONVCOMPARE $RUN --size 9x5 --filter box:r=1 --quiet --json " +
                        shell_quoted(dir / "r.json")),
                  {"r.json", "File too large"});
  CHECK(read_text(dir / "r.json") == "old");
  CHECK(listing(dir.path) == std::set<std::string>{"r.json"});
  check_refused(convcompare(small_run({"--filter", "box:r=1", "--quiet", "--json", "/dev/full"})),
                {"/dev/full", "No space left"});

  // The reader of stdout is gone before the console report is printed: the reports are still written
  // and the broken pipe is one line and exit 2 (not a silent death by SIGPIPE). Gone for certain: stdout is
  // the write end of a FIFO whose only read end is closed first (`... | true` races: on a loaded machine
  // `true` can still be alive when the report goes into the pipe).
  const std::string fifo = shell_quoted(dir / "pipe");
  const CommandResult gone = shell("mkfifo " + fifo + " && exec 4<>" + fifo + " 5>" + fifo + " 4<&- && rm " + fifo +
                                   " && { $CONVCOMPARE $RUN --size 9x5 --filter box:r=1 --json " + shell_quoted(dir / "p.json") +
                                   " >&5; echo $? > " + shell_quoted(dir / "status") + "; }");
  INFO("stderr: " << gone.err);
  CHECK(read_text(dir / "status") == "2\n");
  CHECK(std::ranges::count(gone.err, '\n') == 1);
  CHECK(gone.err.find("standard output") != std::string::npos);
  CHECK(nlohmann::json::parse(read_text(dir / "p.json")).at("runs").size() > 0);
}

TEST_CASE("inputs: a pipe named twice, a BOM and CR LF in a filter file, NaN and infinity in a PFM, empty files and directories") {
  TempDir dir("hostile");
  check_validated(shell("printf '3 1\\n1 2 1\\n' | exec $CONVCOMPARE $RUN --size 9x5 --quiet --filter file:/dev/stdin"));
  check_refused(shell("printf '3 1\\n1 2 1\\n' | exec $CONVCOMPARE $RUN --size 9x5 --filter file:/dev/stdin --filter "
                      "file:/dev/stdin"),
                {"/dev/stdin", "read only once"});
  write_binary(dir / "bom.txt", "\xEF\xBB\xBF" "3 1\r\n1 2 1\r\n");
  const CommandResult bom = convcompare(small_run({"--filter", "file:" + dir / "bom.txt", "--quiet", "--json", "-"}));
  check_validated(bom);
  CHECK(nlohmann::json::parse(bom.out).at("runs").at(0).at("radius_x") == 1);

  // NaN and infinity in a PFM propagate as in the reference (docs/correctness.md, "NaN and Inf"): a
  // correct result, validated, not a refusal.
  for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    write_binary(dir / "bad.pfm", cc::test::pfm_file(9, 5, [bad](int x, int y) { return x == 4 && y == 2 ? bad : 1.0f; }));
    check_validated(convcompare(run_args({"--image", dir / "bad.pfm", "--filter", "box:r=1", "--quiet"})));
  }
  write_binary(dir / "empty", "");
  check_refused(convcompare(run_args({"--image", dir / "empty"})), {"empty"});
  check_refused(convcompare(small_run({"--filter", "file:" + dir / "empty"})), {"empty"});
  check_refused(convcompare(small_run({"--compare", dir / "empty"})), {"empty"});
  check_refused(convcompare(small_run({"--filter", "file:" + dir.path.string()})), {"directory"});
}

TEST_CASE("sizes: zero, negative, overflowing and too large sizes are refused; many filters run with distinct outputs") {
  for (const std::string size : {"0x5", "-5x5", "99999999999999999999x5", "5x4294967297", "32768x32768", "40000x1"})
    check_refused(convcompare(run_args({"--size", size})), {"--size"});
  // 40 filter files (40 problems, each variant's image named apart) in one run.
  TempDir dir("hostile");
  std::vector<std::string> filters;
  for (int i = 0; i < 40; ++i) {
    std::string name = dir / "f";  // appended, not "f" + ...: GCC 12 warns falsely (-Wrestrict) on that
    name += std::to_string(i);
    name += ".txt";
    write_binary(name, "1 3\n" + std::to_string(i) + " 1 " + std::to_string(40 - i) + "\n");
    filters.insert(filters.end(), {"--filter", "file:" + name});
  }
  filters.insert(filters.end(), {"--output-dir", dir / "out", "--json", dir / "r.json", "--quiet"});
  check_validated(convcompare(small_run(filters)));
  std::set<std::string> outputs;
  std::size_t written = 0;
  const nlohmann::json report = nlohmann::json::parse(read_text(dir / "r.json"));
  for (const nlohmann::json& run : report.at("runs"))
    if (run.contains("output") && run.at("output").is_string() && !run.at("output").get<std::string>().empty()) {
      ++written;
      outputs.insert(run.at("output").get<std::string>());
    }
  CHECK(written >= 40);
  CHECK(outputs.size() == written);
}

TEST_CASE("memory: the whole run is estimated before allocating: a 16384x16384 sweep under ulimit -v is refused") {
  if (backend() != "cpu") return;  // ulimit -v would starve the OpenCL runtime itself; the check is the same code
  if (!address_space_limit_testable()) return;
  // 1 GB per image: the input, reference, result and frames need about 5 GB, more than 3 GB of address space.
  const CommandResult result = shell("ulimit -v 3000000 && exec $CONVCOMPARE $RUN --sweep size=16384x16384");
  check_refused(result, {"16384x16384", "host memory", "available", "images of 1.0 GB"});
}

TEST_CASE("memory: a frame larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE is skipped with the limit (PoCL, POCL_MEMORY_LIMIT=1)") {
  if (backend() != "opencl") return;
  const std::string pocl = pocl_device_id();
  if (pocl.empty()) return;
  TempDir dir("hostile");
  // POCL_MEMORY_LIMIT=1: 1 GB of global memory and 256 MB per buffer; an 8200x8200 float frame is 256.5 MB.
  const CommandResult result =
      shell("POCL_MEMORY_LIMIT=1 exec $CONVCOMPARE $RUN --device " + pocl +
            " --size 8200x8200 --filter box:r=1 --quiet --json " + shell_quoted(dir / "r.json"));
  // Every run skipped is "nothing ran" (exit 2, one line naming the limit); the report is still written.
  CHECK(result.status == 2);
  CHECK(result.err.find("nothing ran") != std::string::npos);
  CHECK(result.err.find("CL_DEVICE_MAX_MEM_ALLOC_SIZE") != std::string::npos);
  CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
  const nlohmann::json report = nlohmann::json::parse(read_text(dir / "r.json"));
  REQUIRE(report.at("runs").size() > 0);
  for (const nlohmann::json& run : report.at("runs")) {
    CHECK(run.at("status") == "skipped");
    CHECK(run.at("reason").get<std::string>().find("CL_DEVICE_MAX_MEM_ALLOC_SIZE") != std::string::npos);
  }
}

TEST_CASE("memory modes: a frame larger than can be mapped is skipped with the limit, and a mode no variant can take is one line") {
  if (backend() != "opencl") return;
  const std::string pocl = pocl_device_id();
  if (pocl.empty()) return;
  // POCL_MEMORY_LIMIT=1: 256 MB per buffer; an 8200x8200 float plane is 256.5 MB, mapped or SVM alike.
  for (const char* memory : {"mapped", "managed"}) {
    CAPTURE(memory);
    const CommandResult result =
        shell(std::string("POCL_MEMORY_LIMIT=1 exec $CONVCOMPARE $RUN --device ") + pocl +
              " --size 8200x8200 --filter box:r=1 --variant global --memory " + memory + " --quiet");
    CHECK(result.status == 2);
    CHECK(result.err.find("nothing ran") != std::string::npos);
    CHECK(result.err.find("CL_DEVICE_MAX_MEM_ALLOC_SIZE") != std::string::npos);
    CHECK(std::count(result.err.begin(), result.err.end(), '\n') == 1);
  }
  // An image variant reads device memory: it refuses mapped frames, and with nothing else asked for,
  // nothing ran.
  const CommandResult texture = convcompare({"--backend", "opencl", "--device", pocl, "--size", "9x5",
                                             "--variant", "texture", "--memory", "mapped", "--no-peaks", "--quiet"});
  CHECK(texture.status == 2);
  CHECK(texture.err.find("texture / image2d") != std::string::npos);
  CHECK(std::count(texture.err.begin(), texture.err.end(), '\n') == 1);
}
