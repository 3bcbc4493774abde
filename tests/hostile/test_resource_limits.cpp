// test_resource_limits.cpp: low process limits (ulimit -n, ulimit -v) said as what they are, not as a missing OpenCL driver, and not met by libraries a run does not use (issue #30).
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
  // 150 MB: enough for convcompare (40 MB) and the ICD loader, not for PoCL's LLVM (from about 250 MB on it
  // loads, and aborts inside PoCL below 400 MB). It was 550 MB while a CUDA build mapped cuFFT and NVRTC at
  // start (380 MB); with them opened at first use, OpenCL runs at 550 MB.
  const CommandResult result = shell("ulimit -v 150000 && exec $CONVCOMPARE $RUN --size 8x4 --filter box:r=1 --quiet");
  check_refused(result, {"no OpenCL platform could be loaded", ".icd file", "address-space limit (ulimit -v) is 146 MB",
                         "raise it"});
  CHECK(result.err.find("install an OpenCL driver") == std::string::npos);
}

TEST_CASE("limits: --backend cpu starts and validates under ulimit -v 100 MB (no GPU library mapped at start)") {
  if (backend() != "cpu") return;  // OpenCL's drivers (PoCL's LLVM) need more, by design: the case above
#if defined(__SANITIZE_ADDRESS__)
  MESSAGE("not under AddressSanitizer: its shadow memory needs terabytes of address space, so ulimit -v stops it");
  return;
#endif
  // A CUDA build mapped cuFFT (278 MB) and NVRTC (104 MB) at start, before main, so even a CPU run could
  // not start under 400 MB: the dynamic loader's "failed to map segment", exit 127. They are now opened
  // when a CUDA variant first needs them (docs/architecture.md, "Libraries loaded at first use"). A CPU
  // run of this size needs about 40 MB; 100 MB leaves room for its threads' stacks on larger machines
  // and is still less than either library alone, so linking one again fails here.
  const CommandResult result = shell("ulimit -v 100000 && exec $CONVCOMPARE $RUN --size 8x4 --filter box:r=1");
  check_validated(result);
  CHECK(result.out.find("naive") != std::string::npos);
  CHECK(result.out.find("fast") != std::string::npos);
}
