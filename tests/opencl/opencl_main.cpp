// opencl_main.cpp: the OpenCL suite's main: no OpenCL device, "skipped" (77); a failure under CI, which installs PoCL.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>

#include "tests/support/device_main.h"

int main(int argc, char** argv) {
  if (const auto status = cc::testing::status_without_device("opencl", std::getenv("CI") != nullptr)) return *status;
  doctest::Context context(argc, argv);
  return context.run();
}
