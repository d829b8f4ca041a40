// Attention against a double-precision softmax reference, f32 and f16
// caches, GQA head selection, and key counts around the chunk size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "base/half.h"
#include "kernels/attention.h"

namespace trit::kernels {
namespace {

constexpr int64_t kHeadDim = 16;
constexpr int64_t kHeadsKv = 2;
constexpr int64_t kStride = kHeadDim * kHeadsKv;

struct Cache {
  std::vector<float> k32, v32;     // what was stored, as floats
  std::vector<uint8_t> k, v;       // the cache bytes
  KvView view;
};

Cache MakeCache(KvType type, int64_t n_pos, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Cache c;
  const size_t bytes = static_cast<size_t>(n_pos * kStride) * (type == KvType::kF32 ? 4 : 2);
  c.k.resize(bytes);
  c.v.resize(bytes);
  c.view = KvView{type, c.k.data(), c.v.data(), kStride};
  for (int64_t p = 0; p < n_pos; ++p) {
    std::vector<float> k(kStride), v(kStride);
    for (float& x : k) x = 2.0f * normal(rng);
    for (float& x : v) x = normal(rng);
    KvStore(c.view, p, k.data(), v.data());
    for (int64_t i = 0; i < kStride; ++i) {
      // The reference sees what the cache holds (f16-rounded for f16).
      c.k32.push_back(type == KvType::kF16 ? HalfToFloat(FloatToHalf(k[i])) : k[i]);
      c.v32.push_back(type == KvType::kF16 ? HalfToFloat(FloatToHalf(v[i])) : v[i]);
    }
  }
  return c;
}

// softcap > 0: scores capped as cap * tanh(s / cap); window > 0: only the
// last `window` keys are seen.
// sink: a logit that joins the denominator only (gpt-oss), none when NaN.
std::vector<double> Reference(const Cache& c, int64_t kv_head, const float* q, int64_t n_keys, double scale,
                              double softcap = 0.0, int64_t window = 0, double sink = std::nan("")) {
  const int64_t first = window > 0 ? std::max<int64_t>(0, n_keys - window) : 0;
  std::vector<double> s(static_cast<size_t>(n_keys), 0.0);
  double max = -1e300;
  for (int64_t j = first; j < n_keys; ++j) {
    double d = 0.0;
    for (int64_t i = 0; i < kHeadDim; ++i) d += static_cast<double>(q[i]) * c.k32[j * kStride + kv_head * kHeadDim + i];
    s[j] = d * scale;
    if (softcap > 0.0) s[j] = softcap * std::tanh(s[j] / softcap);
    max = std::max(max, s[j]);
  }
  if (!std::isnan(sink)) max = std::max(max, sink);
  double sum = std::isnan(sink) ? 0.0 : std::exp(sink - max);
  for (int64_t j = first; j < n_keys; ++j) sum += (s[j] = std::exp(s[j] - max));
  std::vector<double> out(kHeadDim, 0.0);
  for (int64_t j = first; j < n_keys; ++j) {
    for (int64_t i = 0; i < kHeadDim; ++i) out[i] += s[j] / sum * c.v32[j * kStride + kv_head * kHeadDim + i];
  }
  return out;
}

TEST(AttentionTest, MatchesDoubleReference) {
  for (KvType type : {KvType::kF32, KvType::kF16}) {
    Cache c = MakeCache(type, 100, 5);
    std::mt19937_64 rng(6);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (int64_t n_keys : {1, 2, 31, 32, 33, 64, 65, 100}) {
      for (int64_t kv_head = 0; kv_head < kHeadsKv; ++kv_head) {
        std::vector<float> q(kHeadDim);
        for (float& x : q) x = normal(rng);
        std::vector<float> out(kHeadDim);
        const float scale = 1.0f / std::sqrt(static_cast<float>(kHeadDim));
        AttendHead(c.view, kv_head, kHeadDim, q.data(), n_keys, scale, out.data());
        const std::vector<double> ref = Reference(c, kv_head, q.data(), n_keys, scale);
        for (int64_t i = 0; i < kHeadDim; ++i) {
          EXPECT_NEAR(out[i], ref[i], 2e-6) << "keys " << n_keys << " head " << kv_head << " dim " << i;
        }
      }
    }
  }
}

TEST(AttentionTest, OneKeyReturnsItsValue) {
  Cache c = MakeCache(KvType::kF32, 1, 9);
  const std::vector<float> q(kHeadDim, 0.5f);
  std::vector<float> out(kHeadDim);
  AttendHead(c.view, 1, kHeadDim, q.data(), 1, 0.25f, out.data());
  for (int64_t i = 0; i < kHeadDim; ++i) EXPECT_EQ(out[i], c.v32[kHeadDim + i]);
}

TEST(AttentionTest, LaterKeysDoNotChangeEarlierQueries) {
  // Causality through n_keys: filling more of the cache leaves the result of
  // a query over its first n keys unchanged, bit for bit.
  Cache small = MakeCache(KvType::kF16, 40, 12);
  Cache large = MakeCache(KvType::kF16, 90, 12);  // same first 40 rows (same seed)
  std::vector<float> q(kHeadDim, 0.3f), a(kHeadDim), b(kHeadDim);
  AttendHead(small.view, 0, kHeadDim, q.data(), 40, 0.25f, a.data());
  AttendHead(large.view, 0, kHeadDim, q.data(), 40, 0.25f, b.data());
  EXPECT_EQ(a, b);
}

TEST(AttentionTest, SlidingWindowAndSoftCapMatchDoubleReference) {
  for (KvType type : {KvType::kF32, KvType::kF16}) {
    Cache c = MakeCache(type, 100, 21);
    std::mt19937_64 rng(22);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (int64_t n_keys : {1, 2, 31, 32, 33, 64, 65, 100}) {
      for (int64_t window : {0, 1, 5, 31, 32, 33, 40, 200}) {
        for (float softcap : {0.0f, 3.0f}) {
          std::vector<float> q(kHeadDim);
          for (float& x : q) x = 2.0f * normal(rng);
          AttendOptions o;
          o.scale = 0.7f;  // large scores, so a cap of 3 changes them a lot
          o.softcap = softcap;
          o.window = window;
          std::vector<float> out(kHeadDim);
          AttendHead(c.view, 1, kHeadDim, q.data(), n_keys, o, out.data());
          const std::vector<double> ref = Reference(c, 1, q.data(), n_keys, o.scale, softcap, window);
          // Scores here reach |30|: a float score is off by ~30 * 2^-24 ~ 2e-6,
          // which exp() turns into that relative error of a weight; 1e-5 bounds it.
          for (int64_t i = 0; i < kHeadDim; ++i) {
            EXPECT_NEAR(out[i], ref[i], 1e-5) << "keys " << n_keys << " window " << window << " cap " << softcap;
          }
        }
      }
    }
  }
}

// A sink below, near and far above the scores (the last: nearly all weight
// on the sink, the output near 0), with and without a window.
TEST(AttentionTest, SinkJoinsTheDenominatorAsTheDoubleReference) {
  Cache c = MakeCache(KvType::kF16, 100, 31);
  std::mt19937_64 rng(32);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (int64_t n_keys : {1, 33, 100}) {
    for (int64_t window : {0, 5}) {
      for (float sink : {-30.0f, 0.0f, 1.5f, 40.0f}) {
        std::vector<float> q(kHeadDim);
        for (float& x : q) x = normal(rng);
        AttendOptions o;
        o.scale = 0.25f;
        o.window = window;
        std::vector<float> out(kHeadDim);
        AttendHead(c.view, 0, kHeadDim, q.data(), n_keys, o, out.data(), &sink);
        const std::vector<double> ref = Reference(c, 0, q.data(), n_keys, o.scale, 0.0, window, sink);
        for (int64_t i = 0; i < kHeadDim; ++i) {
          EXPECT_NEAR(out[i], ref[i], 2e-6) << "keys " << n_keys << " window " << window << " sink " << sink;
        }
      }
    }
  }
}

TEST(AttentionTest, SoftCapAndWindowChangeTheResult) {
  // Guards the test above against options that are ignored.
  Cache c = MakeCache(KvType::kF32, 70, 23);
  std::vector<float> q(kHeadDim, 0.9f), plain(kHeadDim), capped(kHeadDim), windowed(kHeadDim);
  AttendOptions o;
  o.scale = 0.7f;
  AttendHead(c.view, 0, kHeadDim, q.data(), 70, o, plain.data());
  o.softcap = 3.0f;
  AttendHead(c.view, 0, kHeadDim, q.data(), 70, o, capped.data());
  o.softcap = 0.0f;
  o.window = 10;
  AttendHead(c.view, 0, kHeadDim, q.data(), 70, o, windowed.data());
  EXPECT_NE(plain, capped);
  EXPECT_NE(plain, windowed);
}

TEST(AttentionTest, KeysBeforeTheWindowAreNeverRead) {
  // Poisoning every key and value before the window with NaN leaves the
  // result unchanged, bit for bit: they are skipped, not masked after use.
  Cache c = MakeCache(KvType::kF32, 80, 24);
  std::vector<float> q(kHeadDim, 0.4f), a(kHeadDim), b(kHeadDim);
  AttendOptions o;
  o.scale = 0.25f;
  o.window = 37;  // keys 43..79 of 80
  AttendHead(c.view, 1, kHeadDim, q.data(), 80, o, a.data());
  float* k = static_cast<float*>(c.view.k);
  float* v = static_cast<float*>(c.view.v);
  for (int64_t i = 0; i < 43 * kStride; ++i) k[i] = v[i] = std::nanf("");
  AttendHead(c.view, 1, kHeadDim, q.data(), 80, o, b.data());
  EXPECT_EQ(a, b);
}

TEST(AttentionTest, WindowCoveringEveryKeyEqualsNoWindowBitForBit) {
  Cache c = MakeCache(KvType::kF16, 50, 25);
  std::vector<float> q(kHeadDim, -0.6f), a(kHeadDim), b(kHeadDim);
  AttendHead(c.view, 0, kHeadDim, q.data(), 50, 0.25f, a.data());
  AttendOptions o;
  o.scale = 0.25f;
  o.window = 50;
  AttendHead(c.view, 0, kHeadDim, q.data(), 50, o, b.data());
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace trit::kernels
