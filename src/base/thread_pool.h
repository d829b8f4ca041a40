// A small persistent thread pool with one operation: ParallelFor over a
// range of independent items, split into contiguous parts, one per thread.
//
// The pool runs exactly `n_threads` threads on a ParallelFor: the caller's
// thread and n_threads - 1 workers started once. Callers split work over
// output rows or columns only, so which thread computes an item never changes
// its value (docs/DESIGN.md contract 2).
//
// A decode step is a few hundred ParallelFors of tens of microseconds each,
// so a wake-up through the kernel (futex) on each would cost a large part of
// it. Workers therefore spin on an atomic for kSpin after their last part
// before they sleep on a condition variable, and the caller spins the same
// way for the workers to finish. Release() ends that spin at once when the
// caller is about to do serial work (sampling, streaming a token, HTTP):
// spinning workers would take the cores that work and other threads need.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace trit {

class ThreadPool {
 public:
  // Computes items [begin, end).
  using RangeFn = std::function<void(int64_t begin, int64_t end)>;

  // How long an idle thread polls before it sleeps.
  static constexpr std::chrono::microseconds kSpin{200};

  // n_threads >= 1.
  explicit ThreadPool(int n_threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int n_threads() const { return n_threads_; }

  // Calls fn on contiguous parts covering [0, n_items): part t is
  // [n_items * t / n_threads, n_items * (t + 1) / n_threads), run by thread t
  // (t = 0 is the caller). Returns when every part is done. Not reentrant:
  // one ParallelFor at a time per pool.
  void ParallelFor(int64_t n_items, const RangeFn& fn);

  // Idle workers stop polling and sleep now instead of after kSpin; the next
  // ParallelFor wakes them (one futex wake-up). Call it from the thread that
  // calls ParallelFor, between calls.
  void Release();

 private:
  void WorkerLoop(int index);
  // Returns the generation after `seen`, or `seen` if stopping.
  uint64_t WaitForJob(uint64_t seen);
  void WaitForWorkers();

  int n_threads_;
  std::vector<std::thread> workers_;
  // The job: written by the caller before generation_ is advanced (release),
  // read by workers after they see the new generation (acquire).
  const RangeFn* job_ = nullptr;
  int64_t job_items_ = 0;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  std::atomic<bool> stop_{false};
  std::atomic<bool> released_{false};  // set by Release(), cleared by ParallelFor
  // Sleeping after the spin: counted under mutex_, so a wake-up is never lost.
  std::mutex mutex_;
  std::condition_variable start_;
  std::condition_variable done_;
  int sleeping_workers_ = 0;
  bool caller_sleeping_ = false;
};

}  // namespace trit
