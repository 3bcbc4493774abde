// test_shared_library.cpp: the loader behind the CUDA backend's libraries opened at first use (backends/shared_library.h): a missing or unloadable library is one line naming it and the loader's reason, never a crash.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

#include "backends/shared_library.h"
#include "tests/support/temp_dir.h"
#ifdef CONVCOMPARE_WITH_CUDA
#include "backends/cuda/cuda_libraries.h"
#endif

namespace {

bool one_printable_line(const std::string& text) {
  return !text.empty() && std::ranges::none_of(text, [](unsigned char c) { return c < 0x20 || c == 0x7f; });
}

}  // namespace

TEST_CASE("shared library: a name that does not exist is one line with the name and dlerror's reason") {
  cc::SharedLibrary library("cuFFT", {"libconvcompare-no-such-library.so.99", "libconvcompare-no-such.so"});
  CHECK_FALSE(library.loaded());
  CHECK(library.opened_file().empty());
  const std::string failure = library.failure();
  INFO(failure);
  CHECK(one_printable_line(failure));
  CHECK(failure.starts_with("cuFFT (libconvcompare-no-such-library.so.99) could not be loaded: "));
  CHECK(failure.find("cannot open shared object file") != std::string::npos);
  // Looking a function up in a library that did not load gives null, and the first reason stays.
  double (*function)(double) = &std::cos;
  library.find("cos", function);
  CHECK((function == nullptr));  // parenthesized: doctest cannot print a function pointer
  CHECK(library.failure() == failure);
}

TEST_CASE("shared library: a control character in the name does not reach the line raw") {
  const cc::SharedLibrary library("NVRTC", {"libnvrtc\n\x1b[2J.so"});
  CHECK_FALSE(library.loaded());
  INFO(library.failure());
  CHECK(one_printable_line(library.failure()));
  CHECK(library.failure().find("\\n") != std::string::npos);
}

TEST_CASE("shared library: the later names are tried, and the one that opened is said") {
  cc::SharedLibrary library("the C math library", {"libconvcompare-no-such-library.so.99", "libm.so.6", "libm.so"});
  REQUIRE_MESSAGE(library.loaded(), library.failure());
  CHECK(library.opened_file() == "libm.so.6");
  double (*cosine)(double) = nullptr;
  library.find("cos", cosine);
  REQUIRE((cosine != nullptr));
  CHECK(library.loaded());
  CHECK(cosine(0.5) == std::cos(0.5));
}

TEST_CASE("shared library: a function the library lacks makes it unloaded, with the function named") {
  cc::SharedLibrary library("the C math library", {"libm.so.6"}, /*keep_mapped=*/true);
  REQUIRE(library.loaded());
  int (*missing)(int) = nullptr;
  library.find("convcompare_no_such_function", missing);
  CHECK((missing == nullptr));
  CHECK_FALSE(library.loaded());
  INFO(library.failure());
  CHECK(one_printable_line(library.failure()));
  CHECK(library.failure().starts_with("the C math library (libm.so.6) has no function convcompare_no_such_function: "));
}

TEST_CASE("shared library: a file found but not loadable gives its reason, not the earlier 'not found'") {
  const cc::test::TempDir dir("shared-library");
  const std::string not_a_library = dir / "libnot-elf.so";
  std::ofstream(not_a_library) << "not an ELF file\n";
  const cc::SharedLibrary library("cuFFT", {"libconvcompare-no-such-library.so.99", not_a_library});
  CHECK_FALSE(library.loaded());
  INFO(library.failure());
  CHECK(one_printable_line(library.failure()));
  CHECK(library.failure().find(not_a_library) != std::string::npos);
  CHECK(library.failure().find("No such file") == std::string::npos);
}

#ifdef CONVCOMPARE_WITH_CUDA
TEST_CASE("shared library: a CUDA build opens NVRTC and cuFFT by the names it generated, every function found") {
  // The toolkit's libraries, not a GPU: NVRTC compiles without a device, and no cuFFT call is made.
  for (const cc::ApiVariant& variant : cc::cuda::api_variants()) {
    CAPTURE(variant.traits->name);
    const std::string missing = cc::cuda::missing_library(variant);
    CHECK_MESSAGE(missing.empty(), missing);
  }
  const cc::cuda::NvrtcFunctions& nvrtc = cc::cuda::nvrtc();
  CHECK(std::string(nvrtc.nvrtcGetErrorString(NVRTC_ERROR_COMPILATION)) == "NVRTC_ERROR_COMPILATION");
  nvrtcProgram program = nullptr;
  REQUIRE(nvrtc.nvrtcCreateProgram(&program, "extern \"C\" __global__ void nothing() {}", "nothing.cu", 0, nullptr,
                                   nullptr) == NVRTC_SUCCESS);
  const char* options[] = {"--gpu-architecture=sm_90"};
  CHECK(nvrtc.nvrtcCompileProgram(program, 1, options) == NVRTC_SUCCESS);
  std::size_t cubin_bytes = 0;
  CHECK(nvrtc.nvrtcGetCUBINSize(program, &cubin_bytes) == NVRTC_SUCCESS);
  CHECK(cubin_bytes > 0);
  CHECK(nvrtc.nvrtcDestroyProgram(&program) == NVRTC_SUCCESS);
}
#endif
