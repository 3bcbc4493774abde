// watched_call.h: a driver call that may never return (a build, loading the drivers) made on a thread of its own, waited for within a limit.
#pragma once

#include <chrono>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <string_view>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "backends/device_completion.h"
#include "backends/device_watchdog.h"
#include "backends/stop_request.h"
#include "common/domain/error.h"
#include "common/domain/seconds.h"

namespace cc {

// How long a watched call may take: `seconds` from the environment variable `variable` (one checked
// Seconds, common/domain/seconds.h), or `default_s` where it is unset or empty; InputError for a value that is
// not a number of seconds > 0. Read before the call starts, so a bad value is refused, not half-used.
struct WatchLimit {
  const char* variable;
  double default_s;
  double seconds;
};
inline WatchLimit watch_limit(const char* variable, double default_s) {
  const char* text = std::getenv(variable);
  return {variable, default_s, text == nullptr || *text == '\0' ? default_s : Seconds::parse(text, variable).count()};
}

// PoCL loads LLVM and starts its threads in well under a second, and CUDA's runtime initialises in
// seconds; a loader that has not returned in two minutes waits on something that will not come (a FIFO
// named as a library, a hung kernel module, a device fallen off the bus).
inline constexpr double kDefaultLoadTimeoutS = 120;

// The longest loading a GPU API's drivers and listing their devices may take: CONVCOMPARE_LOAD_TIMEOUT.
// Its own limit, apart from a build's: a test that bounds builds to a millisecond must still get past loading.
inline WatchLimit load_limit() { return watch_limit("CONVCOMPARE_LOAD_TIMEOUT", kDefaultLoadTimeoutS); }

enum class OnStop { KeepWaiting, GiveUp };

// Runs `work` on a thread of its own and waits for it within `limit`; an exception out of it (std::bad_alloc
// from a driver under ulimit -v) is thrown here. Past the limit, DeviceStuckError: "`what` did not finish
// within N s: the driver may never return; if it is only slow, raise VARIABLE (seconds, default D)". Once a
// stop request is overdue, OnStop::GiveUp gives up (give_up_for_stop: a build, whose job reports the
// interrupt); OnStop::KeepWaiting leaves the process to the stop's backstop (stop_request.h), whose line
// names the driver stage. Given up either way, the device is abandoned (device_watchdog.h): the thread, which
// no API can cancel, may hold the driver's locks for good, so nothing may call the driver again and main
// ends with _Exit. `work` must own what it touches (it may outlive the call). Where no thread can be
// started (EAGAIN: under ulimit -v each thread reserves its stack), it runs here, unwatched.
inline void run_watched(std::string_view what, const WatchLimit& limit, std::function<void()> work,
                        OnStop on_stop = OnStop::KeepWaiting) {
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
  const auto deadline = std::chrono::steady_clock::now() + clock_span(limit.seconds);
  try {
    std::thread(body).detach();
  } catch (const std::system_error&) {
    body();
  }
  while (!shared->completion.wait_until(deadline)) {
    if (on_stop == OnStop::GiveUp && stop_overdue()) give_up_for_stop(what);
    if (std::chrono::steady_clock::now() >= deadline) {
      abandon_device();
      throw DeviceStuckError(fmt::format("{} did not finish within {:g} s: the driver may never return; if it is "
                                         "only slow, raise {} (seconds, default {:g})",
                                         what, limit.seconds, limit.variable, limit.default_s));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a stop request is overdue: the backstop's
  }
  if (shared->thrown) std::rethrow_exception(shared->thrown);
}

}  // namespace cc
