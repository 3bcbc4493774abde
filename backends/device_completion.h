// device_completion.h: a device completion the driver signals from its own thread (an OpenCL event callback), waited on within --kernel-timeout.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string_view>

namespace cc {

// Signalled once, from any thread, with the command's final status (0 or an API error code). Shared
// with the driver's callback: a wait that timed out leaves the callback something to signal.
class DeviceCompletion {
 public:
  void signal(long status);
  // True once signalled; false at `deadline`, or once a stop request is overdue (stop_request.h:
  // stop_overdue() tells which), so that no wait outlives a stop by more than kStopGraceS.
  bool wait_until(std::chrono::steady_clock::time_point deadline);
  long status() const;

 private:
  mutable std::mutex mutex_;
  std::condition_variable signalled_;
  bool done_ = false;
  long status_ = 0;
};

// Blocks until `completion` is signalled, without polling (a host-clock figure ends as soon as the
// driver says so), within --kernel-timeout; past it, DeviceStuckError as the polling wait_for_device
// (backends/device_watchdog.h).
void wait_for_device(DeviceCompletion& completion, std::string_view what);

}  // namespace cc
