// main.cpp: the convcompare command; everything lives in the driver so tests can link it. Only here, at the top: the exit past a stuck device.
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "backends/device_watchdog.h"
#include "tools/convcompare/driver.h"

int main(int argc, char** argv) {
  const int status = cc::convcompare_main(argc, argv);
  if (cc::device_stuck()) {
    // A wait passed --kernel-timeout and the driver already said so (exit 2). The stuck command still
    // runs on the driver's threads and cannot be cancelled; a normal exit runs the drivers' atexit and
    // static destructors, which wait for their queues (PoCL joins its worker threads) and would hang.
    // So: flush what was written, and end without them.
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    std::_Exit(status);
  }
  return status;
}
