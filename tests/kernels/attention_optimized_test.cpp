// The SIMD attention against the reference AttendHead: the same bits on
// every compiled target this CPU runs, for f32 and f16 caches, head sizes
// that are and are not multiples of the vector width, key counts around the
// chunk size, soft-capping and sliding windows, and several query heads of
// one KV head at once. Fresh random caches each run.
#include "kernels/attention_optimized.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/attention.h"
#include "kernels/cpu_targets.h"
#include "kernels/test_inputs.h"

namespace trit::kernels {
namespace {

// A KV cache of n_pos random positions (keys with a wider spread than values,
// so the softmax is not flat).
struct RandomCache {
  std::vector<uint8_t> k, v;
  KvView view;

  RandomCache(KvType type, int64_t n_head_kv, int64_t head_dim, int64_t n_pos, std::mt19937_64& rng) {
    const int64_t stride = n_head_kv * head_dim;
    const size_t bytes = static_cast<size_t>(n_pos * stride) * (type == KvType::kF32 ? 4 : 2);
    k.resize(bytes);
    v.resize(bytes);
    view = KvView{type, k.data(), v.data(), stride};
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> kr(static_cast<size_t>(stride)), vr(static_cast<size_t>(stride));
    for (int64_t p = 0; p < n_pos; ++p) {
      for (float& x : kr) x = 2.0f * normal(rng);
      for (float& x : vr) x = normal(rng);
      KvStore(view, p, kr.data(), vr.data());
    }
  }
};

// Query i is q[i * head_dim, (i + 1) * head_dim) over its n_keys[i] keys.
// All of them go through AttendQueriesOptimized in one call on every
// target; success when every output has the bits AttendHead gives that
// query alone, else the targets that differ.
testing::AssertionResult EachQueryHasItsBitsAlone(const KvView& view, int64_t kv_head, int64_t head_dim,
                                                  const std::vector<float>& q, const std::vector<int64_t>& n_keys,
                                                  const AttendOptions& o, const std::vector<float>& sinks = {}) {
  std::vector<float> ref(q.size()), got(q.size());
  std::vector<AttendQuery> queries;
  for (size_t i = 0; i < n_keys.size(); ++i) {
    const size_t at = i * static_cast<size_t>(head_dim);
    const float* sink = sinks.empty() ? nullptr : &sinks[i];
    AttendHead(view, kv_head, head_dim, &q[at], n_keys[i], o, &ref[at], sink);
    queries.push_back({&q[at], n_keys[i], &got[at], sink});
  }
  std::string differ;
  for (int64_t target : RunnableTargets()) {
    TargetPin pin(target);
    std::fill(got.begin(), got.end(), -1.0f);
    AttendQueriesOptimized(view, kv_head, head_dim, queries, o);
    if (std::memcmp(got.data(), ref.data(), ref.size() * sizeof(float)) != 0) differ.append(" ").append(TargetName(target));
  }
  if (differ.empty()) return testing::AssertionSuccess();
  return testing::AssertionFailure() << "bits differ from AttendHead's on" << differ;
}

TEST(AttendQueriesOptimized, OneHeadSameBitsAsTheReferenceOnEveryTarget) {
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (KvType type : {KvType::kF16, KvType::kF32}) {
    for (int64_t head_dim : {64, 20, 7, 136}) {  // 136: more vectors than the optimized kernel holds at once
      const RandomCache cache(type, 3, head_dim, 77, rng);
      const KvView& view = cache.view;
      std::vector<float> q(static_cast<size_t>(head_dim));
      for (float& x : q) x = normal(rng);
      for (int64_t n_keys : {1, 31, 32, 33, 64, 77}) {
        for (int variant = 0; variant < 3; ++variant) {
          AttendOptions o;
          o.scale = 0.125f;
          if (variant == 1) o.softcap = 5.0f;
          if (variant == 2) o.window = 40;
          SCOPED_TRACE(testing::Message() << "type " << static_cast<int>(type) << " head_dim " << head_dim
                                          << " n_keys " << n_keys << " variant " << variant);
          EXPECT_TRUE(EachQueryHasItsBitsAlone(view, 2, head_dim, q, {n_keys}, o));
        }
      }
    }
  }
}

// Query heads of one KV head together (passes of 8, 4, 2, 1): each head
// gets the bits AttendHead gives it alone, on every target.
TEST(AttendQueriesOptimized, EachHeadHasItsBitsAlone) {
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (KvType type : {KvType::kF16, KvType::kF32}) {
    for (int64_t head_dim : {64, 12}) {
      const RandomCache cache(type, 2, head_dim, 70, rng);
      const KvView& view = cache.view;
      for (int64_t n_q : {1, 3, 8, 15}) {
        std::vector<float> q(static_cast<size_t>(n_q * head_dim));
        for (float& x : q) x = normal(rng);
        for (int64_t n_keys : {1, 33, 70}) {
          AttendOptions o;
          o.scale = 0.125f;
          o.window = n_keys == 70 ? 50 : 0;
          SCOPED_TRACE(testing::Message() << "type " << static_cast<int>(type) << " head_dim " << head_dim << " n_q "
                                          << n_q << " n_keys " << n_keys);
          EXPECT_TRUE(
              EachQueryHasItsBitsAlone(view, 1, head_dim, q, std::vector<int64_t>(static_cast<size_t>(n_q), n_keys), o));
        }
      }
    }
  }
}

// A prompt's queries: rows at consecutive positions, several heads each,
// so that one pass holds queries with different key counts (their last
// chunks differ; with a window, their first too). Each query gets the bits
// AttendHead gives it alone, on every target.
TEST(AttendQueriesOptimized, QueriesOfDifferentLengthsHaveTheirBitsAlone) {
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (KvType type : {KvType::kF16, KvType::kF32}) {
    for (int64_t head_dim : {64, 12}) {
      const RandomCache cache(type, 2, head_dim, 140, rng);
      for (int64_t heads : {1, 2, 4}) {
        for (int variant = 0; variant < 3; ++variant) {
          AttendOptions o;
          o.scale = 0.125f;
          if (variant == 1) o.softcap = 5.0f;
          if (variant == 2) o.window = 37;
          // Rows at positions 0..139 in an order with jumps (a pass may
          // hold queries whose windows do not meet: 3 and 139).
          std::vector<int64_t> row_keys;
          for (int64_t p = 1; p <= 140; ++p) row_keys.push_back(p);
          std::swap(row_keys[3], row_keys[139]);
          std::vector<int64_t> n_keys;  // per query: each row's heads in turn
          for (int64_t keys : row_keys) n_keys.insert(n_keys.end(), static_cast<size_t>(heads), keys);
          std::vector<float> q(n_keys.size() * static_cast<size_t>(head_dim));
          for (float& x : q) x = normal(rng);
          SCOPED_TRACE(testing::Message() << "type " << static_cast<int>(type) << " head_dim " << head_dim
                                          << " heads " << heads << " variant " << variant);
          EXPECT_TRUE(EachQueryHasItsBitsAlone(cache.view, 1, head_dim, q, n_keys, o));
        }
      }
    }
  }
}

// gpt-oss's sinks, one per query head: some queries with and some without,
// in one pass, each with the bits it has alone.
TEST(AttendQueriesOptimized, SinksHaveTheReferenceBits) {
  std::mt19937_64 rng(FreshSeed());
  RandomCache cache(KvType::kF16, 2, 64, 70, rng);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> q(11 * 64);
  for (float& x : q) x = normal(rng);
  const std::vector<int64_t> n_keys = {1, 2, 31, 32, 33, 40, 64, 65, 70, 70, 9};
  std::vector<float> sinks(n_keys.size());
  for (float& s : sinks) s = 3.0f * normal(rng);
  AttendOptions o;
  o.scale = 0.125f;
  EXPECT_TRUE(EachQueryHasItsBitsAlone(cache.view, 1, 64, q, n_keys, o, sinks));
  o.window = 20;
  EXPECT_TRUE(EachQueryHasItsBitsAlone(cache.view, 1, 64, q, n_keys, o, sinks));
}

}  // namespace
}  // namespace trit::kernels
