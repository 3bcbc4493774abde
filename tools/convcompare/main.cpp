// main.cpp: the convcompare command; everything lives in the driver so tests can link it. Only here, at the top: the crash line (signals and abort) and the exit past a stuck device.
#include <dlfcn.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
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

// What the driver wrote to standard error in the stage (backends/device_watchdog.h, DriverStage: PoCL's
// "PTHREAD ERROR ...", LLVM's "LLVM ERROR: out of memory", a failed assertion), as part of the one line:
// quoted, its line ends as " / ", other control bytes as '?', its last 300 bytes (the words just before
// the crash; Mesa's complaints may come first). Async-signal-safe.
void write_driver_words(int held) {
  constexpr off_t kShown = 300;
  const off_t size = held < 0 ? -1 : ::lseek(held, 0, SEEK_END);
  if (size <= 0) return;
  const off_t from = size > kShown ? size - kShown : 0;
  char said[kShown];
  const ssize_t got = ::pread(held, said, static_cast<std::size_t>(size - from), from);
  if (got <= 0) return;
  std::size_t length = static_cast<std::size_t>(got);
  while (length > 0 && (said[length - 1] == '\n' || said[length - 1] == '\r' || said[length - 1] == ' ')) --length;
  if (length == 0) return;
  write_text(from > 0 ? "; the driver said: \"..." : "; the driver said: \"");
  for (std::size_t at = 0; at < length; ++at) {
    const unsigned char byte = static_cast<unsigned char>(said[at]);
    if (byte == '\n') write_text(" / ");
    else if (byte < 0x20 || byte == 0x7f || byte == '"') write_text("?");
    else {
      const char one[2] = {said[at], '\0'};
      write_text(one);
    }
  }
  write_text("\"");
}

// ", now N MB" where an address-space limit is set, as backends/device_watchdog.h's out_of_memory_advice
// says it. Async-signal-safe (getrlimit is one system call).
void write_address_space_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_AS, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return;
  char digits[24];
  char* at = digits + sizeof digits;
  *--at = '\0';
  unsigned long long megabytes = limit.rlim_cur >> 20;
  do *--at = static_cast<char>('0' + megabytes % 10);
  while ((megabytes /= 10) != 0);
  write_text(", now ");
  write_text(at);
  write_text(" MB");
}

// The one line for a crash inside a driver stage or a run, then exit 2 (docs/correctness.md, "Build failures").
[[noreturn]] void report_crash(int signal, const char* variant, const char* stage) {
  // One line though several threads crash at once (PoCL runs a bad kernel's work-groups on every core:
  // two lines came interleaved): the first reports and ends the process, the others wait for that.
  static std::atomic_flag reporting = ATOMIC_FLAG_INIT;
  if (reporting.test_and_set())
    for (;;) ::pause();
  // Written to the standard error the stage replaced; the driver's words come after the stage's name.
  const int held = cc::release_driver_output();
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
  if (signal == SIGABRT) {
    write_text(": it failed or ran out of memory (check free memory and the address-space limit, ulimit -v");
    write_address_space_limit();
    write_text(")");
  } else {
    write_text(": a kernel read or wrote outside its buffers (a --kernel-dir source?), or the driver failed");
  }
  write_driver_words(held);
  write_text("\n");
  ::_exit(2);
}

// A device fault inside a run: PoCL runs kernels on the host's threads and memory, so a --kernel-dir
// kernel that writes past its buffer crashes this process. And a driver that aborts
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
  report_crash(signal, variant, stage);
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

// glibc's abort, behind the one below; null if it could not be found (then raised by hand).
void (*libc_abort)() = nullptr;

void report_device_crashes() {
  libc_abort = reinterpret_cast<void (*)()>(::dlsym(RTLD_NEXT, "abort"));
  struct sigaction action {};
  action.sa_handler = on_device_crash;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGSEGV, &action, &previous_segv);
  ::sigaction(SIGBUS, &action, &previous_bus);
  ::sigaction(SIGABRT, &action, &previous_abrt);
  cc::set_driver_stage_hook(reclaim_abort);
}

}  // namespace

// abort() for the whole process: this definition comes before libc's for every library (PoCL and LLVM
// included), so a driver that calls abort inside a stage or a run gets the one line even while LLVM's
// SIGABRT handler stands over ours. That happens when PoCL first loads (about 300 MB under
// ulimit -v on 2 cores): its first clGetPlatformIDs installs LLVM's handlers (llvm::sys::RemoveFileOnSignal)
// and, in the same call, cannot start its threads and aborts; LLVM's handler puts ours back and returns,
// and glibc's abort then resets SIGABRT to the default action and raises it again, so no handler of ours
// runs and no stage start comes between to take SIGABRT back (reclaim_abort). An abort from inside libc
// (a failed assert) does not come here: it raises SIGABRT, whose handler reclaim_abort takes back as each
// stage starts.
extern "C" void abort() noexcept {
  const char* variant = cc::running_variant_name();
  const char* stage = cc::driver_stage_name();
  if (*variant != '\0' || *stage != '\0') report_crash(SIGABRT, variant, stage);
  if (libc_abort != nullptr) libc_abort();
  ::signal(SIGABRT, SIG_DFL);  // as glibc's would, if it could not be found
  sigset_t abort_only;
  sigemptyset(&abort_only);
  sigaddset(&abort_only, SIGABRT);
  ::sigprocmask(SIG_UNBLOCK, &abort_only, nullptr);
  ::raise(SIGABRT);
  ::_exit(128 + SIGABRT);
}

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
