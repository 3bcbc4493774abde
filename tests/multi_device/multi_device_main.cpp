// multi_device_main.cpp: the multi-device suite's main: three PoCL CPU devices (POCL_DEVICES), set before OpenCL starts; none, "skipped" (77), a failure under CI.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>
#include <iostream>

#include "tests/multi_device/multi_device.h"
#include "tests/support/device_main.h"

int main(int argc, char** argv) {
  // PoCL reads its device list once, as the platform starts: three pthread devices of one platform
  // are what --split and a dealt --stream need (docs/multi-device.md, "Testing without GPUs").
  ::setenv("POCL_DEVICES", "pthread pthread pthread", 1);
  const bool ci = std::getenv("CI") != nullptr;
  if (const auto status = cc::testing::status_without_device("opencl", ci)) return *status;
  if (cc::testing::pocl_devices().size() < 3) {
    std::cout << (ci ? "FAILED" : "SKIPPED") << ": POCL_DEVICES=\"pthread pthread pthread\" gave fewer than three "
              << "PoCL devices (is pocl-opencl-icd installed?)\n";
    return ci ? 1 : 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
