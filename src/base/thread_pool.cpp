#include "base/thread_pool.h"

#include "base/check.h"

namespace trit {

ThreadPool::ThreadPool(int n_threads) : n_threads_(n_threads) {
  TRIT_CHECK(n_threads >= 1);
  workers_.reserve(static_cast<size_t>(n_threads - 1));
  for (int i = 1; i < n_threads; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  start_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void ThreadPool::WorkerLoop(int index) {
  uint64_t seen = 0;
  for (;;) {
    const RangeFn* job;
    int64_t n_items;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
      n_items = job_items_;
    }
    const int64_t begin = n_items * index / n_threads_;
    const int64_t end = n_items * (index + 1) / n_threads_;
    if (begin < end) (*job)(begin, end);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_ == 0) done_.notify_one();
    }
  }
}

void ThreadPool::ParallelFor(int64_t n_items, const RangeFn& fn) {
  if (n_items <= 0) return;
  if (n_threads_ == 1) {
    fn(0, n_items);
    return;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &fn;
    job_items_ = n_items;
    pending_ = n_threads_ - 1;
    ++generation_;
  }
  start_.notify_all();
  const int64_t end = n_items / n_threads_;
  if (end > 0) fn(0, end);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
  job_ = nullptr;
}

}  // namespace trit
