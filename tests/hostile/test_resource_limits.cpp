// test_resource_limits.cpp: low process limits (ulimit -n, ulimit -v) said as what they are, not as a missing OpenCL driver (issue #30).
#include <string>

#include "tests/hostile/hostile_support.h"

using namespace cc::hostile;

TEST_CASE("limits: ulimit -n 4 is said as the open-file limit, on every backend") {
#if defined(__SANITIZE_ADDRESS__)
  // UBSan's reports need descriptors of their own: with 4 it printed a false "invalid vptr" in CLI11.
  MESSAGE("not under the sanitizers: they need descriptors of their own, which ulimit -n 4 leaves none of");
  return;
#endif
  // Descriptor 3 closed: one inherited from the test's runner (ctest) would leave the dynamic loader no
  // descriptor under the limit to open the tool's libraries with.
  check_refused(shell("exec 3>&-; ulimit -n 4 && exec $CONVCOMPARE $RUN --size 8x4 --filter box:r=1 --quiet"),
                {"open-file limit (ulimit -n) is 4", "raise it"});
}

TEST_CASE("limits: an address-space limit too low for the OpenCL driver is named, not 'install a driver'") {
  if (backend() != "opencl") return;  // the cpu backend loads no driver
#if defined(__SANITIZE_ADDRESS__)
  MESSAGE("not under AddressSanitizer: its shadow memory needs terabytes of address space, so ulimit -v stops it");
  return;
#endif
  if (const std::string reason = backend_unavailable(); !reason.empty()) {
    MESSAGE("skipped: " << reason);
    return;
  }
  // 550 MB: enough for convcompare and the ICD loader (with a CUDA build's libraries), not for PoCL's LLVM.
  const CommandResult result = shell("ulimit -v 550000 && exec $CONVCOMPARE $RUN --size 8x4 --filter box:r=1 --quiet");
  check_refused(result, {"no OpenCL platform could be loaded", ".icd file", "address-space limit (ulimit -v) is 537 MB",
                         "raise it"});
  CHECK(result.err.find("install an OpenCL driver") == std::string::npos);
}
