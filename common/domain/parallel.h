// parallel.h: splits a range of rows into contiguous bands, one std::jthread per core.
#pragma once

#include <algorithm>
#include <system_error>
#include <thread>
#include <vector>

namespace cc {

// Calls body(begin, end) on disjoint bands covering [0, rows), in parallel. Each row is computed by
// exactly one call with the same arithmetic whatever the band, so results never depend on the
// thread count. The jthreads join when the vector goes out of scope, exception or not.
template <typename Body>
void parallel_for_rows(int rows, Body&& body) {
  const int threads = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, std::max(rows, 1));
  if (threads == 1) {
    body(0, rows);
    return;
  }
  std::vector<std::jthread> workers;
  workers.reserve(threads - 1);
  // Bands differ by at most one row; the calling thread takes the first band itself.
  auto band_start = [&](int t) { return static_cast<int>(static_cast<long long>(rows) * t / threads); };
  // A thread the system refuses (EAGAIN under `ulimit -v` or `ulimit -u`: each reserves its stack) leaves
  // its band and the rest to the calling thread, which gives the same rows: slower, never a failed run.
  int started = 1;
  try {
    for (; started < threads; ++started)
      workers.emplace_back([&body, begin = band_start(started), end = band_start(started + 1)] { body(begin, end); });
  } catch (const std::system_error&) {
  }
  body(0, band_start(1));
  for (int t = started; t < threads; ++t) body(band_start(t), band_start(t + 1));
}

}  // namespace cc
