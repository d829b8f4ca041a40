// Session: the batch-invariance contract (chunks, threads, other sequences),
// truncation, and refusals.
#include <gtest/gtest.h>

#include <cstring>

#include "model/model.h"
#include "runtime/session.h"
#include "test_paths.h"

namespace trit::testing {
namespace {

const std::vector<int32_t> kIds = {1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421, 395,
                                   317, 426, 338, 401, 396, 267, 337, 410, 408, 419, 292, 411, 322, 265,
                                   282, 295, 433, 426, 385, 328, 432, 358, 394, 261, 370, 432, 352};

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Expected<std::unique_ptr<model::Model>> m = model::LoadModel(BundledModelPath());
    ASSERT_TRUE(m.ok()) << m.status().message();
    model_ = std::move(*m);
  }
  std::unique_ptr<runtime::Session> NewSession(int n_threads = 1, int32_t n_seq = 1, int64_t n_ctx = 0,
                                               kernels::KvType kv = kernels::KvType::kF16) {
    runtime::SessionOptions o;
    o.n_threads = n_threads;
    o.n_seq = n_seq;
    o.n_ctx = n_ctx;
    o.kv_type = kv;
    auto s = runtime::Session::Create(*model_, o);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return std::move(*s);
  }
  // All rows' logits of kIds run in passes of `chunk` rows.
  std::vector<float> Chunked(int64_t chunk, int n_threads, kernels::KvType kv = kernels::KvType::kF16) {
    auto s = NewSession(n_threads, 1, 0, kv);
    std::vector<float> all;
    for (size_t i = 0; i < kIds.size(); i += static_cast<size_t>(chunk)) {
      const size_t n = std::min(static_cast<size_t>(chunk), kIds.size() - i);
      Expected<runtime::Logits> l = s->Verify(std::span<const int32_t>(kIds).subspan(i, n));
      EXPECT_TRUE(l.ok()) << l.status().message();
      all.insert(all.end(), l->values.begin(), l->values.end());
    }
    return all;
  }
  std::unique_ptr<model::Model> model_;
};

// Bit-for-bit equality (EXPECT_EQ on floats would also pass -0 == +0).
bool SameBits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST_F(SessionTest, LogitsIdenticalForEveryChunkSizeAndThreadCount) {
  for (kernels::KvType kv : {kernels::KvType::kF16, kernels::KvType::kF32}) {
    const std::vector<float> one = Chunked(1, 1, kv);
    ASSERT_EQ(one.size(), kIds.size() * 512);
    for (int64_t chunk : {2, 3, 7, 32, 33, 41}) {
      for (int threads : {1, 2, 3}) {
        EXPECT_TRUE(SameBits(Chunked(chunk, threads, kv), one)) << "chunk " << chunk << " threads " << threads;
      }
    }
  }
}

TEST_F(SessionTest, KvTypeChangesResults) {
  // Guards the test above against a cache that is not used at all.
  EXPECT_FALSE(SameBits(Chunked(41, 1, kernels::KvType::kF16), Chunked(41, 1, kernels::KvType::kF32)));
}

TEST_F(SessionTest, SequencesInOneBatchMatchEachAlone) {
  const std::vector<float> alone = Chunked(41, 1);
  // Two sequences interleaved, the second one shifted by 5 tokens; logits of every row.
  auto s = NewSession(2, 2);
  runtime::Batch b;
  std::vector<std::pair<int32_t, int32_t>> rows;  // (seq, pos) of each logit row
  for (int32_t i = 0; i < 41; ++i) {
    b.Add(kIds[i], i, 0, true);
    rows.emplace_back(0, i);
    if (i >= 5) {
      b.Add(kIds[i - 5], i - 5, 1, true);
      rows.emplace_back(1, i - 5);
    }
  }
  Expected<runtime::Logits> l = s->Decode(b);
  ASSERT_TRUE(l.ok()) << l.status().message();
  for (size_t r = 0; r < rows.size(); ++r) {
    const float* expected = alone.data() + rows[r].second * 512;
    EXPECT_EQ(std::memcmp(l->Row(static_cast<int64_t>(r)).data(), expected, 512 * sizeof(float)), 0)
        << "seq " << rows[r].first << " pos " << rows[r].second;
  }
  EXPECT_EQ(s->Length(0), 41);
  EXPECT_EQ(s->Length(1), 36);
}

TEST_F(SessionTest, TruncateThenRerunGivesTheSameLogits) {
  const std::vector<float> reference = Chunked(41, 1);
  auto s = NewSession();
  ASSERT_TRUE(s->Verify(std::span<const int32_t>(kIds).first(30)).ok());
  // Reject the last 10 "drafts", feed different tokens, then reject them too.
  ASSERT_TRUE(s->Truncate(0, 20).ok());
  const std::vector<int32_t> other = {5, 6, 7};
  ASSERT_TRUE(s->Verify(other).ok());
  ASSERT_TRUE(s->Truncate(0, 20).ok());
  Expected<runtime::Logits> l = s->Verify(std::span<const int32_t>(kIds).subspan(20));
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(std::memcmp(l->values.data(), reference.data() + 20 * 512, l->values.size() * sizeof(float)), 0);
  EXPECT_FALSE(s->Truncate(0, 42).ok());
}

TEST_F(SessionTest, CopiedPrefixContinuesAsIfComputed) {
  const std::vector<float> reference = Chunked(41, 1);
  for (kernels::KvType kv : {kernels::KvType::kF16, kernels::KvType::kF32}) {
    auto s = NewSession(2, 3, 0, kv);
    // Sequence 2 holds other tokens first: the copy must replace them.
    ASSERT_TRUE(s->Verify(std::vector<int32_t>{9, 8, 7, 6, 5, 4, 3, 2, 1, 9, 8, 7, 6, 5, 4, 3, 2, 1, 9, 8, 7, 6, 5, 4, 3},
                          2).ok());
    ASSERT_TRUE(s->Verify(std::span<const int32_t>(kIds).first(30), 0).ok());
    ASSERT_TRUE(s->CopyPrefix(0, 2, 20).ok());
    EXPECT_EQ(s->Length(2), 20);
    EXPECT_EQ(s->Length(0), 30);
    Expected<runtime::Logits> l = s->Verify(std::span<const int32_t>(kIds).subspan(20), 2);
    ASSERT_TRUE(l.ok()) << l.status().message();
    if (kv == kernels::KvType::kF16) {
      EXPECT_EQ(std::memcmp(l->values.data(), reference.data() + 20 * 512, l->values.size() * sizeof(float)), 0);
    }
    // And the same as sequence 1 computing everything itself under this cache type.
    Expected<runtime::Logits> own = s->Verify(kIds, 1);
    ASSERT_TRUE(own.ok());
    EXPECT_EQ(std::memcmp(l->values.data(), own->values.data() + 20 * 512, l->values.size() * sizeof(float)), 0);
  }
  auto s = NewSession(1, 2);
  ASSERT_TRUE(s->Verify(std::span<const int32_t>(kIds).first(5), 0).ok());
  EXPECT_FALSE(s->CopyPrefix(0, 1, 6).ok());  // more than it holds
  EXPECT_FALSE(s->CopyPrefix(0, 0, 2).ok());  // onto itself
  EXPECT_FALSE(s->CopyPrefix(0, 2, 2).ok());  // no such sequence
  EXPECT_FALSE(s->CopyPrefix(-1, 1, 2).ok());
}

TEST_F(SessionTest, ContextOverflowRefused) {
  auto s = NewSession(1, 1, 8);
  EXPECT_TRUE(s->Verify(std::span<const int32_t>(kIds).first(6)).ok());
  Expected<runtime::Logits> l = s->Verify(std::span<const int32_t>(kIds).first(3));
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().message(),
            "context overflow: sequence 0 holds 6 tokens, 3 more do not fit a context of 8 tokens");
  runtime::Batch b;
  b.Add(1, 6, 0, true);
  b.Add(1, 7, 0, true);
  b.Add(1, 8, 0, true);
  l = s->Decode(b);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().message(), "context overflow: sequence 0 position 8 does not fit a context of 8 tokens");
  EXPECT_EQ(s->Length(0), 6);  // a refused batch changes nothing
}

TEST_F(SessionTest, BadBatchesRefusedByName) {
  auto s = NewSession(1, 2);
  runtime::Batch b;
  b.Add(512, 0, 0, true);
  EXPECT_EQ(s->Decode(b).status().message(), "row 0: token id 512 is out of range, expected 0..511");
  b = runtime::Batch();
  b.Add(1, 0, 2, true);
  EXPECT_EQ(s->Decode(b).status().message(), "row 0: sequence 2 is out of range, expected 0..1");
  b = runtime::Batch();
  b.Add(1, 0, 0, true);
  b.Add(1, 2, 0, true);
  EXPECT_EQ(s->Decode(b).status().message(),
            "row 1: sequence 0 position 2, expected 1 (positions continue the sequence's cache)");
  EXPECT_EQ(s->Decode(runtime::Batch()).status().message(), "empty batch");
  EXPECT_FALSE(runtime::Session::Create(*model_, {.n_ctx = 0, .n_seq = 1, .kv_type = kernels::KvType::kF16,
                                                  .n_threads = 0})
                   .ok());
}

TEST_F(SessionTest, DecodeReturnsOnlyTheRowsAsked) {
  const std::vector<float> reference = Chunked(41, 1);
  auto s = NewSession();
  runtime::Batch b;
  for (int32_t i = 0; i < 10; ++i) b.Add(kIds[i], i, 0, i == 9 || i == 4);
  Expected<runtime::Logits> l = s->Decode(b);
  ASSERT_TRUE(l.ok());
  ASSERT_EQ(l->n_rows, 2);
  EXPECT_EQ(std::memcmp(l->Row(0).data(), reference.data() + 4 * 512, 512 * sizeof(float)), 0);
  EXPECT_EQ(std::memcmp(l->Row(1).data(), reference.data() + 9 * 512, 512 * sizeof(float)), 0);
}

}  // namespace
}  // namespace trit::testing
