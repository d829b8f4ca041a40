// The row-group layout (kernels/repack.h): the repacked bytes restore the
// rows exactly, and the optimized matmul gives the same bits from either
// layout on every target, for any batch size and thread count.
#include "kernels/repack.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernels/matmul_optimized.h"
#include "kernels/matmul_simd.h"
#include "kernels/test_inputs.h"

namespace trit::kernels {
namespace {

using quant::GgmlType;

class RepackTest : public ::testing::TestWithParam<GgmlType> {};

// 37 rows: four groups and five rows left in row layout; 101 blocks of 32
// or 13 blocks of 256 a row (block counts that are not multiples of 8;
// f16 and bf16: 3232 values, 404 blocks of 8).
constexpr int64_t kRows = 37;
int64_t ColsOf(const quant::TypeInfo& t) { return t.block_size == 256 ? 13 * 256 : 101 * 32; }

// A random matrix of the test's type and its row-group copy.
struct Packed {
  Weights w;
  std::vector<uint8_t> bytes;
  Matrix r;
  Packed(const quant::TypeInfo& t, std::mt19937_64& rng) : w(RandomWeights(t, ColsOf(t), kRows, rng)) {
    bytes.resize(w.bytes.size());
    r = RepackRowGroups(w.m, bytes.data());
  }
};

TEST_P(RepackTest, GroupsRestoreTheRowsAndTheLastRowsStay) {
  const quant::TypeInfo& t = quant::GetType(GetParam());
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << t.name << " seed " << seed);
  std::mt19937_64 rng(seed);
  const Packed p(t, rng);
  const Weights& w = p.w;
  const std::vector<uint8_t>& packed = p.bytes;
  const Matrix& r = p.r;
  EXPECT_EQ(r.layout, WeightLayout::kRowGroups8);
  EXPECT_NE(packed, w.bytes);  // the groups moved
  std::vector<uint8_t> rows(8 * w.m.row_bytes);
  for (int64_t g = 0; g < kRows / kRowGroup; ++g) {
    UnpackRowGroup(r, g, rows.data());
    EXPECT_TRUE(std::equal(rows.begin(), rows.end(), w.bytes.begin() + g * 8 * w.m.row_bytes)) << "group " << g;
  }
  const size_t tail = 32 * w.m.row_bytes;
  EXPECT_TRUE(std::equal(packed.begin() + tail, packed.end(), w.bytes.begin() + tail));
}

// A tied embedding in row groups: every row looked up (the groups' rows and
// the last ones) is the original row's bytes and floats, bit for bit.
TEST_P(RepackTest, RowsLookedUpFromGroupsAreTheOriginalRows) {
  const quant::TypeInfo& t = quant::GetType(GetParam());
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << t.name << " seed " << seed);
  std::mt19937_64 rng(seed);
  const Packed p(t, rng);
  std::vector<uint8_t> row(p.w.m.row_bytes);
  std::vector<float> want(static_cast<size_t>(p.w.m.n_cols)), got(want.size());
  for (int64_t o = 0; o < kRows; ++o) {
    CopyRow(p.r, o, row.data());
    EXPECT_TRUE(std::equal(row.begin(), row.end(), p.w.bytes.begin() + o * p.w.m.row_bytes)) << "row " << o;
    DequantizeRow(p.w.m, o, want.data());
    DequantizeRow(p.r, o, got.data());
    EXPECT_TRUE(SameBits(got, want)) << "row " << o;
  }
}

TEST_P(RepackTest, SameBitsAsRowLayoutOnEveryTargetBatchAndThreadCount) {
  const quant::TypeInfo& t = quant::GetType(GetParam());
  const uint64_t seed = FreshSeed();
  SCOPED_TRACE(testing::Message() << t.name << " seed " << seed);
  std::mt19937_64 rng(seed);
  const int64_t kCols = ColsOf(t);
  const Packed p(t, rng);
  const Weights& w = p.w;
  const Matrix& r = p.r;
  ThreadPool one(1), two(2), three(3);
  // 16 and more: decoded panels (matmul_panel.h) where the target has them;
  // 21 ends on a partial tile.
  for (int64_t m : {1, 4, 7, 8, 11, 16, 21}) {
    const std::vector<float> x = RandomActivations(m * kCols, rng);
    std::vector<float> want(static_cast<size_t>(m * kRows));
    MatMulOptimized(w.m, x.data(), m, want.data(), one);
    for (int64_t target : RunnableTargets()) {
      TargetPin pin(target);
      for (ThreadPool* pool : {&one, &two, &three}) {
        std::vector<float> got(want.size());
        MatMulOptimized(r, x.data(), m, got.data(), *pool);
        EXPECT_TRUE(SameBits(got, want)) << TargetName(target) << " m " << m << " threads " << pool->n_threads();
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Types, RepackTest,
                         ::testing::Values(GgmlType::kQ4_0, GgmlType::kQ4_1, GgmlType::kQ5_0, GgmlType::kQ5_1,
                                           GgmlType::kQ8_0, GgmlType::kQ4_K, GgmlType::kQ5_K, GgmlType::kQ6_K, GgmlType::kIQ4_NL,
                                           GgmlType::kIQ4_XS, GgmlType::kMXFP4, GgmlType::kTQ2_0, GgmlType::kTQ1_0, GgmlType::kF16,
                                           GgmlType::kBF16),
                         [](const auto& info) { return std::string(quant::GetType(info.param).name); });

TEST(Repack, OnlyRowLayoutTypesWithGroupsOfAtLeastOneGroup) {
  std::mt19937_64 rng(FreshSeed());
  EXPECT_FALSE(HasRowGroupLayout(GgmlType::kQ2_K));
  EXPECT_FALSE(HasRowGroupLayout(GgmlType::kF32));
  EXPECT_TRUE(HasRowGroupLayout(GgmlType::kF16));
  EXPECT_FALSE(HasRowGroupLayout(GgmlType::kQ3_K));
  EXPECT_TRUE(HasRowGroupLayout(GgmlType::kQ6_K));
  // Float rows: whole blocks of 8 values, and only where a target reads
  // their groups faster than rows (AVX-512).
  EXPECT_FALSE(ShouldRepack(RandomWeights(quant::GetType(GgmlType::kF16), 100, 16, rng).m));
  EXPECT_EQ(ShouldRepack(RandomWeights(quant::GetType(GgmlType::kBF16), 64, 16, rng).m),
            simd::HasFloatRowGroupKernels());
  EXPECT_FALSE(ShouldRepack(RandomWeights(quant::GetType(GgmlType::kQ5_0), 64, 7, rng).m));
  EXPECT_FALSE(ShouldRepack(RandomWeights(quant::GetType(GgmlType::kQ3_K), 256, 16, rng).m));
  Weights w = RandomWeights(quant::GetType(GgmlType::kQ4_0), 64, 16, rng);
  std::vector<uint8_t> packed(w.bytes.size());
  EXPECT_FALSE(ShouldRepack(RepackRowGroups(w.m, packed.data())));  // already repacked
}

}  // namespace
}  // namespace trit::kernels
