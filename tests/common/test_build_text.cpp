// test_build_text.cpp: a run-time build's text for every GPU API (backends/build_text.h): the program's source from the embedded copies or --kernel-dir, and what a compiler's log says.
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include "backends/build_text.h"
#include "common/domain/error.h"
#include "tests/support/temp_dir.h"

namespace {

const std::vector<cc::EmbeddedSource> kSources = {
    {"conv_args.h", "// args"}, {"pixel.h", "// pixel"}, {"tiled.cl", "kernel void tiled() {}"}};

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

}  // namespace

TEST_CASE("build text: the embedded program is the headers, then the kernel, one line apart") {
  CHECK(cc::program_source(kSources, "tiled.cl", "") == "// args\n// pixel\nkernel void tiled() {}");
  const auto headers = cc::named_kernel_headers(kSources);
  REQUIRE(headers.size() == 2);
  CHECK(headers[0] == std::pair<std::string, std::string>{"common/geometry/conv_args.h", "// args"});
  CHECK(headers[1] == std::pair<std::string, std::string>{"common/geometry/pixel.h", "// pixel"});
}

TEST_CASE("build text: --kernel-dir's files come with a #line each; a header it lacks is the embedded one") {
  const cc::test::TempDir dir("build-text");
  write(dir / "tiled.cl", "kernel void mine() {}");
  write(dir / "pixel.h", "// my pixel");
  const std::string source = cc::program_source(kSources, "tiled.cl", dir.path.string());
  CHECK(source == "#line 1 \"conv_args.h\"\n// args\n#line 1 \"" + dir / "pixel.h" + "\"\n// my pixel\n#line 1 \"" +
                      dir / "tiled.cl" + "\"\nkernel void mine() {}");
  CHECK_THROWS_AS(cc::program_source(kSources, "fast.cl", dir.path.string()), cc::InputError);
}

TEST_CASE("build text: a compiler log's error lines, its first diagnostic and its summary") {
  const std::string pocl = "warning: unused\nerror: /k/tiled.cl:3:5: use of undeclared identifier 'x'\n"
                           "error: /k/tiled.cl:9:1: expected ';'\n2 errors generated.\n";
  CHECK(cc::error_lines(pocl, 1) == std::vector<std::string>{"error: /k/tiled.cl:3:5: use of undeclared identifier 'x'"});
  CHECK(cc::error_lines(pocl, 5).size() == 3);  // "2 errors generated." says error too
  CHECK(cc::first_compiler_error(pocl) == "/k/tiled.cl:3:5: use of undeclared identifier 'x'");
  CHECK(cc::first_compiler_error("tiled.cl:3:5: error: expected ';'\n") == "tiled.cl:3:5: expected ';'");
  CHECK_FALSE(cc::first_compiler_error("fast.cu(12): error: identifier \"x\" is undefined\n").has_value());
  CHECK(cc::summarize_build_log(pocl) ==
        "error: /k/tiled.cl:3:5: use of undeclared identifier 'x' | error: /k/tiled.cl:9:1: expected ';' | "
        "2 errors generated.");
  CHECK(cc::summarize_build_log("\n\nout of memory\nagain\n") == "out of memory");
  CHECK(cc::summarize_build_log("") == "empty build log");
  CHECK(cc::first_log_line("\nfirst\nsecond") == "first");
  CHECK(cc::first_log_line("") == "");
}
