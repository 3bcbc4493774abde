// main.cpp: the convcompare command; everything lives in the driver so tests can link it. Only here, at the top: the crash line and the exit past a stuck device.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "backends/device_watchdog.h"
#include "tools/convcompare/driver.h"

namespace {

struct sigaction previous_segv {}, previous_bus {}, previous_abrt {};

void write_text(const char* text) {
  const ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;  // nothing better to do in a crashing process
}

const char* signal_name(int signal) { return signal == SIGSEGV ? "SIGSEGV" : signal == SIGBUS ? "SIGBUS" : "SIGABRT"; }

// A device fault inside a run: PoCL runs kernels on the host's threads and memory, so a --kernel-dir
// kernel that writes past its buffer crashes this process (issue #30). And a driver that aborts
// (SIGABRT: PoCL's failed assertions and thread starts, LLVM's "out of memory" under ulimit -v) inside
// one of its stages (backends/device_watchdog.h, DriverStage) or a run. One line naming the variant
// or the stage (static buffers, set before each), then exit 2. Only async-signal-safe calls. Outside
// both the crash is ours: the handler before this one (the default's core dump, a sanitizer's report)
// gets it, as the faulting instruction runs again, or abort raises again.
extern "C" void on_device_crash(int signal) {
  const char* variant = cc::running_variant_name();
  const char* stage = cc::driver_stage_name();
  if (*variant == '\0' && *stage == '\0') {
    ::sigaction(signal, signal == SIGSEGV ? &previous_segv : signal == SIGBUS ? &previous_bus : &previous_abrt,
                nullptr);
    return;
  }
  if (signal == SIGABRT) {
    write_text("convcompare: error: the driver aborted the process (SIGABRT) while ");
  } else {
    write_text("convcompare: error: the device code crashed the process (");
    write_text(signal_name(signal));
    write_text(") while ");
  }
  if (*variant != '\0') {
    write_text("running '");
    write_text(variant);
    write_text("'");
  } else {
    write_text(stage);
  }
  write_text(signal == SIGABRT
                 ? ": it failed or ran out of memory (check free memory and the address-space limit, ulimit -v)\n"
                 : ": a kernel read or wrote outside its buffers (a --kernel-dir source?), or the driver failed\n");
  ::_exit(2);
}

// LLVM (loaded by PoCL) puts its own SIGABRT handler over ours; on abort it restores ours and returns,
// and glibc's abort() then raises again with the default action, so ours never runs. Taken back as
// each driver stage or run starts (backends/device_watchdog.h), the one before kept to chain to.
void reclaim_abort() noexcept {
  struct sigaction current {};
  if (::sigaction(SIGABRT, nullptr, &current) != 0 || current.sa_handler == on_device_crash) return;
  struct sigaction action {};
  action.sa_handler = on_device_crash;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGABRT, &action, &previous_abrt);
  cc::set_driver_stage_hook(reclaim_abort);
}

void report_device_crashes() {
  struct sigaction action {};
  action.sa_handler = on_device_crash;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGSEGV, &action, &previous_segv);
  ::sigaction(SIGBUS, &action, &previous_bus);
  ::sigaction(SIGABRT, &action, &previous_abrt);
  cc::set_driver_stage_hook(reclaim_abort);
}

}  // namespace

int main(int argc, char** argv) {
  report_device_crashes();
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
