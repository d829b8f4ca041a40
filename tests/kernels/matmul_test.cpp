// MatMul for every weight type with a dequantizer: against dequantize-then-
// dot in double, in exactly dot.h's order, and invariant to M and threads.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "kernels/dot.h"
#include "kernels/matmul.h"

namespace trit::kernels {
namespace {

struct Weights {
  std::vector<uint8_t> bytes;
  Matrix m;
};

Weights RandomWeights(const quant::TypeInfo& t, int64_t n_cols, int64_t n_rows, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n_cols * n_rows));
  for (float& x : v) x = normal(rng);
  Weights w;
  const uint64_t row_bytes = static_cast<uint64_t>(n_cols / t.block_size * t.type_size);
  w.bytes.resize(row_bytes * static_cast<uint64_t>(n_rows));
  if (t.quantize != nullptr) {
    t.quantize(v.data(), w.bytes.data(), n_cols * n_rows);
  } else {
    // No quantizer (q2_K, q3_K, q8_K): random block bytes, redrawn until the
    // block's values are finite and moderate (random fp16 scales can be inf/NaN).
    std::vector<float> block(static_cast<size_t>(t.block_size));
    for (size_t b = 0; b < w.bytes.size(); b += static_cast<size_t>(t.type_size)) {
      for (;;) {
        for (int64_t i = 0; i < t.type_size; ++i) w.bytes[b + static_cast<size_t>(i)] = static_cast<uint8_t>(rng());
        t.dequantize(w.bytes.data() + b, block.data(), t.block_size);
        bool ok = true;
        for (float x : block) ok = ok && std::isfinite(x) && std::abs(x) < 1e3f;
        if (ok) break;
      }
    }
  }
  w.m = Matrix{&t, w.bytes.data(), n_cols, n_rows, row_bytes};
  return w;
}

std::vector<float> RandomActivations(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = u(rng);
  return v;
}

class MatMulTypeTest : public ::testing::TestWithParam<quant::GgmlType> {};

TEST_P(MatMulTypeTest, MatchesDequantizeThenDot) {
  const quant::TypeInfo& t = quant::GetType(GetParam());
  ASSERT_NE(t.dequantize, nullptr);
  const int64_t n_cols = 512, n_rows = 13, m = 5;
  Weights w = RandomWeights(t, n_cols, n_rows, 11);
  const std::vector<float> x = RandomActivations(m * n_cols, 12);
  ThreadPool pool(1);
  std::vector<float> y(static_cast<size_t>(m * n_rows));
  MatMul(w.m, x.data(), m, y.data(), pool);
  std::vector<float> row(static_cast<size_t>(n_cols));
  for (int64_t o = 0; o < n_rows; ++o) {
    DequantizeRow(w.m, o, row.data());
    for (int64_t r = 0; r < m; ++r) {
      double exact = 0.0, magnitude = 0.0;
      for (int64_t k = 0; k < n_cols; ++k) {
        exact += static_cast<double>(x[r * n_cols + k]) * row[k];
        magnitude += std::abs(static_cast<double>(x[r * n_cols + k]) * row[k]);
      }
      const float got = y[r * n_rows + o];
      EXPECT_NEAR(got, exact, 1e-6 * magnitude + 1e-6) << t.name << " row " << o;
      // Exactly the fixed order of dot.h: the same bits as Dot over the whole row.
      const float fixed = Dot(x.data() + r * n_cols, row.data(), n_cols);
      EXPECT_EQ(std::memcmp(&got, &fixed, sizeof got), 0) << t.name << " row " << o;
    }
  }
}

TEST_P(MatMulTypeTest, RowsIndependentOfBatchAndThreads) {
  const quant::TypeInfo& t = quant::GetType(GetParam());
  const int64_t n_cols = 768, n_rows = 37, m = 9;
  Weights w = RandomWeights(t, n_cols, n_rows, 21);
  const std::vector<float> x = RandomActivations(m * n_cols, 22);
  ThreadPool one(1), three(3);
  std::vector<float> batch(static_cast<size_t>(m * n_rows)), threaded(batch.size());
  MatMul(w.m, x.data(), m, batch.data(), one);
  MatMul(w.m, x.data(), m, threaded.data(), three);
  EXPECT_EQ(std::memcmp(batch.data(), threaded.data(), batch.size() * sizeof(float)), 0) << t.name;
  for (int64_t r = 0; r < m; ++r) {
    std::vector<float> alone(static_cast<size_t>(n_rows));
    MatMul(w.m, x.data() + r * n_cols, 1, alone.data(), three);
    EXPECT_EQ(std::memcmp(alone.data(), batch.data() + r * n_rows, alone.size() * sizeof(float)), 0)
        << t.name << " row " << r;
  }
}

std::vector<quant::GgmlType> TypesWithDequantizer() {
  std::vector<quant::GgmlType> out;
  for (const quant::TypeInfo& t : quant::AllTypes()) {
    if (t.dequantize != nullptr) out.push_back(t.type);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllTypes, MatMulTypeTest, ::testing::ValuesIn(TypesWithDequantizer()),
                         [](const ::testing::TestParamInfo<quant::GgmlType>& info) {
                           return std::string(quant::GetType(info.param).name);
                         });

TEST(MatMulTest, RowLengthNotAMultipleOfTheLanes) {
  // f32 rows of 172 (stories260K's ffn_down): the tail goes into lanes 0..3.
  const quant::TypeInfo& t = quant::GetType(quant::GgmlType::kF32);
  Weights w = RandomWeights(t, 172, 5, 3);
  const std::vector<float> x = RandomActivations(172, 4);
  ThreadPool pool(2);
  std::vector<float> y(5);
  MatMul(w.m, x.data(), 1, y.data(), pool);
  const float* wf = reinterpret_cast<const float*>(w.bytes.data());
  for (int64_t o = 0; o < 5; ++o) {
    double exact = 0.0;
    for (int64_t k = 0; k < 172; ++k) exact += static_cast<double>(x[k]) * wf[o * 172 + k];
    EXPECT_NEAR(y[o], exact, 1e-5);
  }
}

TEST(MatMulTest, TileIsAMultipleOfBlockAndLanes) {
  for (const quant::TypeInfo& t : quant::AllTypes()) {
    const int64_t tile = TileElements(t);
    EXPECT_EQ(tile % t.block_size, 0) << t.name;
    EXPECT_EQ(tile % kDotLanes, 0) << t.name;
    EXPECT_GE(tile, 256) << t.name;
  }
}

}  // namespace
}  // namespace trit::kernels
