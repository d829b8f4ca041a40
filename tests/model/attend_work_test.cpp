// PlanAttendWork: every (row, query head) exactly once, blocks within one
// sequence, enough items for the threads, and the threads' shares of keys
// about even for a prompt.
#include "model/attend_work.h"

#include <gtest/gtest.h>

#include <map>
#include <utility>
#include <vector>

namespace trit::model {
namespace {

// Checks the plan covers each (row, head) once, each item inside one KV
// head's group and one sequence; returns the plan.
std::vector<AttendWork> CheckedPlan(const std::vector<int32_t>& seqs, int64_t n_head, int64_t n_head_kv, int threads) {
  const std::vector<AttendWork> work = PlanAttendWork(seqs, n_head, n_head_kv, threads);
  const int64_t group = n_head / n_head_kv;
  std::map<std::pair<int64_t, int64_t>, int> seen;
  for (const AttendWork& w : work) {
    EXPECT_LT(w.row_begin, w.row_end);
    EXPECT_LT(w.head_begin, w.head_end);
    EXPECT_GE(w.head_begin, w.kv_head * group);
    EXPECT_LE(w.head_end, (w.kv_head + 1) * group);
    for (int64_t r = w.row_begin; r < w.row_end; ++r) {
      EXPECT_EQ(seqs[static_cast<size_t>(r)], seqs[static_cast<size_t>(w.row_begin)]) << "row " << r;
      for (int64_t h = w.head_begin; h < w.head_end; ++h) ++seen[{r, h}];
    }
  }
  EXPECT_EQ(seen.size(), seqs.size() * static_cast<size_t>(n_head));
  for (const auto& [key, count] : seen) EXPECT_EQ(count, 1) << "row " << key.first << " head " << key.second;
  return work;
}

TEST(PlanAttendWorkTest, APromptGoesInBlocksOfEightQueries) {
  const std::vector<int32_t> seqs(128, 0);
  // Qwen3-0.6B: 16 heads over 8 KV heads, 2 a group: blocks of 4 rows.
  const std::vector<AttendWork> work = CheckedPlan(seqs, 16, 8, 2);
  ASSERT_EQ(work.size(), 32u * 8u);
  for (const AttendWork& w : work) {
    EXPECT_EQ(w.row_end - w.row_begin, 4);
    EXPECT_EQ(w.head_end - w.head_begin, 2);
  }
  // Gemma 3 270M: 4 heads on 1 KV head: blocks of 2 rows.
  for (const AttendWork& w : CheckedPlan(seqs, 4, 1, 2)) EXPECT_EQ(w.row_end - w.row_begin, 2);
}

TEST(PlanAttendWorkTest, ThreadsShareAPromptsKeysAboutEvenly) {
  const std::vector<int32_t> seqs(128, 0);
  for (int threads : {2, 3, 4}) {
    const std::vector<AttendWork> work = CheckedPlan(seqs, 16, 8, threads);
    // The pool's split: contiguous parts of n / threads items, the first
    // n % threads parts one longer. Keys of row r: r + 1.
    const int64_t n = static_cast<int64_t>(work.size());
    int64_t at = 0, low = INT64_MAX, high = 0;
    for (int t = 0; t < threads; ++t) {
      const int64_t take = n / threads + (t < n % threads ? 1 : 0);
      int64_t keys = 0;
      for (int64_t i = at; i < at + take; ++i) {
        const AttendWork& w = work[static_cast<size_t>(i)];
        for (int64_t r = w.row_begin; r < w.row_end; ++r) keys += (r + 1) * (w.head_end - w.head_begin);
      }
      at += take;
      low = std::min(low, keys);
      high = std::max(high, keys);
    }
    EXPECT_LT(static_cast<double>(high) / static_cast<double>(low), 1.15) << threads << " threads";
  }
}

TEST(PlanAttendWorkTest, BlocksStopAtSequencesAndShrinkForThreads) {
  // Three sequences of a server step: 3, 1 and 6 rows.
  const std::vector<int32_t> seqs = {4, 4, 4, 9, 2, 2, 2, 2, 2, 2};
  CheckedPlan(seqs, 16, 8, 2);
  CheckedPlan(seqs, 8, 1, 8);
  // One decode row, 8 heads on 1 KV head, 2 threads: the group is cut in
  // parts so that each thread gets two items.
  const std::vector<AttendWork> one = CheckedPlan({0}, 8, 1, 2);
  EXPECT_EQ(one.size(), 4u);
  // Two rows of one sequence, 4 heads on 1 KV head, 2 threads: one row a
  // block, and each row's group in two.
  const std::vector<AttendWork> two = CheckedPlan({0, 0}, 4, 1, 2);
  EXPECT_EQ(two.size(), 4u);
  for (const AttendWork& w : two) EXPECT_EQ(w.row_end - w.row_begin, 1);
  // With 4 KV heads the two rows stay one block: 4 items already.
  for (const AttendWork& w : CheckedPlan({0, 0}, 8, 4, 2)) EXPECT_EQ(w.row_end - w.row_begin, 2);
}

}  // namespace
}  // namespace trit::model
