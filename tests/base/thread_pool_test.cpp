#include "base/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace trit {
namespace {

TEST(ThreadPoolTest, CoversEveryItemOnceInContiguousParts) {
  for (int threads : {1, 2, 3, 7}) {
    ThreadPool pool(threads);
    for (int64_t n : {0, 1, 2, 5, 100}) {
      std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
      pool.ParallelFor(n, [&](int64_t b, int64_t e) {
        EXPECT_LT(b, e);
        for (int64_t i = b; i < e; ++i) ++hits[static_cast<size_t>(i)];
      });
      for (auto& h : hits) EXPECT_EQ(h.load(), 1);
    }
  }
}

TEST(ThreadPoolTest, UsesExactlyTheThreadsAsked) {
  ThreadPool pool(4);
  std::mutex m;
  std::set<std::thread::id> ids;
  pool.ParallelFor(4, [&](int64_t, int64_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::lock_guard<std::mutex> lock(m);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(ids.size(), 4u);
  EXPECT_TRUE(ids.count(std::this_thread::get_id()));  // the caller is one of them
}

TEST(ThreadPoolTest, ManyRoundsReuseTheWorkers) {
  ThreadPool pool(3);
  std::atomic<int64_t> sum{0};
  for (int round = 0; round < 2000; ++round) {
    pool.ParallelFor(10, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) sum += i;
    });
  }
  EXPECT_EQ(sum.load(), 2000 * 45);
}

// Release() between rounds sends the workers to sleep at once: every next
// round must still wake them all (no lost wake-up), whether they are asleep
// already or still on their way to sleep.
TEST(ThreadPoolTest, ReleaseBetweenRoundsLosesNoWakeUp) {
  for (int threads : {2, 3}) {
    ThreadPool pool(threads);
    std::atomic<int64_t> sum{0};
    for (int round = 0; round < 3000; ++round) {
      pool.ParallelFor(threads, [&](int64_t b, int64_t e) {
        for (int64_t i = b; i < e; ++i) sum += i + 1;
      });
      pool.Release();
      if (round % 500 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));  // all asleep
    }
    EXPECT_EQ(sum.load(), 3000 * threads * (threads + 1) / 2);
  }
}

}  // namespace
}  // namespace trit
