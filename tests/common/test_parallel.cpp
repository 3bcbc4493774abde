// test_parallel.cpp: parallel_for_rows on its persistent workers: every row once, the same threads each call, errors and nesting.
#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/domain/parallel.h"

TEST_CASE("parallel_for_rows: every row exactly once, in bands that differ by at most one row") {
  for (const int rows : {0, 1, 2, 3, 7, 1000}) {
    CAPTURE(rows);
    std::vector<std::atomic<int>> visits(static_cast<std::size_t>(rows));
    std::mutex mutex;
    std::vector<int> band_sizes;
    cc::parallel_for_rows(rows, [&](int begin, int end) {
      for (int y = begin; y < end; ++y) ++visits[static_cast<std::size_t>(y)];
      const std::lock_guard<std::mutex> lock(mutex);
      band_sizes.push_back(end - begin);
    });
    CHECK(std::ranges::all_of(visits, [](const std::atomic<int>& v) { return v == 1; }));
    if (rows > 0) CHECK(std::ranges::max(band_sizes) - std::ranges::min(band_sizes) <= 1);
  }
}

TEST_CASE("parallel_for_rows: the workers persist across calls, so no call times a thread's start") {
  if (std::thread::hardware_concurrency() < 2) {
    MESSAGE("one CPU: parallel_for_rows runs on the calling thread, no workers to check");
    return;
  }
  const auto threads_of_a_call = [] {
    std::mutex mutex;
    std::set<std::thread::id> ids;
    cc::parallel_for_rows(64, [&](int, int) {
      const std::lock_guard<std::mutex> lock(mutex);
      ids.insert(std::this_thread::get_id());
    });
    ids.erase(std::this_thread::get_id());
    return ids;
  };
  const std::set<std::thread::id> first = threads_of_a_call();
  CHECK(!first.empty());
  for (int call = 0; call < 20; ++call) CHECK(threads_of_a_call() == first);
}

TEST_CASE("parallel_for_rows: a band's exception reaches the caller; a nested call and a concurrent one still cover every row") {
  CHECK_THROWS_AS(cc::parallel_for_rows(100, [](int begin, int) {
                    if (begin > 0) throw std::runtime_error("band failed");
                  }),
                  std::runtime_error);
  CHECK_THROWS_AS(cc::parallel_for_rows(100, [](int begin, int) {
                    if (begin == 0) throw std::runtime_error("first band failed");
                  }),
                  std::runtime_error);
  // The workers still answer after a failure, and a band may itself call parallel_for_rows (the
  // workers are busy then: the nested call runs on threads of its own).
  std::atomic<int> cells{0};
  cc::parallel_for_rows(8, [&](int begin, int end) {
    for (int y = begin; y < end; ++y) cc::parallel_for_rows(10, [&](int b, int e) { cells += e - b; });
  });
  CHECK(cells == 80);
  // Two threads calling at once: one gets the workers, the other its own threads; both complete.
  std::atomic<int> total{0};
  {
    std::vector<std::jthread> callers;
    for (int i = 0; i < 2; ++i)
      callers.emplace_back([&] {
        for (int round = 0; round < 50; ++round) cc::parallel_for_rows(33, [&](int b, int e) { total += e - b; });
      });
  }
  CHECK(total == 2 * 50 * 33);
}
