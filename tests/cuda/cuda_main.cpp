// cuda_main.cpp: the CUDA suites' main (test_cuda, test_stress): no CUDA device, "skipped" (77).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "tests/support/device_main.h"

int main(int argc, char** argv) {
  if (const auto status = cc::testing::status_without_device("cuda", false)) return *status;
  doctest::Context context(argc, argv);
  return context.run();
}
