// The optimized matmul (SIMD, every compiled target this CPU runs) against
// the scalar reference MatMul, on fresh random inputs each run; and its
// bit-identity properties: every target the same bits, a row alone the same
// bits as inside a batch, 1, 2 or 3 threads the same bits.
#include "kernels/matmul_optimized.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <utility>

#include "kernels/activation_quant.h"
#include "kernels/cpu_targets.h"
#include "kernels/matmul.h"
#include "kernels/repack.h"
#include "kernels/test_inputs.h"

namespace trit::kernels {
namespace {

using quant::GgmlType;

class OptimizedMatMulTest : public ::testing::TestWithParam<GgmlType> {};

// Every target against the reference: float types bit for bit; quantized
// types within the bound of the activation rounding (each activation moves
// by at most half its block's step d_a, so |y - y_ref| <= sum_k |w_k| d_a / 2,
// plus float rounding). Every target returns the same bits as the first.
TEST_P(OptimizedMatMulTest, EveryTargetMatchesTheReference) {
  const quant::TypeInfo& t = quant::GetType(GetParam());
  ASSERT_TRUE(HasOptimizedMatMul(t.type));
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << t.name << " seed " << seed);
  std::mt19937_64 rng(seed);
  // Odd sizes: 5 blocks of 256 (37 of 32 for the 32-element types: more than
  // one 64-block chunk), 37 output rows, 7 activation rows (not a multiple
  // of the 4-row tile).
  const int64_t n_cols = t.block_size >= 256 ? 5 * 256 : (t.block_size == 32 ? 37 * 32 + 64 * 32 : 1187);
  const int64_t n_rows = 37, m = 7;
  Weights w = RandomWeights(t, n_cols, n_rows, rng);
  const std::vector<float> x = RandomActivations(m * n_cols, rng);
  ThreadPool pool(2);
  std::vector<float> ref(static_cast<size_t>(m * n_rows));
  MatMul(w.m, x.data(), m, ref.data(), pool);

  const int64_t block = ActivationBlock(t.type);
  QuantizedRows a;
  if (block > 0) QuantizeRows(x.data(), m, n_cols, block, a);
  std::vector<float> row(static_cast<size_t>(n_cols));
  std::vector<double> bound(ref.size());
  for (int64_t o = 0; o < n_rows; ++o) {
    DequantizeRow(w.m, o, row.data());
    for (int64_t r = 0; r < m; ++r) {
      double rounding = 0.0, magnitude = 0.0;
      for (int64_t k = 0; k < n_cols; ++k) {
        const double wk = std::abs(static_cast<double>(row[k]));
        magnitude += wk * std::abs(static_cast<double>(x[r * n_cols + k]));
        if (block > 0) rounding += wk * a.scale[static_cast<size_t>(r * (n_cols / block) + k / block)] / 2.0;
      }
      bound[static_cast<size_t>(r * n_rows + o)] = rounding * 1.001 + 1e-5 * magnitude + 1e-6;
    }
  }

  const std::vector<int64_t> targets = RunnableTargets();
  ASSERT_FALSE(targets.empty());
  std::vector<float> first;
  for (int64_t target : targets) {
    SCOPED_TRACE(TargetName(target));
    TargetPin pin(target);
    std::vector<float> y(ref.size());
    MatMulOptimized(w.m, x.data(), m, y.data(), pool);
    if (block == 0) {
      EXPECT_TRUE(SameBits(y, ref)) << "float weights must give the reference's bits";
    } else {
      double worst = 0.0;
      for (size_t i = 0; i < y.size(); ++i) {
        EXPECT_LE(std::abs(static_cast<double>(y[i]) - ref[i]), bound[i]) << "element " << i;
        worst = std::max(worst, std::abs(static_cast<double>(y[i]) - ref[i]) / bound[i]);
      }
      RecordProperty(std::string(t.name) + "_" + TargetName(target) + "_worst_error_over_bound",
                     std::to_string(worst));
    }
    if (first.empty()) {
      first = y;
    } else {
      EXPECT_TRUE(SameBits(y, first)) << "differs from " << TargetName(targets.front());
    }
  }
}

void RowsIndependentOfBatchAndThreadsOn(GgmlType type) {
  const quant::TypeInfo& t = quant::GetType(type);
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << t.name << " seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t n_cols = t.block_size >= 256 ? 11 * 256 : (t.block_size == 32 ? 23 * 32 : 333);
  const int64_t n_rows = 41, m = 11;
  Weights w = RandomWeights(t, n_cols, n_rows, rng);
  const std::vector<float> x = RandomActivations(m * n_cols, rng);
  ThreadPool one(1), two(2), three(3);
  std::vector<float> batch(static_cast<size_t>(m * n_rows));
  MatMulOptimized(w.m, x.data(), m, batch.data(), one);
  for (ThreadPool* pool : {&two, &three}) {
    std::vector<float> threaded(batch.size());
    MatMulOptimized(w.m, x.data(), m, threaded.data(), *pool);
    EXPECT_TRUE(SameBits(batch, threaded)) << pool->n_threads() << " threads";
  }
  for (int64_t r = 0; r < m; ++r) {
    std::vector<float> alone(static_cast<size_t>(n_rows));
    MatMulOptimized(w.m, x.data() + r * n_cols, 1, alone.data(), three);
    EXPECT_EQ(std::memcmp(alone.data(), batch.data() + r * n_rows, alone.size() * sizeof(float)), 0) << "row " << r;
  }
  // A batch that starts at another row: the tiles of 4 fall elsewhere.
  std::vector<float> shifted(static_cast<size_t>((m - 3) * n_rows));
  MatMulOptimized(w.m, x.data() + 3 * n_cols, m - 3, shifted.data(), two);
  EXPECT_EQ(std::memcmp(shifted.data(), batch.data() + 3 * n_rows, shifted.size() * sizeof(float)), 0);
}

// Contract 2 on every target the CPU runs: a row alone (M=1) gives the
// bits it gives inside batches of any size, with 1, 2 or 3 threads, for odd
// sizes and a row length that is not a multiple of any tile.
TEST_P(OptimizedMatMulTest, RowsIndependentOfBatchAndThreads) {
  for (int64_t target : RunnableTargets()) {
    SCOPED_TRACE(TargetName(target));
    TargetPin pin(target);
    RowsIndependentOfBatchAndThreadsOn(GetParam());
  }
}
INSTANTIATE_TEST_SUITE_P(Types, OptimizedMatMulTest,
                         ::testing::Values(GgmlType::kTQ2_0, GgmlType::kTQ1_0, GgmlType::kQ4_0, GgmlType::kQ8_0,
                                           GgmlType::kQ4_1, GgmlType::kQ5_0, GgmlType::kQ5_1, GgmlType::kQ2_K,
                                           GgmlType::kQ3_K, GgmlType::kQ4_K, GgmlType::kQ5_K, GgmlType::kQ6_K,
                                           GgmlType::kIQ4_NL, GgmlType::kIQ4_XS, GgmlType::kMXFP4, GgmlType::kF32, GgmlType::kF16,
                                           GgmlType::kBF16),
                         [](const ::testing::TestParamInfo<GgmlType>& info) {
                           return std::string(quant::GetType(info.param).name);
                         });

TEST(OptimizedMatMul, TypesWithoutAKernelRunTheReference) {
  // Q8_K (a K-quant dot-product operand, with a dequantizer but no matmul
  // kernel): random blocks, each with a sane scale d (its first four bytes,
  // f32 0.01).
  const quant::TypeInfo& t = quant::GetType(GgmlType::kQ8_K);
  ASSERT_FALSE(HasOptimizedMatMul(t.type));
  std::mt19937_64 rng(FreshSeed());
  const uint64_t row_bytes = 2 * t.type_size;  // 512 columns
  std::vector<uint8_t> bytes(9 * row_bytes);
  for (uint8_t& b : bytes) b = static_cast<uint8_t>(rng());
  const float d = 0.01f;
  for (size_t i = 0; i < bytes.size(); i += t.type_size) std::memcpy(&bytes[i], &d, sizeof d);
  const Matrix w{&t, bytes.data(), 512, 9, row_bytes};
  const std::vector<float> x = RandomActivations(3 * 512, rng);
  ThreadPool pool(2);
  std::vector<float> ref(27), y(27);
  MatMul(w, x.data(), 3, ref.data(), pool);
  MatMulOptimized(w, x.data(), 3, y.data(), pool);
  EXPECT_TRUE(SameBits(y, ref));
}

TEST(ActivationQuant, RowsAreQuantizedAlone) {
  std::mt19937_64 rng(FreshSeed());
  const std::vector<float> x = RandomActivations(5 * 96, rng);
  QuantizedRows all, one;
  QuantizeRows(x.data(), 5, 96, 32, all);
  for (int64_t r = 0; r < 5; ++r) {
    QuantizeRows(x.data() + r * 96, 1, 96, 32, one);
    EXPECT_TRUE(std::equal(one.q.begin(), one.q.end(), all.q.begin() + r * 96));
    EXPECT_TRUE(std::equal(one.scale.begin(), one.scale.end(), all.scale.begin() + r * 3));
    EXPECT_TRUE(std::equal(one.sum.begin(), one.sum.end(), all.sum.begin() + r * 3));
  }
  // Every block's extreme value maps to +-127 and q * d stays within d / 2.
  for (int64_t b = 0; b < 15; ++b) {
    int max_q = 0;
    for (int64_t i = 0; i < 32; ++i) {
      const float xi = x[static_cast<size_t>(b * 32 + i)];
      const int q = all.q[static_cast<size_t>(b * 32 + i)];
      max_q = std::max(max_q, std::abs(q));
      EXPECT_LE(std::abs(xi - static_cast<float>(q) * all.scale[b]), all.scale[b] * 0.5001f);
    }
    EXPECT_EQ(max_q, 127);
  }
}

// Several matrices of one input in one pass give the bits of separate calls:
// types sharing an activation block (q4_0 and q5_0 in row groups, q4_0 in
// rows, q8_0) run together; a q4_K and an f16 among them make the call fall
// back to one matrix at a time.
TEST(OptimizedMatMul, ManyMatricesGiveTheBitsOfSeparateCalls) {
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  constexpr int64_t kCols = 8 * 256;
  Weights q = RandomWeights(quant::GetType(GgmlType::kQ4_0), kCols, 37, rng);
  std::vector<uint8_t> q_packed(q.bytes.size());
  const Matrix q_groups = RepackRowGroups(q.m, q_packed.data());
  Weights q5 = RandomWeights(quant::GetType(GgmlType::kQ5_0), kCols, 19, rng);
  std::vector<uint8_t> q5_packed(q5.bytes.size());
  const Matrix q5_groups = RepackRowGroups(q5.m, q5_packed.data());
  const Weights k = RandomWeights(quant::GetType(GgmlType::kQ4_0), kCols, 13, rng);
  const Weights v = RandomWeights(quant::GetType(GgmlType::kQ8_0), kCols, 21, rng);
  const Weights kq = RandomWeights(quant::GetType(GgmlType::kQ4_K), kCols, 9, rng);
  const Weights f = RandomWeights(quant::GetType(GgmlType::kF16), kCols, 5, rng);
  ThreadPool pool(2);
  for (int64_t m : {1, 7, 9}) {
    const std::vector<float> x = RandomActivations(m * kCols, rng);
    for (const std::vector<const Matrix*>& set :
         {std::vector<const Matrix*>{&q_groups, &k.m, &q5_groups, &v.m}, std::vector<const Matrix*>{&q_groups, &kq.m, &f.m, &v.m}}) {
      std::vector<std::vector<float>> together(set.size()), alone(set.size());
      std::vector<MatMulJob> jobs;
      for (size_t i = 0; i < set.size(); ++i) {
        together[i].assign(static_cast<size_t>(m * set[i]->n_rows), 0.0f);
        alone[i].assign(together[i].size(), 0.0f);
        jobs.push_back({set[i], together[i].data()});
        MatMulOptimized(*set[i], x.data(), m, alone[i].data(), pool);
      }
      MatMulOptimizedMany(jobs, x.data(), m, pool);
      for (size_t i = 0; i < set.size(); ++i) EXPECT_TRUE(SameBits(together[i], alone[i])) << "m " << m << " matrix " << i;
    }
  }
}

// Batches large enough for the decoded panels (matmul_panel.h): row-group
// matrices of the panel types beside one without a panel kernel (tq2_0) and
// one in row layout, together in one pass and alone, on every target, give
// the bits of the same rows computed one at a time. Row counts leave single
// groups and rows past the last group; 29 rows end on a partial tile.
void ExpectPanelBatchesMatchSingleRows(const std::vector<std::pair<GgmlType, int64_t>>& types, int64_t cols) {
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  std::vector<Weights> weights;
  std::vector<std::vector<uint8_t>> packed(types.size());
  std::vector<Matrix> matrices;
  for (auto [type, rows] : types) weights.push_back(RandomWeights(quant::GetType(type), cols, rows, rng));
  for (size_t i = 0; i < weights.size(); ++i) {
    packed[i].resize(weights[i].bytes.size());
    matrices.push_back(RepackRowGroups(weights[i].m, packed[i].data()));
  }
  matrices.push_back(weights[0].m);  // the first type in row layout
  ThreadPool one(1), two(2), three(3);
  for (int64_t m : {16, 29}) {
    const std::vector<float> x = RandomActivations(m * cols, rng);
    for (int64_t target : RunnableTargets()) {
      TargetPin pin(target);
      for (ThreadPool* pool : {&one, &two, &three}) {
        std::vector<std::vector<float>> together(matrices.size());
        std::vector<MatMulJob> jobs;
        for (size_t i = 0; i < matrices.size(); ++i) {
          together[i].assign(static_cast<size_t>(m * matrices[i].n_rows), 0.0f);
          jobs.push_back({&matrices[i], together[i].data()});
        }
        MatMulOptimizedMany(jobs, x.data(), m, *pool);
        for (size_t i = 0; i < matrices.size(); ++i) {
          const int64_t n = matrices[i].n_rows;
          std::vector<float> alone(static_cast<size_t>(m * n));
          MatMulOptimized(matrices[i], x.data(), m, alone.data(), *pool);
          EXPECT_TRUE(SameBits(alone, together[i])) << TargetName(target) << " m " << m << " matrix " << i;
          for (int64_t r = 0; r < m; r += 7) {  // rows alone: decode's path
            std::vector<float> row(static_cast<size_t>(n));
            MatMulOptimized(weights[i < weights.size() ? i : 0].m, x.data() + r * cols, 1, row.data(), one);
            EXPECT_TRUE(std::equal(row.begin(), row.end(), together[i].begin() + r * n, [](float a, float b) {
              return std::memcmp(&a, &b, 4) == 0;
            })) << TargetName(target) << " m " << m << " matrix " << i << " row " << r;
          }
        }
      }
    }
  }
}

TEST(OptimizedMatMul, PanelBatchesOf256BlocksGiveTheBitsOfSingleRows) {
  ExpectPanelBatchesMatchSingleRows({{GgmlType::kQ6_K, 40}, {GgmlType::kQ4_K, 24}, {GgmlType::kQ5_K, 17},
                                     {GgmlType::kIQ4_XS, 8}, {GgmlType::kTQ2_0, 16}},
                                    3 * 256);
}

TEST(OptimizedMatMul, PanelBatchesOf32BlocksGiveTheBitsOfSingleRows) {
  // 13 blocks a row: the last group of 8 blocks is partial.
  ExpectPanelBatchesMatchSingleRows({{GgmlType::kQ8_0, 40}, {GgmlType::kQ5_0, 24}, {GgmlType::kQ4_0, 17},
                                     {GgmlType::kQ4_1, 8}, {GgmlType::kQ5_1, 16}, {GgmlType::kIQ4_NL, 9},
                                     {GgmlType::kMXFP4, 24}},
                                    13 * 32);
}

// MXFP4's E8M0 scales over their whole range, subnormal ones (e = 0, 1)
// included: every target, both layouts, decode and batches give exactly
// matmul_simd.h's definition, written out here from the activation blocks:
// per block isum = sum v[q] a_q (exact), acc[b % 8] += (2^(e - 128) * d_a) *
// isum in increasing b, then dot.h's tree. (Quantized N(0, 1) weights keep e
// near 126; these blocks are random bytes with chosen exponents. e stays at
// or below 230, where no product overflows.)
TEST(OptimizedMatMul, MXFP4FollowsTheDefinitionOverEveryExponentRange) {
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << "seed " << seed);
  std::mt19937_64 rng(seed);
  const quant::TypeInfo& t = quant::GetType(GgmlType::kMXFP4);
  constexpr int64_t kCols = 21 * 32, kRows = 19;
  constexpr uint8_t kExponents[] = {0, 1, 2, 3, 100, 118, 120, 125, 126, 127, 128, 129, 135, 150, 180, 230};
  std::vector<uint8_t> bytes(static_cast<size_t>(kCols / 32 * 17 * kRows));
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = i % 17 == 0 ? kExponents[rng() % std::size(kExponents)] : static_cast<uint8_t>(rng());
  }
  const Matrix w{&t, bytes.data(), kCols, kRows, static_cast<uint64_t>(kCols / 32 * 17)};
  std::vector<uint8_t> packed(bytes.size());
  const Matrix groups = RepackRowGroups(w, packed.data());
  constexpr int kValues[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};
  ThreadPool pool(2);
  for (int64_t m : {1, 5, 17}) {
    const std::vector<float> x = RandomActivations(m * kCols, rng);
    QuantizedRows a;
    QuantizeRows(x.data(), m, kCols, 32, a);
    std::vector<float> want(static_cast<size_t>(m * kRows));
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t o = 0; o < kRows; ++o) {
        float acc[8] = {};
        for (int64_t b = 0; b < kCols / 32; ++b) {
          const uint8_t* block = bytes.data() + o * w.row_bytes + b * 17;
          int32_t isum = 0;
          for (int j = 0; j < 16; ++j) {
            isum += kValues[block[1 + j] & 15] * a.q[static_cast<size_t>(r * kCols + b * 32 + j)];
            isum += kValues[block[1 + j] >> 4] * a.q[static_cast<size_t>(r * kCols + b * 32 + 16 + j)];
          }
          // Separate roundings (the tests' baseline x86-64 has no FMA to fuse them into).
          const float scale = std::ldexp(1.0f, block[0] - 128) * a.scale[static_cast<size_t>(r * (kCols / 32) + b)];
          const float term = scale * static_cast<float>(isum);
          acc[b % 8] = acc[b % 8] + term;
        }
        want[static_cast<size_t>(r * kRows + o)] = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
      }
    }
    for (int64_t target : RunnableTargets()) {
      TargetPin pin(target);
      for (const Matrix* matrix : {&w, &groups}) {
        std::vector<float> y(want.size());
        MatMulOptimized(*matrix, x.data(), m, y.data(), pool);
        EXPECT_TRUE(SameBits(y, want)) << TargetName(target) << " m " << m
                                       << (matrix == &w ? " rows" : " row groups");
      }
    }
  }
}

TEST(ActivationQuant, EveryTargetMatchesTheScalarDefinition) {
  std::mt19937_64 rng(FreshSeed());
  for (int64_t block : {32, 256}) {
    std::vector<float> x = RandomActivations(3 * 512, rng);
    // Row 1, block 0: amax 127 (so x * 127 / amax = x) and exact halves, the
    // ties that must round to even.
    for (int64_t i = 0; i < 32; ++i) x[static_cast<size_t>(512 + i)] = static_cast<float>(i) - 15.5f;
    x[512 + 31] = -127.0f;
    QuantizedRows want;
    QuantizeRowsScalar(x.data(), 3, 512, block, want);
    for (int64_t target : RunnableTargets()) {
      TargetPin pin(target);
      QuantizedRows got;
      QuantizeRows(x.data(), 3, 512, block, got);
      EXPECT_EQ(got.q, want.q) << TargetName(target) << " block " << block;
      EXPECT_EQ(got.sum, want.sum) << TargetName(target) << " block " << block;
      EXPECT_EQ(got.sum32, want.sum32) << TargetName(target) << " block " << block;
      EXPECT_EQ(got.sum16, want.sum16) << TargetName(target) << " block " << block;
      EXPECT_TRUE(std::equal(got.scale.begin(), got.scale.end(), want.scale.begin(), want.scale.end(),
                             [](float a, float b) { return std::memcmp(&a, &b, 4) == 0; }))
          << TargetName(target) << " block " << block;
    }
  }
}

TEST(CpuTargets, TheCpuRunsACompiledTarget) {
  EXPECT_TRUE(CheckCpuSupport().ok());
  const std::vector<int64_t> targets = RunnableTargets();
  ASSERT_FALSE(targets.empty());
  EXPECT_EQ(ActiveTargetName(), TargetName(targets.front()));
  RecordProperty("targets", [&] {
    std::string s;
    for (int64_t t : targets) s += TargetName(t) + " ";
    return s;
  }());
}

}  // namespace
}  // namespace trit::kernels
