// watched_call.h: a driver call that may never return (a build, loading the drivers) made on a thread of its own, waited for within a limit.
#pragma once

#include <chrono>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <system_error>
#include <thread>

#include "backends/device_completion.h"
#include "backends/device_watchdog.h"
#include "backends/stop_request.h"
#include "common/domain/seconds.h"

namespace cc {

// A span of seconds from the environment variable `name` (one checked Seconds, common/domain/seconds.h),
// or `default_s` where it is unset or empty. InputError for a value that is not a number of seconds > 0.
inline double limit_from_environment(const char* name, double default_s) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return default_s;
  return Seconds::parse(text, name).count();
}

// PoCL loads LLVM and starts its threads in well under a second, and CUDA's runtime initialises in
// seconds; a loader that has not returned in two minutes waits on something that will not come (a FIFO
// named as a library, a hung kernel module, a device fallen off the bus).
inline constexpr double kDefaultLoadTimeoutS = 120;

// The longest loading a GPU API's drivers and listing their devices may take: CONVCOMPARE_LOAD_TIMEOUT
// seconds, else kDefaultLoadTimeoutS. Its own limit, apart from a build's: a test that bounds builds to a
// millisecond must still get past loading.
inline double load_limit_s() { return limit_from_environment("CONVCOMPARE_LOAD_TIMEOUT", kDefaultLoadTimeoutS); }

enum class Watched { Finished, TimedOut, Interrupted };

// Runs `work` on a thread of its own and waits for it up to `limit_s` seconds. Finished: an exception out
// of it (std::bad_alloc from a driver under ulimit -v) is thrown here. TimedOut past the limit, and
// Interrupted once a stop request is overdue where `on_stop` is Watched::Interrupted (a build gives up, the
// job reports the interrupt); otherwise a stop does not end the wait and its backstop (stop_request.h) ends
// the process with the line that names the driver stage. Either way the device is abandoned
// (device_watchdog.h): the thread, which no API can cancel, may hold the driver's locks for good, so
// nothing may call the driver again and main ends with _Exit. `work` must own what it touches (it may
// outlive the call). Where no thread can be started (EAGAIN: under ulimit -v each thread reserves its
// stack), it runs here, unwatched.
inline Watched run_watched(double limit_s, std::function<void()> work, Watched on_stop = Watched::TimedOut) {
  struct Shared {
    DeviceCompletion completion;
    std::exception_ptr thrown;
  };
  auto shared = std::make_shared<Shared>();
  auto body = [shared, work = std::move(work)] {
    try {
      work();
    } catch (...) {
      shared->thrown = std::current_exception();
    }
    shared->completion.signal(0);
  };
  const auto deadline = std::chrono::steady_clock::now() + clock_span(limit_s);
  try {
    std::thread(body).detach();
  } catch (const std::system_error&) {
    body();
  }
  while (!shared->completion.wait_until(deadline)) {
    if (on_stop == Watched::Interrupted && stop_overdue()) {
      abandon_device();
      return Watched::Interrupted;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      abandon_device();
      return Watched::TimedOut;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a stop request is overdue: the backstop's
  }
  if (shared->thrown) std::rethrow_exception(shared->thrown);
  return Watched::Finished;
}

}  // namespace cc
