// hostile_main.cpp: the hostile suite's main: picks the backend (CONVCOMPARE_HOSTILE_BACKEND, default cpu) and skips (77) when it has no device.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>

#include "tests/hostile/hostile_support.h"

int main(int argc, char** argv) {
  // ctest runs this suite once per backend; a backend with no device here is reported skipped, never passed.
  if (const std::string reason = cc::hostile::backend_unavailable(); !reason.empty()) {
    std::cout << "skipped: " << reason << "\n";
    return 77;
  }
  std::cout << "hostile inputs through the " << cc::hostile::backend() << " backend\n";
  doctest::Context context(argc, argv);
  return context.run();
}
