// temporary_files.cpp: a fixed table of temporary file names that an async-signal-safe handler unlinks.
#include "common/domain/temporary_files.h"

#include <signal.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>

namespace cc {

namespace {

// Fixed storage and atomics only: the handler may run at any point, so it takes no lock, allocates
// nothing and calls nothing but unlink and signal functions (all async-signal-safe).
struct Slot {
  std::atomic<bool> taken{false};  // owned by a TemporaryFile
  std::atomic<bool> ready{false};  // `path` is complete and should be removed on a signal
  char path[4096] = {};
};
std::array<Slot, 64> slots;

extern "C" void remove_and_resignal(int signal_number) {
  for (Slot& slot : slots)
    if (slot.ready.load()) ::unlink(slot.path);
  ::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

}  // namespace

void remove_temporaries_on_signals() {
  static std::once_flag installed;
  std::call_once(installed, [] {
    for (const int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
      struct sigaction action {};
      action.sa_handler = remove_and_resignal;
      sigemptyset(&action.sa_mask);
      struct sigaction previous {};
      // A signal the caller chose to ignore (nohup) stays ignored.
      if (::sigaction(signal_number, nullptr, &previous) == 0 && previous.sa_handler == SIG_IGN) continue;
      ::sigaction(signal_number, &action, nullptr);
    }
  });
}

TemporaryFile::TemporaryFile(const std::string& path) {
  if (path.size() >= sizeof(Slot::path)) return;
  for (std::size_t i = 0; i < slots.size(); ++i) {
    bool expected = false;
    if (!slots[i].taken.compare_exchange_strong(expected, true)) continue;
    std::memcpy(slots[i].path, path.c_str(), path.size() + 1);
    slots[i].ready.store(true);
    slot_ = static_cast<int>(i);
    return;
  }
}

TemporaryFile::~TemporaryFile() {
  if (slot_ < 0) return;
  slots[slot_].ready.store(false);
  slots[slot_].taken.store(false);
}

}  // namespace cc
