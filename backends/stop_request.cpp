// stop_request.cpp: SIGINT and SIGTERM taken by one thread of ours (sigtimedwait), so that no driver sees them, and the backstop for a stop that finds no safe point.
#include "backends/stop_request.h"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <thread>

#include "backends/device_watchdog.h"

namespace cc {

namespace {

constexpr int kSignals[2] = {SIGINT, SIGTERM};

// The request: the time first, then the signal, so that a reader who sees the signal sees its time.
// Lock-free atomics and a plain struct only: the fallback handler writes them too.
std::atomic<int> requested{0};
timespec requested_at{};
std::atomic<bool> reached{false};
struct sigaction handlers_before[2];

double seconds_since(const timespec& then) noexcept {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);  // async-signal-safe (POSIX)
  return static_cast<double>(now.tv_sec - then.tv_sec) + static_cast<double>(now.tv_nsec - then.tv_nsec) * 1e-9;
}

void write_text(const char* text) noexcept {
  const ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
  (void)ignored;  // nothing better to do in a process that is ending
}

// Ends the process by `signal_number` after `line`: standard error back from a driver stage that holds
// it (device_watchdog.h), then the handler that was there before (temporary_files.h: remove the
// temporaries, die by the signal, so the status is 128 + the signal), raised on this thread with the
// signal unblocked. Async-signal-safe. Inside a handler of `signal_number` the raise stays pending until
// the handler returns.
void stop_at_once(int signal_number, const char* line) noexcept {
  release_driver_output();
  write_text(line);
  ::sigaction(signal_number, &handlers_before[signal_number == SIGINT ? 0 : 1], nullptr);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, signal_number);
  ::pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
  ::raise(signal_number);
}

// One delivery of SIGINT or SIGTERM: the first requests the stop; one within kSameRequestS of it is the
// same request again; a later one ends the process at once. Async-signal-safe.
void take_signal(int signal_number) noexcept {
  int none = 0;
  if (requested.load() == 0) {
    ::clock_gettime(CLOCK_MONOTONIC, &requested_at);
    if (requested.compare_exchange_strong(none, signal_number)) return;
  }
  if (seconds_since(requested_at) < kSameRequestS) return;
  stop_at_once(signal_number, "convcompare: error: interrupted again: stopping at once; no report is written\n");
}

// Where a thread that existed before StopOnSignal (so does not block the signals) takes one.
extern "C" void request_stop(int signal_number) { take_signal(signal_number); }

// The backstop: a stop that kStopBackstopS after the signal finds the process still in a driver stage
// ends it, naming the stage.
void end_overdue_stop(const char* stage) {
  char line[512];
  std::snprintf(line, sizeof line,
                "convcompare: error: interrupted by %s, and %s did not end within %g s: stopping at once; no report "
                "is written\n",
                stop_signal_name(), stage, kStopBackstopS);
  const int signal_number = requested.load();
  stop_at_once(signal_number, line);
  ::_exit(128 + signal_number);  // the handler before was one that returns
}

}  // namespace

// The signals are blocked in this thread before any driver starts, so every thread made after it (the
// drivers', and the processes they start: PoCL's linker) blocks them too, and only the watcher takes
// them, with sigtimedwait: no driver's handler runs (LLVM's would remove a build's temporary files), and
// a signal to the whole process group (a terminal's Ctrl-C, GNU timeout) does not end a driver's helper
// process mid-build. The handler stays for threads made before.
StopOnSignal::StopOnSignal() {
  requested.store(0);
  reached.store(false);
  struct sigaction action {};
  action.sa_handler = request_stop;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // a device call in progress goes on; the job looks between runs
  sigset_t taken;
  sigemptyset(&taken);
  for (int i = 0; i < 2; ++i) {
    ::sigaction(kSignals[i], nullptr, &handlers_before[i]);
    // A signal inherited as ignored (nohup, a background job of sh) stays ignored.
    installed_[i] = handlers_before[i].sa_handler != SIG_IGN && ::sigaction(kSignals[i], &action, nullptr) == 0;
    if (installed_[i]) sigaddset(&taken, kSignals[i]);
  }
  ::pthread_sigmask(SIG_BLOCK, &taken, &mask_before_);
  try {
    watcher_ = std::thread([this, taken] { watch(taken); });
  } catch (const std::system_error&) {
    // No thread to spare (ulimit -v): the handler takes the signals, and there is no backstop.
    ::pthread_sigmask(SIG_SETMASK, &mask_before_, nullptr);
  }
}

StopOnSignal::~StopOnSignal() {
  reached.store(true);
  if (watcher_.joinable()) {
    watching_.store(false);
    watcher_.join();
    ::pthread_sigmask(SIG_SETMASK, &mask_before_, nullptr);  // one pending now meets the handler below
  }
  for (int i = 0; i < 2; ++i)
    if (installed_[i]) ::sigaction(kSignals[i], &handlers_before[i], nullptr);
}

void StopOnSignal::watch(sigset_t taken) {
  while (watching_.load()) {
    timespec tick{0, 50'000'000};
    if (const int signal_number = ::sigtimedwait(&taken, nullptr, &tick); signal_number > 0) take_signal(signal_number);
    if (requested.load() != 0 && !reached.load() && seconds_since(requested_at) >= kStopBackstopS)
      if (const char* stage = driver_stage_name(); *stage != '\0') end_overdue_stop(stage);
  }
}

int stop_signal() noexcept { return requested.load(); }

const char* stop_signal_name() noexcept { return requested.load() == SIGINT ? "SIGINT" : "SIGTERM"; }

bool stop_overdue() noexcept { return requested.load() != 0 && seconds_since(requested_at) >= kStopGraceS; }

void stop_reached() noexcept { reached.store(true); }

}  // namespace cc
