// RmsNorm, RoPE (both modes), softmax and activations against double references.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "kernels/activation.h"
#include "kernels/norm.h"
#include "kernels/rope.h"
#include "kernels/softmax.h"

namespace trit::kernels {
namespace {

std::vector<float> Random(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = normal(rng);
  return v;
}

TEST(RmsNormTest, MatchesDouble) {
  const std::vector<float> x = Random(172, 1), w = Random(172, 2);
  std::vector<float> out(172);
  RmsNorm(x.data(), w.data(), 172, 1e-5f, out.data());
  double ss = 0.0;
  for (float v : x) ss += static_cast<double>(v) * v;
  const double scale = 1.0 / std::sqrt(ss / 172 + 1e-5);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(out[i], x[i] * scale * w[i], 1e-5) << i;
  RmsNorm(x.data(), nullptr, 172, 1e-5f, out.data());
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(out[i], x[i] * scale, 1e-5) << i;
}

TEST(LayerNormTest, MatchesDouble) {
  std::vector<float> x = Random(384, 11);
  for (float& v : x) v = v * 3.0f + 5.0f;  // a large mean: the centring must happen before the squares
  const std::vector<float> w = Random(384, 12), b = Random(384, 13);
  std::vector<float> out(384);
  LayerNorm(x.data(), w.data(), b.data(), 384, 1e-12f, out.data());
  double mean = 0.0, var = 0.0;
  for (float v : x) mean += v;
  mean /= 384;
  for (float v : x) var += (v - mean) * (v - mean);
  const double inv = 1.0 / std::sqrt(var / 384 + 1e-12);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(out[i], (x[i] - mean) * inv * w[i] + b[i], 2e-6) << i;
  std::vector<float> plain = x;  // in place, no weight or bias: mean 0, variance 1
  LayerNorm(plain.data(), nullptr, nullptr, 384, 1e-12f, plain.data());
  double m2 = 0.0, v2 = 0.0;
  for (float v : plain) m2 += v;
  for (float v : plain) v2 += double{v} * v;
  EXPECT_NEAR(m2 / 384, 0.0, 1e-6);
  EXPECT_NEAR(v2 / 384, 1.0, 1e-5);
}

TEST(RopeTest, BothModesMatchTheFormula) {
  for (RopeMode mode : {RopeMode::kNormal, RopeMode::kNeox}) {
    RopeParams p;
    p.n_rot = 8;
    p.freq_base = 10000.0f;
    p.freq_scale = 0.5f;
    p.mode = mode;
    const int64_t head_dim = 12;  // the last 4 are not rotated
    const std::vector<float> x = Random(head_dim, 3);
    for (int64_t pos : {0, 1, 17, 1000}) {
      std::vector<float> c(4), s(4), y = x;
      RopeAngles(p, pos, c.data(), s.data());
      RopeApply(p, c.data(), s.data(), y.data());
      for (int64_t i = 0; i < 4; ++i) {
        const double theta = pos * 0.5 * std::pow(10000.0, -2.0 * i / 8);
        const int64_t a = mode == RopeMode::kNormal ? 2 * i : i;
        const int64_t b = mode == RopeMode::kNormal ? 2 * i + 1 : i + 4;
        EXPECT_NEAR(y[a], x[a] * std::cos(theta) - x[b] * std::sin(theta), 1e-5) << pos;
        EXPECT_NEAR(y[b], x[a] * std::sin(theta) + x[b] * std::cos(theta), 1e-5) << pos;
      }
      for (int64_t i = 8; i < head_dim; ++i) EXPECT_EQ(y[i], x[i]);
      if (pos == 0) {
        EXPECT_EQ(y, x);
      }
    }
  }
}

// gemma4's proportional rope: factors divide the angles; a factor of 1e30
// leaves its pair where it is (cos 1, sin ~1e-27).
TEST(RopeTest, FrequencyFactorsDivideTheAngles) {
  RopeParams p;
  p.n_rot = 8;
  p.freq_base = 1e6f;
  p.mode = RopeMode::kNeox;
  const std::vector<float> factors = {1.0f, 2.0f, 1e30f, 1e30f};
  p.freq_factors = factors.data();
  const int64_t pos = 37;
  std::vector<float> c(4), s(4);
  RopeAngles(p, pos, c.data(), s.data());
  for (int64_t i = 0; i < 4; ++i) {
    const double theta = pos * std::pow(1e6, -2.0 * i / 8) / factors[static_cast<size_t>(i)];
    EXPECT_FLOAT_EQ(c[i], static_cast<float>(std::cos(theta))) << i;
    EXPECT_FLOAT_EQ(s[i], static_cast<float>(std::sin(theta))) << i;
  }
  const std::vector<float> x = Random(8, 5);
  std::vector<float> y = x;
  RopeApply(p, c.data(), s.data(), y.data());
  for (int64_t i : {2, 3, 6, 7}) EXPECT_FLOAT_EQ(y[i], x[i]) << i;
  EXPECT_NE(y[1], x[1]);
}

// llama.cpp's YaRN (ggml rope_yarn) for gpt-oss's parameters: base 150000,
// factor 32, original context 4096, beta 32 / 1, n_rot 64.
TEST(RopeTest, YarnBlendsInterpolatedAndExtrapolatedAngles) {
  RopeParams p;
  p.n_rot = 64;
  p.freq_base = 150000.0f;
  p.freq_scale = 1.0f / 32.0f;
  p.mode = RopeMode::kNeox;
  YarnCorrDims(64, 4096, p.freq_base, 32.0f, 1.0f, &p.yarn_low, &p.yarn_high);
  // floor(64 ln(4096 / (64 pi)) / (2 ln 150000)) = 8, ceil(64 ln(4096 / (2 pi)) / (2 ln 150000)) = 18.
  EXPECT_EQ(p.yarn_low, 8.0f);
  EXPECT_EQ(p.yarn_high, 18.0f);
  p.yarn_ext_factor = 1.0f;
  p.mscale = 1.0f + 0.1f * std::log(32.0f);
  const int64_t pos = 300;
  std::vector<float> c(32), s(32);
  RopeAngles(p, pos, c.data(), s.data());
  for (int64_t i = 0; i < 32; ++i) {
    const double extrap = pos * std::pow(150000.0, -2.0 * i / 64);
    const double ramp = 1.0 - std::clamp((i - 8.0) / 10.0, 0.0, 1.0);
    const double theta = extrap / 32.0 * (1.0 - ramp) + extrap * ramp;
    EXPECT_NEAR(c[i], std::cos(theta) * p.mscale, 1e-6) << i;
    EXPECT_NEAR(s[i], std::sin(theta) * p.mscale, 1e-6) << i;
  }
  // Below the low dim the angle is the extrapolated one, above the high the interpolated one.
  RopeParams plain = p;
  plain.yarn_ext_factor = 0.0f;
  plain.mscale = 1.0f;
  std::vector<float> pc(32), ps(32);
  RopeAngles(plain, pos, pc.data(), ps.data());
  EXPECT_NEAR(c[31] / p.mscale, pc[31], 1e-6);
  EXPECT_NE(c[2] / p.mscale, pc[2]);
}

TEST(SoftmaxTest, MatchesDoubleAndSumsToOne) {
  std::vector<float> x = Random(50, 4);
  for (float& v : x) v *= 10.0f;
  const std::vector<float> in = x;
  Softmax(x.data(), 50);
  double max = -1e300, sum = 0.0, total = 0.0;
  for (float v : in) max = std::max(max, static_cast<double>(v));
  for (float v : in) sum += std::exp(v - max);
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_NEAR(x[i], std::exp(in[i] - max) / sum, 1e-7);
    total += x[i];
  }
  EXPECT_NEAR(total, 1.0, 1e-6);
}

TEST(ActivationTest, MatchDouble) {
  const std::vector<float> g = Random(64, 5), u = Random(64, 6);
  std::vector<float> out(64);
  SwiGlu(g.data(), u.data(), 64, out.data());
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(out[i], g[i] / (1.0 + std::exp(-double{g[i]})) * u[i], 1e-6);
  GeGlu(g.data(), u.data(), 64, out.data());
  for (size_t i = 0; i < g.size(); ++i) {
    const double x = g[i];
    const double gelu = 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    EXPECT_NEAR(out[i], gelu * u[i], 1e-6);
  }
  Add(g.data(), u.data(), 64, out.data());
  for (size_t i = 0; i < g.size(); ++i) EXPECT_EQ(out[i], g[i] + u[i]);
  // gpt-oss's clamp: both sides of up at 7, gate above 7 only.
  const std::vector<float> gates = {-20.0f, -1.0f, 0.0f, 0.5f, 6.9f, 7.0f, 30.0f, 2.0f};
  const std::vector<float> ups = {0.3f, 9.0f, -9.0f, 1.5f, -0.25f, 100.0f, 2.0f, -3.0f};
  std::vector<float> oai(gates.size());
  SwiGluOai(gates.data(), ups.data(), static_cast<int64_t>(gates.size()), oai.data());
  for (size_t i = 0; i < gates.size(); ++i) {
    const double x = std::min(double{gates[i]}, 7.0), y = std::clamp(double{ups[i]}, -7.0, 7.0);
    EXPECT_NEAR(oai[i], x / (1.0 + std::exp(-1.702 * x)) * (y + 1.0), 1e-5) << gates[i] << ", " << ups[i];
  }
  Mul(g.data(), u.data(), 64, out.data());
  for (size_t i = 0; i < g.size(); ++i) EXPECT_EQ(out[i], g[i] * u[i]);
  out = g;
  Scale(out.data(), 64, 8.0f);
  for (size_t i = 0; i < g.size(); ++i) EXPECT_EQ(out[i], g[i] * 8.0f);
}

TEST(ActivationTest, GeluErfMatchesDouble) {
  std::vector<float> x = Random(256, 8);
  for (float& v : x) v *= 4.0f;
  x.insert(x.end(), {0.0f, -0.0f, 30.0f, -30.0f, 1e-20f, -1e-3f});
  std::vector<float> out = x;
  GeluErfRow(out.data(), static_cast<int64_t>(out.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    const double want = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    EXPECT_NEAR(out[i], want, 4e-7 * std::max(1.0, std::fabs(v))) << x[i];
    EXPECT_EQ(out[i], GeluErf(x[i]));
  }
}

TEST(ActivationTest, SoftCapMatchesDouble) {
  std::vector<float> x = Random(64, 7);
  for (float& v : x) v *= 40.0f;  // well past the cap
  for (float cap : {30.0f, 50.0f, 0.5f}) {
    std::vector<float> out = x;
    SoftCapRow(out.data(), 64, cap);
    for (size_t i = 0; i < x.size(); ++i) {
      const double want = cap * std::tanh(double{x[i]} / cap);
      EXPECT_NEAR(out[i], want, 2e-6 * cap) << "cap " << cap << " x " << x[i];
      EXPECT_EQ(out[i], SoftCap(x[i], cap));
      EXPECT_LE(std::fabs(out[i]), cap);
    }
  }
}

}  // namespace
}  // namespace trit::kernels
