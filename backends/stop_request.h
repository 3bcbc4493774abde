// stop_request.h: SIGINT and SIGTERM as one request to stop at the next safe point, and the bounds that keep a stop from waiting for ever.
#pragma once

#include <signal.h>

#include <atomic>
#include <thread>

namespace cc {

// How long a stop request lets a watched wait (a device wait, an OpenCL build: device_watchdog.h) go
// on: past it the wait gives up, the run in progress is dropped and the runs that finished are still
// written. A run's own waits end well within it: a GPU launch takes milliseconds, and a PoCL build that
// a signal reaches fails at once.
inline constexpr double kStopGraceS = 3;
// Past this after the first signal, a process still inside a driver stage (DriverStage: the ICD loader,
// a context, a build) that no watched wait covers ends at once, as at a second signal: one line naming
// the stage, no report, 130 or 143. A loader blocked opening a file cannot keep it alive. The job's own
// work (the reference, the CPU backend, the reports) always ends and is waited for.
inline constexpr double kStopBackstopS = 5;
// Deliveries of a signal this close to the first are that request again, whatever the signal and
// sender: GNU timeout signals the command and then its whole process group, and LLVM (inside PoCL)
// takes a signal during a build, removes its temporaries and raises it again.
inline constexpr double kSameRequestS = 1;

// While alive, SIGINT and SIGTERM (unless inherited as ignored) request a stop instead of ending the
// process; a later signal, after kSameRequestS, ends it at once (one line, the handler that was there
// before: temporaries removed, 128 + the signal). Made on the main thread before any driver starts:
// the signals are blocked there, so that the threads and processes the drivers start block them too,
// and a thread of its own takes them. One at a time; each resets the request.
class StopOnSignal {
 public:
  StopOnSignal();
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

 private:
  void watch(sigset_t taken);

  bool installed_[2] = {false, false};  // SIGINT's, SIGTERM's
  sigset_t mask_before_{};
  std::atomic<bool> watching_{true};
  std::thread watcher_;
};

// The signal that requested a stop (SIGINT or SIGTERM), 0 when none has. Async-signal-safe.
int stop_signal() noexcept;

// "SIGINT" or "SIGTERM" for stop_signal().
const char* stop_signal_name() noexcept;

// True once a stop request is kStopGraceS old: a watched wait gives up (device_watchdog.h).
bool stop_overdue() noexcept;

// The process took the stop at a safe point and now writes what it has: the backstop no longer applies.
void stop_reached() noexcept;

}  // namespace cc
