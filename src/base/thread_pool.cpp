#include "base/thread_pool.h"

#include "base/check.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace trit {
namespace {

// One polling step: tells the core (and its SMT sibling) that this is a spin.
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Polls done() until it holds or kSpin has passed; true if it holds.
template <class Done>
bool SpinUntil(const Done& done) {
  const auto start = std::chrono::steady_clock::now();
  for (int i = 1;; ++i) {
    if (done()) return true;
    CpuRelax();
    if (i % 64 == 0 && std::chrono::steady_clock::now() - start > ThreadPool::kSpin) return done();
  }
}

}  // namespace

ThreadPool::ThreadPool(int n_threads) : n_threads_(n_threads) {
  TRIT_CHECK(n_threads >= 1);
  workers_.reserve(static_cast<size_t>(n_threads - 1));
  for (int i = 1; i < n_threads; ++i) workers_.emplace_back([this, i] { WorkerLoop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true, std::memory_order_release);
  }
  start_.notify_all();
  for (std::thread& t : workers_) t.join();
}

uint64_t ThreadPool::WaitForJob(uint64_t seen) {
  auto ready = [&] {
    return stop_.load(std::memory_order_acquire) || generation_.load(std::memory_order_acquire) != seen;
  };
  auto ready_or_released = [&] { return ready() || released_.load(std::memory_order_acquire); };
  if (!SpinUntil(ready_or_released) || !ready()) {
    std::unique_lock<std::mutex> lock(mutex_);
    ++sleeping_workers_;
    start_.wait(lock, ready);
    --sleeping_workers_;
  }
  return stop_.load(std::memory_order_acquire) ? seen : generation_.load(std::memory_order_acquire);
}

void ThreadPool::WorkerLoop(int index) {
  uint64_t seen = 0;
  for (;;) {
    const uint64_t next = WaitForJob(seen);
    if (next == seen) return;  // stopping
    seen = next;
    const int64_t n_items = job_items_;
    const int64_t begin = n_items * index / n_threads_;
    const int64_t end = n_items * (index + 1) / n_threads_;
    if (begin < end) (*job_)(begin, end);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (caller_sleeping_) done_.notify_one();
    }
  }
}

void ThreadPool::WaitForWorkers() {
  auto finished = [&] { return pending_.load(std::memory_order_acquire) == 0; };
  if (SpinUntil(finished)) return;
  std::unique_lock<std::mutex> lock(mutex_);
  caller_sleeping_ = true;
  done_.wait(lock, finished);
  caller_sleeping_ = false;
}

void ThreadPool::ParallelFor(int64_t n_items, const RangeFn& fn) {
  if (n_items <= 0) return;
  if (n_threads_ == 1) {
    fn(0, n_items);
    return;
  }
  job_ = &fn;
  job_items_ = n_items;
  released_.store(false, std::memory_order_relaxed);
  pending_.store(n_threads_ - 1, std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (sleeping_workers_ > 0) start_.notify_all();
  }
  const int64_t end = n_items / n_threads_;
  if (end > 0) fn(0, end);
  WaitForWorkers();
  job_ = nullptr;
}

void ThreadPool::Release() {
  if (n_threads_ > 1) released_.store(true, std::memory_order_release);
}

}  // namespace trit
