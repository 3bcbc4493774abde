// cuda_main.cpp: the CUDA suites' doctest main (test_cuda, test_stress): no CUDA device, "skipped" (77).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>

#include "tests/support/backend_matrix.h"

int main(int argc, char** argv) {
  // ctest maps exit status 77 to "Not Run" (SKIP_RETURN_CODE), so a machine without a GPU reports
  // the suite as skipped, with the backend's own reason, instead of as passed or failed.
  const auto backend = cc::testing::find_backend("cuda");
  if (!backend || backend->devices().empty()) {
    std::cout << "SKIPPED: " << (backend ? backend->unavailable_reason() : "CUDA backend not built") << '\n';
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
