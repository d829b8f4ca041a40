// Sampler: greedy, filters, penalties, seeded reproducibility, and that
// draws follow the distribution they claim.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <set>

#include "kernels/vocab_row.h"
#include "runtime/sampler.h"

namespace trit::testing {
namespace {

using runtime::Sampler;
using runtime::SamplerOptions;

const std::vector<float> kLogits = {1.0f, 3.0f, 2.5f, -1.0f, 3.0f, 0.0f};

TEST(SamplerTest, GreedyTakesHighestLowestIdOnTies) {
  Sampler s({});
  EXPECT_EQ(s.Sample(kLogits, {}, 0), 1);
  EXPECT_EQ(runtime::Argmax(kLogits), 1);
}

// Argmax (vector passes) against its definition, the first index of the
// highest value as a plain loop finds it, NaN never higher, at lengths around
// its 1024-element blocks, with ties, signed zeros, -inf and NaN.
TEST(SamplerTest, ArgmaxIsTheFirstIndexOfTheMaximum) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 300; ++trial) {
    const size_t n = 1 + rng() % 3000;
    std::vector<float> x(n);
    const uint64_t levels = trial % 3 == 0 ? 3 : 1000;
    for (float& v : x) v = static_cast<float>(rng() % levels) - static_cast<float>(levels);
    if (trial % 4 == 1) x[rng() % n] = 0.0f, x[rng() % n] = -0.0f;
    if (trial % 5 == 2) {
      for (size_t i = 0; i < n; i += 7) x[i] = nan;
    }
    if (trial % 7 == 3) std::fill(x.begin(), x.end(), -inf);
    if (trial % 11 == 4) std::fill(x.begin(), x.end(), nan);
    size_t best = 0;
    for (size_t i = 1; i < n; ++i) {
      if (x[i] > x[best]) best = i;
    }
    EXPECT_EQ(runtime::Argmax(x), static_cast<int32_t>(best)) << "trial " << trial << " n " << n;
  }
}

TEST(SamplerTest, SameSeedSameTokensOtherSeedOtherTokens) {
  SamplerOptions o;
  o.temperature = 1.0f;
  o.seed = 42;
  auto draw = [&](uint64_t seed) {
    o.seed = seed;
    Sampler s(o);
    std::vector<int32_t> out;
    for (int i = 0; i < 64; ++i) out.push_back(s.Sample(kLogits, {}, i));
    return out;
  };
  EXPECT_EQ(draw(42), draw(42));
  EXPECT_NE(draw(42), draw(43));
}

TEST(SamplerTest, DrawsFollowTheSoftmax) {
  SamplerOptions o;
  o.temperature = 0.7f;
  o.seed = 7;
  Sampler s(o);
  std::vector<int> counts(kLogits.size(), 0);
  const int n = 40000;
  for (int i = 0; i < n; ++i) ++counts[static_cast<size_t>(s.Sample(kLogits, {}, i))];
  double sum = 0.0;
  for (float l : kLogits) sum += std::exp(l / 0.7);
  for (size_t i = 0; i < kLogits.size(); ++i) {
    const double p = std::exp(kLogits[i] / 0.7) / sum;
    EXPECT_NEAR(static_cast<double>(counts[i]) / n, p, 0.01) << "id " << i;
  }
}

TEST(SamplerTest, TopKTopPMinPRestrictCandidates) {
  for (int seed = 0; seed < 50; ++seed) {
    SamplerOptions o;
    o.temperature = 5.0f;
    o.seed = static_cast<uint64_t>(seed);
    o.top_k = 2;  // ids 1 and 4 (tied at 3.0)
    Sampler k(o);
    const int32_t t = k.Sample(kLogits, {}, 0);
    EXPECT_TRUE(t == 1 || t == 4) << t;
    o.top_k = 0;
    o.top_p = 0.01f;  // the first candidate alone: id 1
    Sampler p(o);
    EXPECT_EQ(p.Sample(kLogits, {}, 0), 1);
    o.top_p = 1.0f;
    o.min_p = 0.9f;  // at temperature 5, p(2.5)/p(3.0) = e^-0.1 = 0.905 passes, 1.0 does not
    Sampler m(o);
    const int32_t u = m.Sample(kLogits, {}, 0);
    EXPECT_TRUE(u == 1 || u == 4 || u == 2) << u;
  }
}

TEST(SamplerTest, PenaltiesFollowTheirFormulas) {
  SamplerOptions o;
  o.repeat_penalty = 2.0f;  // 3.0 -> 1.5 for ids seen
  const std::vector<int32_t> history = {1, 4};
  Sampler r(o);
  EXPECT_EQ(r.Sample(kLogits, history, 0), 2);
  SamplerOptions f;
  f.frequency_penalty = 0.3f;  // id 1 seen twice: 3.0 - 0.6 = 2.4 < 2.5
  const std::vector<int32_t> twice = {1, 1, 4, 4};
  Sampler fs(f);
  EXPECT_EQ(fs.Sample(kLogits, twice, 0), 2);
  SamplerOptions p;
  p.presence_penalty = 0.4f;  // ids 1, 4 -> 2.6 > 2.5: lowest id among them
  Sampler ps(p);
  EXPECT_EQ(ps.Sample(kLogits, history, 0), 1);
  p.penalty_last_n = 1;  // only id 4 penalised: id 1 keeps 3.0
  Sampler last(p);
  EXPECT_EQ(last.Sample(kLogits, std::vector<int32_t>{4, 1, 4}, 0), 1);
  // Negative logits are multiplied by the repetition penalty.
  SamplerOptions n;
  n.repeat_penalty = 2.0f;
  Sampler ns(n);
  const std::vector<float> neg = {-1.0f, -1.5f};
  EXPECT_EQ(ns.Sample(neg, std::vector<int32_t>{0}, 0), 1);
}

// Logits of a real vocabulary's size and shape: a few likely tokens, a long
// tail, exact ties, some masked (-inf) entries.
std::vector<float> VocabRow(int64_t n, std::mt19937_64& rng) {
  std::normal_distribution<float> normal(0.0f, 2.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = normal(rng);
  for (int i = 0; i < 6; ++i) v[rng() % v.size()] = 9.0f + static_cast<float>(rng() % 4);
  for (size_t i = 0; i < v.size(); i += 97) v[i] = v[(i * 7) % v.size()];
  for (size_t i = 1; i < v.size(); i += 53) v[i] = -std::numeric_limits<float>::infinity();
  return v;
}

std::vector<int32_t> Ranked(const std::vector<float>& x) {
  std::vector<int32_t> ids(x.size());
  std::iota(ids.begin(), ids.end(), 0);
  std::sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) {
    const float la = x[static_cast<size_t>(a)], lb = x[static_cast<size_t>(b)];
    return la != lb ? la > lb : a < b;
  });
  return ids;
}

// The sampler as it was before the O(vocab) rewrite (a full sort), written
// out plainly: with top_k > 0 the new one must draw exactly these tokens.
class SortingSampler {
 public:
  explicit SortingSampler(const SamplerOptions& o) : o_(o) {}
  int32_t Sample(const std::vector<float>& x, int64_t position) {
    u01_ = runtime::PositionDraw(o_.seed, position);
    std::vector<int32_t> ids = Ranked(x);
    if (o_.top_k > 0 && static_cast<size_t>(o_.top_k) < ids.size()) ids.resize(static_cast<size_t>(o_.top_k));
    std::vector<double> probs(ids.size());
    const double max_logit = x[static_cast<size_t>(ids[0])];
    double sum = 0.0;
    for (size_t i = 0; i < ids.size(); ++i) {
      probs[i] = std::exp((x[static_cast<size_t>(ids[i])] - max_logit) / o_.temperature);
      sum += probs[i];
    }
    for (double& p : probs) p /= sum;
    size_t keep = TopPKeep(probs);
    if (o_.min_p > 0.0f) {
      size_t n = 1;
      while (n < keep && probs[n] >= o_.min_p * probs[0]) ++n;
      keep = n;
    }
    return Draw(ids, probs, keep);
  }

  // The top_k = 0 definition (sampler.h, steps 3 and 4) by a full sort.
  int32_t SampleWholeVocab(const std::vector<float>& x, int64_t position) {
    u01_ = runtime::PositionDraw(o_.seed, position);
    const int64_t n = static_cast<int64_t>(x.size());
    const float max = kernels::RowMax(x.data(), n);
    std::vector<float> w(x.size());
    const double sum = kernels::ExpWeights(x.data(), n, max, 1.0f / o_.temperature, w.data());
    const float minus_inf = -std::numeric_limits<float>::infinity();
    if (o_.top_p >= 1.0f && o_.min_p <= 0.0f) {
      const double u = u01_ * sum;
      double cumulative = 0.0;
      int32_t last = -1;
      for (int32_t i = 0; i < n; ++i) {
        if (x[static_cast<size_t>(i)] == minus_inf) continue;
        cumulative += w[static_cast<size_t>(i)];
        last = i;
        if (u < cumulative) return i;
      }
      return last;
    }
    const std::vector<int32_t> ids = Ranked(x);
    std::vector<double> probs(ids.size());
    for (size_t i = 0; i < ids.size(); ++i) {
      const size_t id = static_cast<size_t>(ids[i]);
      probs[i] = x[id] == minus_inf ? 0.0 : static_cast<double>(w[id]) / sum;
    }
    size_t keep = TopPKeep(probs);
    if (o_.min_p > 0.0f) {
      size_t k = 1;
      while (k < keep && w[static_cast<size_t>(ids[k])] >= o_.min_p) ++k;
      keep = k;
    }
    return Draw(ids, probs, keep);
  }

 private:
  // The smallest ranked prefix whose probability reaches top_p (all of it
  // when top_p is 1 or never reached).
  size_t TopPKeep(const std::vector<double>& probs) const {
    double cumulative = 0.0;
    for (size_t i = 0; i < probs.size() && o_.top_p < 1.0f; ++i) {
      cumulative += probs[i];
      if (cumulative >= o_.top_p) return i + 1;
    }
    return probs.size();
  }

  int32_t Draw(const std::vector<int32_t>& ids, const std::vector<double>& probs, size_t keep) {
    double total = 0.0;
    for (size_t i = 0; i < keep; ++i) total += probs[i];
    const double u = u01_ * total;
    double cumulative = 0.0;
    size_t last = 0;
    for (size_t i = 0; i < keep; ++i) {
      if (probs[i] > 0.0) last = i;
      cumulative += probs[i];
      if (u < cumulative) return ids[i];
    }
    return ids[last];
  }

  SamplerOptions o_;
  double u01_ = 0.0;  // the draw of the position being sampled
};

struct Filters {
  int32_t top_k;
  float top_p, min_p, temperature;
};
const Filters kFilters[] = {
    {40, 0.95f, 0.05f, 0.8f},  // trit run's defaults
    {40, 1.0f, 0.0f, 1.0f},   {1, 1.0f, 0.0f, 0.8f},   {7, 0.5f, 0.0f, 2.0f},
    {0, 1.0f, 0.0f, 0.8f},     // OpenAI's defaults (trit serve)
    {0, 1.0f, 0.0f, 1.0f},    {0, 0.95f, 0.0f, 0.8f},  {0, 0.9999f, 0.0f, 3.0f},
    {0, 1.0f, 0.05f, 0.8f},   {0, 0.95f, 0.05f, 1.0f}, {0, 1.0f, 1e-6f, 2.0f},
};

TEST(SamplerTest, DrawsTheTokensOfTheFullSortDefinition) {
  std::mt19937_64 rng(1201);
  for (const Filters& f : kFilters) {
    SamplerOptions o;
    o.temperature = f.temperature;
    o.top_k = f.top_k;
    o.top_p = f.top_p;
    o.min_p = f.min_p;
    o.seed = rng();
    SCOPED_TRACE(::testing::Message() << "top_k " << f.top_k << " top_p " << f.top_p << " min_p " << f.min_p
                                    << " temp " << f.temperature);
    Sampler fast(o);
    SortingSampler slow(o);
    for (int step = 0; step < 40; ++step) {
      const std::vector<float> row = VocabRow(step % 2 == 0 ? 5003 : 32000, rng);
      const int32_t expect = f.top_k > 0 ? slow.Sample(row, step) : slow.SampleWholeVocab(row, step);
      ASSERT_EQ(fast.Sample(row, {}, step), expect) << "step " << step;
    }
  }
}

TEST(SamplerTest, NeverDrawsAMaskedToken) {
  std::vector<float> row(1000, -std::numeric_limits<float>::infinity());
  row[0] = -std::numeric_limits<float>::infinity();
  row[500] = 0.0f;
  row[999] = 0.5f;
  for (float top_p : {1.0f, 0.5f}) {
    SamplerOptions o;
    o.temperature = 1.0f;
    o.top_p = top_p;
    for (uint64_t seed = 0; seed < 200; ++seed) {
      o.seed = seed;
      Sampler s(o);
      const int32_t t = s.Sample(row, {}, 0);
      EXPECT_TRUE(t == 500 || t == 999) << t;
    }
  }
}

// The top_k = 0 stream of this version (a token per position), pinned: a change to it is a change
// of every seeded trit serve reply and must be deliberate (sampler.h says when
// it last changed).
// The rows come from the generator's raw bits (std::normal_distribution's
// values are the library's choice), so the pin holds on any platform.
TEST(SamplerTest, WholeVocabStreamIsPinned) {
  std::mt19937_64 rng(7);
  SamplerOptions o;
  o.temperature = 0.8f;
  o.seed = 42;
  Sampler s(o);
  std::vector<int32_t> got;
  for (int i = 0; i < 12; ++i) {
    std::vector<float> row(32000);
    for (float& x : row) x = static_cast<float>(rng() >> 40) * 0x1.0p-24f * 8.0f - 4.0f;  // uniform [-4, 4)
    for (int j = 0; j < 5; ++j) row[rng() % row.size()] = 6.0f + static_cast<float>(j);
    got.push_back(s.Sample(row, {}, i));
  }
  const std::vector<int32_t> pinned = {14446, 30998, 20512, 1196, 22052, 4008, 11186, 31258, 6386, 16779, 18313, 8763};
  EXPECT_EQ(got, pinned);
}

// A token's draw depends on its seed and position alone: sampled in any
// order, after any number of other draws, a position gives the same token
// (what lets speculative decoding and prompt reuse keep the tokens).
TEST(SamplerTest, ADrawDependsOnTheSeedAndPositionAlone) {
  SamplerOptions o;
  o.temperature = 1.5f;
  o.seed = 99;
  Sampler forward(o);
  std::vector<int32_t> in_order;
  for (int64_t pos = 0; pos < 200; ++pos) in_order.push_back(forward.Sample(kLogits, {}, pos));
  Sampler backward(o);
  for (int64_t pos = 199; pos >= 0; --pos) {
    ASSERT_EQ(backward.Sample(kLogits, {}, pos), in_order[static_cast<size_t>(pos)]) << pos;
    ASSERT_EQ(backward.Sample(kLogits, {}, pos), in_order[static_cast<size_t>(pos)]) << "again " << pos;
  }
  EXPECT_GT(std::set<int32_t>(in_order.begin(), in_order.end()).size(), 3u);  // the positions draw apart
}

TEST(SamplerTest, PositionDrawsAreUniformAndPinned) {
  double sum = 0.0;
  const int n = 200000;
  for (int i = 0; i < n; ++i) {
    const double u = runtime::PositionDraw(7, i);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / n, 0.5, 0.005);
  EXPECT_NE(runtime::PositionDraw(1, 5), runtime::PositionDraw(2, 5));
  EXPECT_NE(runtime::PositionDraw(1, 5), runtime::PositionDraw(1, 6));
  // The first draws of seed 42, as 53-bit integers (the same as a few lines
  // of Python computing SplitMix64 by hand): a change here changes
  // every seeded answer and must be deliberate.
  std::vector<uint64_t> bits;
  for (int64_t pos = 0; pos < 4; ++pos) bits.push_back(static_cast<uint64_t>(runtime::PositionDraw(42, pos) * 0x1.0p53));
  EXPECT_EQ(bits, (std::vector<uint64_t>{3092098744885774, 8608601199334984, 4380647180739872, 606705965462011}));
}

TEST(SamplerTest, InvalidOptionsNamed) {
  SamplerOptions o;
  o.top_p = 0.0f;
  EXPECT_EQ(runtime::ValidateSamplerOptions(o).message(), "top_p is 0, expected (0, 1]");
  o = {};
  o.top_k = -1;
  EXPECT_EQ(runtime::ValidateSamplerOptions(o).message(), "top_k is -1, expected >= 0");
  EXPECT_TRUE(runtime::ValidateSamplerOptions({}).ok());
}

}  // namespace
}  // namespace trit::testing
