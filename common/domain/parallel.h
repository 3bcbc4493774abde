// parallel.h: splits a range of rows into contiguous bands, one per core, on worker threads that persist across calls.
#pragma once

#include <algorithm>
#include <system_error>
#include <thread>
#include <type_traits>
#include <vector>

namespace cc {

// Where band t of `threads` bands over [0, rows) starts: bands differ by at most one row.
inline int band_start(int rows, int threads, int t) {
  return static_cast<int>(static_cast<long long>(rows) * t / threads);
}

// A band of rows [begin, end) given to `body` with its caller's `context` (parallel_for_rows's lambda).
using RowBand = void (*)(void* context, int begin, int end);

// Runs bands 1 .. threads-1 of [0, rows) on the process's persistent workers, while the calling thread
// runs band 0, and returns once all are done (rethrowing a band's exception). Started once, at the first
// call, and kept: a thread started on every call was timed with the work (the CPU backend's `fast`
// read 8 ms instead of 0.17 ms with the other core busy: a new thread waits for the scheduler's next
// tick, where a sleeping one it wakes runs at once). False, doing nothing, when the workers are busy
// with another caller's bands (another thread's, or a band's own nested call): the caller does them
// itself. The workers the system refuses (EAGAIN under `ulimit -u`) leave their bands to the caller.
bool run_on_workers(int rows, int threads, RowBand band, void* context);

// Calls body(begin, end) on disjoint bands covering [0, rows), in parallel. Each row is computed by
// exactly one call with the same arithmetic whatever the band, so results never depend on the
// thread count.
template <typename Body>
void parallel_for_rows(int rows, Body&& body) {
  const int threads = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, std::max(rows, 1));
  if (threads == 1) {
    body(0, rows);
    return;
  }
  const RowBand band = [](void* context, int begin, int end) { (*static_cast<std::remove_reference_t<Body>*>(context))(begin, end); };
  if (run_on_workers(rows, threads, band, &body)) return;
  // The workers are busy: threads of this call's own, joined when the vector goes out of scope,
  // exception or not. The calling thread takes the first band itself.
  std::vector<std::jthread> workers;
  workers.reserve(threads - 1);
  const auto start = [&](int t) { return band_start(rows, threads, t); };
  // A thread the system refuses leaves its band and the rest to the calling thread: the same rows,
  // slower, never a failed run.
  int started = 1;
  try {
    for (; started < threads; ++started)
      workers.emplace_back([&body, begin = start(started), end = start(started + 1)] { body(begin, end); });
  } catch (const std::system_error&) {
  }
  body(0, start(1));
  for (int t = started; t < threads; ++t) body(start(t), start(t + 1));
}

}  // namespace cc
