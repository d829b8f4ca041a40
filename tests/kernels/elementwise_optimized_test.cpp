// The optimized RMS norm, SwiGLU, GeGLU and RoPE (elementwise_optimized.h) against
// the reference on fresh random inputs: the reference's bits on every
// compiled target, and an element's bits independent of where it falls in a
// vector. (elementwise_test.cpp checks the reference against double math.)
#include "kernels/elementwise_optimized.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#include "kernels/activation.h"
#include "kernels/norm.h"
#include "kernels/rope.h"
#include "kernels/test_inputs.h"

namespace trit::kernels {
namespace {

using GluFn = void (*)(const float*, const float*, int64_t, float*);

// Gates over the whole useful range, and the clamp's edges and beyond.
std::vector<float> Gates(int64_t n, std::mt19937_64& rng) {
  std::normal_distribution<float> normal(0.0f, 4.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = normal(rng);
  const float edges[] = {0.0f, -0.0f, 1e-8f, -1e-8f, 87.5f, -87.5f, 88.5f, -88.5f, 100.0f, -100.0f, 20.0f, -20.0f};
  for (size_t i = 0; i < std::size(edges) && i < v.size(); ++i) v[i * 3] = edges[i];
  return v;
}

struct GluCase {
  const char* name;
  GluFn optimized;
  GluFn reference;
};

class GluTest : public ::testing::TestWithParam<GluCase> {};

TEST_P(GluTest, EveryTargetGivesTheReferenceBits) {
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << GetParam().name << " seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t n = 1037;
  const std::vector<float> gate = Gates(n, rng), up = RandomActivations(n, rng);
  std::vector<float> ref(static_cast<size_t>(n));
  GetParam().reference(gate.data(), up.data(), n, ref.data());
  for (int64_t target : RunnableTargets()) {
    SCOPED_TRACE(TargetName(target));
    TargetPin pin(target);
    std::vector<float> y(ref.size());
    GetParam().optimized(gate.data(), up.data(), n, y.data());
    for (size_t i = 0; i < y.size(); ++i) {
      EXPECT_EQ(std::memcmp(&y[i], &ref[i], sizeof(float)), 0)
          << "gate " << gate[i] << " up " << up[i] << ": " << y[i] << " vs " << ref[i];
    }
  }
}

// Every length (the tail goes through a padded vector) and every start give
// each element the bits it has inside a long row.
TEST_P(GluTest, ElementsIndependentOfLengthAndOffset) {
  std::mt19937_64 rng(FreshSeed());
  const int64_t n = 67;
  const std::vector<float> gate = Gates(n, rng), up = RandomActivations(n, rng);
  std::vector<float> full(static_cast<size_t>(n));
  GetParam().optimized(gate.data(), up.data(), n, full.data());
  for (int64_t start : {0, 1, 5, 13}) {
    for (int64_t len = 1; start + len <= n; len += 7) {
      std::vector<float> part(static_cast<size_t>(len));
      GetParam().optimized(gate.data() + start, up.data() + start, len, part.data());
      EXPECT_TRUE(SameBits(part, std::vector<float>(full.begin() + start, full.begin() + start + len)))
          << "start " << start << " length " << len;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Activations, GluTest,
                         ::testing::Values(GluCase{"swiglu", &SwiGluOptimized, &SwiGlu},
                                           GluCase{"geglu", &GeGluOptimized, &GeGlu},
                                           GluCase{"swiglu_oai", &SwiGluOaiOptimized, &SwiGluOai}),
                         [](const ::testing::TestParamInfo<GluCase>& info) { return std::string(info.param.name); });

TEST(GeluErfOptimized, EveryTargetGivesTheReferenceBitsAtAnyLengthAndOffset) {
  std::mt19937_64 rng(FreshSeed());
  std::vector<float> x = Gates(2051, rng);
  x.insert(x.end(), {0.0f, -0.0f, 40.0f, -40.0f, 1e-30f, -1e-30f, 3.0f, -3.0f});
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<float> ref = x;
  GeluErfRow(ref.data(), n);
  for (int64_t target : RunnableTargets()) {
    SCOPED_TRACE(TargetName(target));
    TargetPin pin(target);
    std::vector<float> y = x;
    GeluErfRowOptimized(y.data(), n);
    EXPECT_TRUE(SameBits(y, ref));
    for (int64_t start : {0, 1, 5, 13}) {
      for (int64_t len = 1; start + len <= 60; len += 7) {
        std::vector<float> part(x.begin() + start, x.begin() + start + len);
        GeluErfRowOptimized(part.data(), len);
        EXPECT_TRUE(SameBits(part, std::vector<float>(ref.begin() + start, ref.begin() + start + len)))
            << "start " << start << " length " << len;
      }
    }
  }
}

TEST(RmsNormOptimized, EveryTargetGivesTheReferenceBits) {
  std::mt19937_64 rng(FreshSeed());
  for (int64_t n : {1, 7, 8, 64, 2051}) {
    for (bool with_weight : {true, false}) {
      SCOPED_TRACE(testing::Message() << "n " << n << (with_weight ? " weighted" : ""));
      const std::vector<float> x = RandomActivations(n, rng), w = RandomActivations(n, rng);
      const float* weight = with_weight ? w.data() : nullptr;
      std::vector<float> ref(static_cast<size_t>(n));
      RmsNorm(x.data(), weight, n, 1e-5f, ref.data());
      for (int64_t target : RunnableTargets()) {
        SCOPED_TRACE(TargetName(target));
        TargetPin pin(target);
        std::vector<float> y(ref.size());
        RmsNormOptimized(x.data(), weight, n, 1e-5f, y.data());
        EXPECT_TRUE(SameBits(y, ref));
      }
      // In place, as the decoder calls it.
      std::vector<float> in_place = x;
      RmsNormOptimized(in_place.data(), weight, n, 1e-5f, in_place.data());
      EXPECT_TRUE(SameBits(in_place, ref));
    }
  }
}

// Both pairings, rotated parts shorter than the head and not a multiple of
// the vector width, positions far apart: the reference's bits everywhere.
TEST(RopeApplyOptimized, EveryTargetGivesTheReferenceBits) {
  std::mt19937_64 rng(FreshSeed());
  for (RopeMode mode : {RopeMode::kNormal, RopeMode::kNeox}) {
    for (auto [n_rot, head_dim] : {std::pair<int64_t, int64_t>{64, 64}, {128, 128}, {32, 80}, {22, 22}, {6, 10}}) {
      for (int64_t pos : {0, 1, 37, 4095}) {
        SCOPED_TRACE(testing::Message() << "mode " << static_cast<int>(mode) << " n_rot " << n_rot << " head_dim "
                                        << head_dim << " pos " << pos);
        RopeParams p;
        p.n_rot = n_rot;
        p.mode = mode;
        p.freq_base = 10000.0f;
        std::vector<float> cos(static_cast<size_t>(n_rot / 2)), sin(cos.size());
        RopeAngles(p, pos, cos.data(), sin.data());
        const std::vector<float> head = RandomActivations(head_dim, rng);
        std::vector<float> ref = head;
        RopeApply(p, cos.data(), sin.data(), ref.data());
        for (int64_t target : RunnableTargets()) {
          SCOPED_TRACE(TargetName(target));
          TargetPin pin(target);
          std::vector<float> got = head;
          RopeApplyOptimized(p, cos.data(), sin.data(), got.data());
          EXPECT_TRUE(SameBits(got, ref));
        }
      }
    }
  }
}

}  // namespace
}  // namespace trit::kernels
