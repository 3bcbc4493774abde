// stress_main.cpp: test_stress's own doctest main: without a CUDA device the suite reports "skipped" (77).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>

#include "tests/support/backend_matrix.h"

int main(int argc, char** argv) {
  // As test_cuda: ctest maps 77 to "Not Run" (SKIP_RETURN_CODE), with the backend's own reason.
  const auto backend = cc::testing::find_backend("cuda");
  if (!backend || backend->devices().empty()) {
    std::cout << "SKIPPED: " << (backend ? backend->unavailable_reason() : "CUDA backend not built") << '\n';
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
