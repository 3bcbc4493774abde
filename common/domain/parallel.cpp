// parallel.cpp: the persistent workers behind parallel_for_rows, started once and woken for each call.
#include "common/domain/parallel.h"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stop_token>

namespace cc {

namespace {

// One job at a time: the caller posts it (a new generation), the workers each run their band and
// count down, the caller waits for zero. A worker that wakes for a generation whose job has fewer
// bands than workers has nothing to do but count down.
class RowWorkers {
 public:
  RowWorkers() {
    const int wanted = std::max(1, static_cast<int>(std::thread::hardware_concurrency())) - 1;
    try {
      for (int i = 0; i < wanted; ++i) threads_.emplace_back([this, i](std::stop_token stop) { work(i + 1, stop); });
    } catch (const std::system_error&) {  // fewer workers: the caller takes the bands of those missing
    }
  }
  ~RowWorkers() {
    for (std::jthread& thread : threads_) thread.request_stop();
    posted_.notify_all();
  }  // the jthreads join here, each out of its wait

  bool run(int rows, int threads, RowBand band, void* context) {
    if (busy_.exchange(true)) return false;
    struct Release {
      std::atomic<bool>& busy;
      ~Release() { busy = false; }
    } release{busy_};
    const int workers = std::min(static_cast<int>(threads_.size()), threads - 1);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      job_ = {rows, threads, workers, band, context};
      pending_ = static_cast<int>(threads_.size());
      failure_ = nullptr;
      ++generation_;
    }
    posted_.notify_all();
    std::exception_ptr own;
    try {
      band(context, 0, band_start(rows, threads, 1));
      for (int t = workers + 1; t < threads; ++t) band(context, band_start(rows, threads, t), band_start(rows, threads, t + 1));
    } catch (...) {
      own = std::current_exception();
    }
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return pending_ == 0; });
    if (own) std::rethrow_exception(own);
    if (failure_) std::rethrow_exception(failure_);
    return true;
  }

 private:
  struct Job {
    int rows = 0, threads = 0, workers = 0;
    RowBand band = nullptr;
    void* context = nullptr;
  };

  void work(int index, const std::stop_token& stop) {
    unsigned long long seen = 0;
    for (;;) {
      Job job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        posted_.wait(lock, stop, [&] { return generation_ != seen; });
        if (stop.stop_requested()) return;
        seen = generation_;
        job = job_;
      }
      std::exception_ptr failure;
      if (index <= job.workers) try {
          job.band(job.context, band_start(job.rows, job.threads, index), band_start(job.rows, job.threads, index + 1));
        } catch (...) {
          failure = std::current_exception();
        }
      std::lock_guard<std::mutex> lock(mutex_);
      if (failure && !failure_) failure_ = failure;
      if (--pending_ == 0) done_.notify_one();
    }
  }

  std::atomic<bool> busy_{false};  // one caller's job at a time (a flag, not a mutex: a band's nested call must not block)
  std::mutex mutex_;         // guards what follows
  std::condition_variable_any posted_;
  std::condition_variable done_;
  Job job_;
  unsigned long long generation_ = 0;
  int pending_ = 0;
  std::exception_ptr failure_;
  std::vector<std::jthread> threads_;  // last: started once the state they read exists, joined first
};

}  // namespace

bool run_on_workers(int rows, int threads, RowBand band, void* context) {
  static RowWorkers workers;
  return workers.run(rows, threads, band, context);
}

}  // namespace cc
