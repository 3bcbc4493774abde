// device_watchdog.cpp: the polling wait behind every device wait, and the driver stage a crash is blamed on (a --kernel-dir kernel that never returns, a driver that aborts).
#include "backends/device_watchdog.h"

#include "backends/device_completion.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include <fmt/format.h>

#include "backends/stop_request.h"
#include "common/domain/error.h"
#include "common/domain/seconds.h"

namespace cc {

namespace {

char running_name[64] = "";  // read by a signal handler: a plain array, written only between launches
char stage_name[128] = "";   // the same, for DriverStage
void (*stage_hook)() noexcept = nullptr;
double wait_limit_s = kDefaultKernelTimeoutS;
std::atomic<bool> stuck{false};

// DriverStage's hold on standard error: how deep the stages nest, the in-memory file the driver's
// writes go to, and a duplicate of the descriptor 2 they replaced ("-1": none held).
int stage_depth = 0;
std::atomic<int> held_output{-1};
std::atomic<int> saved_stderr{-1};

void hold_driver_output() noexcept {
  const int held = ::memfd_create("convcompare-driver-stderr", MFD_CLOEXEC);
  if (held < 0) return;  // no memfd (an old kernel, a seccomp filter): the driver's words go out as they come
  const int saved = ::fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
  if (saved < 0 || ::dup2(held, STDERR_FILENO) < 0) {
    if (saved >= 0) ::close(saved);
    ::close(held);
    return;
  }
  held_output.store(held);
  saved_stderr.store(saved);
}

// The stage ended without a crash: standard error back, and what the driver said written to it, as it
// would have been (its warnings, a build's messages), in order.
void pass_driver_output_on() noexcept {
  const int held = held_output.exchange(-1);
  const int saved = saved_stderr.exchange(-1);
  if (saved >= 0) {
    ::dup2(saved, STDERR_FILENO);
    ::close(saved);
  }
  if (held < 0) return;
  // After a stop request the driver's words are about the interrupt (LLVM, inside PoCL, removes its
  // temporaries at the signal and the build then complains of the missing file): the job says it once.
  if (stop_signal() != 0) {
    ::close(held);
    return;
  }
  char block[4096];
  off_t at = 0;
  for (ssize_t got; (got = ::pread(held, block, sizeof block, at)) > 0; at += got)
    for (ssize_t written = 0, step; written < got; written += step)
      if ((step = ::write(STDERR_FILENO, block + written, static_cast<std::size_t>(got - written))) <= 0) break;
  ::close(held);
}

std::string stuck_message(std::string_view what) {
  return fmt::format("{} did not finish within {:g} s ({}): it may never return; if it is only slow, raise "
                     "--kernel-timeout",
                     *running_name ? fmt::format("the kernel '{}'", printable(running_name)) : std::string("the device"),
                     wait_limit_s, what);
}

std::chrono::steady_clock::time_point deadline_from(std::chrono::steady_clock::time_point start) {
  return start + clock_span(wait_limit_s);
}

void set_name(std::string_view name) {
  const std::size_t length = std::min(name.size(), sizeof running_name - 1);
  std::memcpy(running_name, name.data(), length);
  running_name[length] = '\0';
}

}  // namespace

RunningVariant::RunningVariant(std::string_view variant, double wait_limit) : previous_limit_s_(wait_limit_s) {
  if (stage_hook) stage_hook();
  std::memcpy(previous_name_, running_name, sizeof running_name);
  set_name(variant);
  wait_limit_s = wait_limit;
}

RunningVariant::~RunningVariant() {
  std::memcpy(running_name, previous_name_, sizeof running_name);
  wait_limit_s = previous_limit_s_;
}

const char* running_variant_name() noexcept { return running_name; }

bool device_stuck() noexcept { return stuck.load(); }

void abandon_device() noexcept { stuck.store(true); }

void give_up_for_stop(std::string_view what) {
  stuck.store(true);
  throw DeviceStuckError(fmt::format("interrupted by {}: gave up {} after {:g} s", stop_signal_name(), what, kStopGraceS));
}

void set_driver_stage_hook(void (*hook)() noexcept) noexcept { stage_hook = hook; }

DriverStage::DriverStage(std::string_view stage) {
  if (stage_hook) stage_hook();
  if (stage_depth++ == 0) hold_driver_output();
  std::memcpy(previous_, stage_name, sizeof stage_name);
  const std::size_t length = std::min(stage.size(), sizeof stage_name - 1);
  std::memcpy(stage_name, stage.data(), length);
  stage_name[length] = '\0';
}

DriverStage::~DriverStage() {
  std::memcpy(stage_name, previous_, sizeof stage_name);
  if (--stage_depth == 0) pass_driver_output_on();
}

void DriverStage::throw_out_of_memory(std::string_view stage) {
  // A driver that threw through its C API may still hold its locks (cl_build.h): no later call may reach
  // it, and main ends the process with _Exit, past the drivers' exit handlers.
  abandon_device();
  throw DeviceStuckError(fmt::format("the driver ran out of host memory while {} (std::bad_alloc out of the driver "
                                     "or its C++ wrapper) and is left unusable: {}",
                                     printable(stage), out_of_memory_advice()));
}

std::string out_of_memory_advice() {
  rlimit limit{};
  const bool limited = ::getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY;
  return fmt::format("free more memory or raise the address-space limit (ulimit -v{})",
                     limited ? fmt::format(", now {} MB", limit.rlim_cur >> 20) : std::string());
}

int release_driver_output() noexcept {
  const int saved = saved_stderr.exchange(-1);
  if (saved >= 0) ::dup2(saved, STDERR_FILENO);
  return held_output.load();
}

const char* driver_stage_name() noexcept { return stage_name; }

void wait_for_device(const std::function<bool()>& complete, std::string_view what) {
  using Clock = std::chrono::steady_clock;
  if (stuck.load()) throw DeviceStuckError(stuck_message(what));
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline = deadline_from(start);
  // The host-clock figures (setup, host to host, reuse, a stream's total) end at a wait, so a poll must
  // see completion soon after it happens: for the first 10 ms the wait only yields the core (what
  // cudaStreamSynchronize's default spin does); after that it sleeps a hundredth of the time waited so
  // far (at most 10 ms), which adds at most about 1% to any figure.
  constexpr auto kSpinFor = std::chrono::milliseconds(10);
  while (!complete()) {
    const Clock::time_point now = Clock::now();
    if (now >= deadline) {
      stuck.store(true);
      throw DeviceStuckError(stuck_message(what));
    }
    if (stop_overdue()) give_up_for_stop(what);
    const Clock::duration waited = now - start;
    if (waited < kSpinFor)
      std::this_thread::yield();
    else
      std::this_thread::sleep_for(std::min<Clock::duration>(waited / 100, kSpinFor));
  }
}

void DeviceCompletion::signal(long status) {
  {
    const std::lock_guard lock(mutex_);
    if (done_) return;  // the first signal wins: a callback and a waiting thread may both come (cl_api.cpp)
    done_ = true;
    status_ = status;
  }
  signalled_.notify_all();
}

bool DeviceCompletion::wait_until(std::chrono::steady_clock::time_point deadline) {
  // In slices, as a signal handler cannot wake a condition variable; a signal wakes nothing early.
  constexpr auto kSlice = std::chrono::milliseconds(50);
  std::unique_lock lock(mutex_);
  for (;;) {
    const auto now = std::chrono::steady_clock::now();
    if (signalled_.wait_until(lock, std::min(deadline, now + kSlice), [this] { return done_; })) return true;
    if (std::chrono::steady_clock::now() >= deadline || stop_overdue()) return false;
  }
}

long DeviceCompletion::status() const {
  const std::lock_guard lock(mutex_);
  return status_;
}

void wait_for_device(DeviceCompletion& completion, std::string_view what) {
  if (stuck.load()) throw DeviceStuckError(stuck_message(what));
  if (!completion.wait_until(deadline_from(std::chrono::steady_clock::now()))) {
    if (stop_overdue()) give_up_for_stop(what);
    stuck.store(true);
    throw DeviceStuckError(stuck_message(what));
  }
}

void drop_driver_output_lines(bool (*redundant)(std::string_view line)) {
  const int held = held_output.load();
  if (held < 0) return;
  std::string said;
  char block[4096];
  off_t at = 0;
  for (ssize_t got; (got = ::pread(held, block, sizeof block, at)) > 0; at += got) said.append(block, static_cast<std::size_t>(got));
  std::string kept;
  for (std::size_t start = 0; start < said.size();) {
    const std::size_t end = std::min(said.find('\n', start), said.size());
    if (!redundant(std::string_view(said).substr(start, end - start))) kept.append(said, start, end + 1 - start);
    start = end + 1;
  }
  // Descriptor 2 shares this file's offset: both back to the start, then what is kept.
  if (::ftruncate(held, 0) != 0 || ::lseek(held, 0, SEEK_SET) != 0) return;
  for (std::size_t written = 0; written < kept.size();) {
    const ssize_t step = ::write(held, kept.data() + written, kept.size() - written);
    if (step <= 0) break;
    written += static_cast<std::size_t>(step);
  }
}

}  // namespace cc
