// device_watchdog.h: every wait for the device bounded by a deadline, and the variant a stuck or crashed device is blamed on.
#pragma once

#include <functional>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace cc {

// The longest one wait for the device may take when no run set a limit (--kernel-timeout's default).
inline constexpr double kDefaultKernelTimeoutS = 300;

// While alive: the variant whose device work runs now (named by a wait that times out, and by
// tools/convcompare's crash line) and the longest any one wait for the device may take. Nests: the
// previous name and limit come back on destruction.
class RunningVariant {
 public:
  RunningVariant(std::string_view variant, double wait_limit_s);
  ~RunningVariant();
  RunningVariant(const RunningVariant&) = delete;
  RunningVariant& operator=(const RunningVariant&) = delete;

 private:
  char previous_name_[64];
  double previous_limit_s_;
};

// The running variant's name, NUL-terminated in a static buffer ("" between runs): safe to read from a
// signal handler.
const char* running_variant_name() noexcept;

// True once a wait has timed out. The stuck command cannot be cancelled (no API takes back a running
// kernel), and any call that waits on its queue would block for good: from then on every wait throws at
// once, and the process must end without waiting on the device (tools/convcompare/main.cpp).
bool device_stuck() noexcept;

// Marks the device as device_stuck() from outside a wait: a build abandoned past its limit, or a driver
// that threw a C++ exception out of its C API (its locks left held: backends/opencl/cl_build.h). From
// then on no call may reach the driver, and main ends the process with _Exit.
void abandon_device() noexcept;

// A wait given up on because a stop request is overdue (stop_request.h): the device is left working, so it
// is abandoned, and DeviceStuckError says "interrupted by SIGTERM: gave up `what` after 3 s"; the job
// reports the interrupt, not this.
[[noreturn]] void give_up_for_stop(std::string_view what);

// Moves `object` (driver handles: a program, the contexts) into static storage that is never destroyed,
// once the device is abandoned: their release could wait for a lock a stuck driver call holds, and the
// process ends with _Exit anyway. Allocates nothing, as running out of memory may be why it is called.
// One slot per type: a later object of the same type leaks the one before it too.
template <class Object>
void leave_to_process_end(Object&& object) noexcept {
  using Kept = std::remove_cvref_t<Object>;
  alignas(Kept) static unsigned char never_released[sizeof(Kept)];
  ::new (static_cast<void*>(never_released)) Kept(std::forward<Object>(object));
}

// While alive: the driver stage in progress ("building tiled.cl on pthread-...", "loading the OpenCL
// drivers"), named by tools/convcompare's line for a driver that aborts the process (SIGABRT). Nests.
// The outermost one also holds the driver's standard error (descriptor 2) in an unnamed in-memory file
// and writes it out when the stage ends: a driver that aborts prints its own words first (PoCL's
// "PTHREAD ERROR ...", LLVM's "LLVM ERROR: out of memory", a failed assertion), and the crash line takes
// them into its one line instead (docs/correctness.md, "Build failures").
class DriverStage {
 public:
  explicit DriverStage(std::string_view stage);
  ~DriverStage();
  DriverStage(const DriverStage&) = delete;
  DriverStage& operator=(const DriverStage&) = delete;

  // Runs `work` as the stage `stage`. A std::bad_alloc out of it (thrown by the driver through its C API,
  // or by the C++ wrapper around it) becomes a DeviceStuckError naming the stage and its device, with the
  // device abandoned (abandon_device), where driver.cpp's backstop could only say "out of host memory".
  template <class Work>
  static decltype(auto) run(std::string_view stage, Work&& work) {
    const DriverStage current(stage);
    try {
      return std::forward<Work>(work)();
    } catch (const std::bad_alloc&) {
      throw_out_of_memory(stage);
    }
  }

 private:
  [[noreturn]] static void throw_out_of_memory(std::string_view stage);
  char previous_[128];
};

// How a line about a driver out of memory ends: "free more memory or raise the address-space limit
// (ulimit -v, now 557 MB)", the limit's figure where one is set (where this is seen: PoCL under ulimit -v).
std::string out_of_memory_advice();

// Async-signal-safe, for tools/convcompare's crash line: puts the process's standard error back where
// it was before the outermost DriverStage and returns the descriptor of what the driver wrote to it
// since (read it with pread from offset 0), or -1 when nothing is held.
int release_driver_output() noexcept;

// Inside a DriverStage: removes from what the driver has written to standard error so far each line that
// `redundant` says the error being raised already carries (a failed build's compiler summary, "2 errors
// generated.", beside the error that quotes the build log), so the failure stays one line.
void drop_driver_output_lines(bool (*redundant)(std::string_view line));

// Called (when set) as each DriverStage and RunningVariant starts: tools/convcompare/main.cpp takes
// SIGABRT back from LLVM, which PoCL loads and which installs its own handler over it.
void set_driver_stage_hook(void (*hook)() noexcept) noexcept;

// The driver stage in progress, NUL-terminated in a static buffer ("" outside one): safe to read from a
// signal handler.
const char* driver_stage_name() noexcept;

// Waits until `complete()` says the device is done (it throws on an API error), polling it; past the
// limit, throws DeviceStuckError naming the variant and `what` (the wait: "the queue to finish").
void wait_for_device(const std::function<bool()>& complete, std::string_view what);

}  // namespace cc
