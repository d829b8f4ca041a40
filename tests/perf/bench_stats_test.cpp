#include "perf/bench_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "perf/bench_run.h"
#include "quant/types.h"
#include "test_paths.h"

namespace trit::perf {
namespace {

gguf::TensorInfo Tensor(const std::string& name, const char* type, std::vector<int64_t> shape) {
  gguf::TensorInfo t;
  t.name = name;
  t.type = quant::FindTypeByName(type);
  EXPECT_NE(t.type, nullptr) << type;
  t.shape = shape;
  t.n_elements = 1;
  for (int64_t d : shape) t.n_elements *= d;
  t.n_bytes = static_cast<uint64_t>(t.n_elements / t.type->block_size) * static_cast<uint64_t>(t.type->type_size);
  return t;
}

TEST(BenchStatsTest, MeanAndSampleStandardDeviation) {
  const std::vector<double> v = {2, 4, 4, 4, 5, 5, 7, 9};
  const MeanSd r = ComputeMeanSd(v);
  EXPECT_DOUBLE_EQ(r.mean, 5.0);
  EXPECT_NEAR(r.sd, std::sqrt(32.0 / 7.0), 1e-12);  // n - 1 in the denominator
  const std::vector<double> one = {3.5};
  EXPECT_DOUBLE_EQ(ComputeMeanSd(one).mean, 3.5);
  EXPECT_DOUBLE_EQ(ComputeMeanSd(one).sd, 0.0);
}

TEST(BenchStatsTest, Median) {
  EXPECT_EQ(Median(std::vector<double>{}), 0.0);
  EXPECT_EQ(Median(std::vector<double>{3.0}), 3.0);
  EXPECT_EQ(Median(std::vector<double>{9.0, 1.0, 4.0}), 4.0);
  EXPECT_EQ(Median(std::vector<double>{9.0, 1.0, 4.0, 2.0}), 3.0);
}

TEST(BenchStatsTest, BandwidthSummaryOfProbesAroundEachRepetition) {
  // 3 repetitions at 10 tok/s of 1e9 bytes: 10 GB/s against probes of 20,
  // 40 and 25 GB/s around them (means), so fractions 0.5, 0.25, 0.4.
  const std::vector<double> tg = {10, 10, 10}, before = {20e9, 30e9, 25e9}, after = {20e9, 50e9, 25e9};
  const BandwidthSummary s = SummarizeBandwidth(tg, before, after, 1'000'000'000);
  EXPECT_EQ(s.probes, (std::vector<double>{20e9, 30e9, 25e9, 20e9, 50e9, 25e9}));
  EXPECT_EQ(s.min, 20e9);
  EXPECT_EQ(s.max, 50e9);
  EXPECT_EQ(s.median, 25e9);
  EXPECT_DOUBLE_EQ(s.roofline_fraction, 0.4);
  // No probes: zeros, no reads past the ends.
  const BandwidthSummary none = SummarizeBandwidth(tg, {}, {}, 1);
  EXPECT_TRUE(none.probes.empty());
  EXPECT_EQ(none.max, 0.0);
  EXPECT_EQ(none.roofline_fraction, 0.0);
}

TEST(BenchStatsTest, BytesPerTokenReadsOneEmbeddingRowWhenTheOutputIsSeparate) {
  // q8_0: 34 bytes per 32 values, so a 64-wide row is 68 bytes.
  const std::vector<gguf::TensorInfo> untied = {
      Tensor("token_embd.weight", "q8_0", {64, 100}), Tensor("blk.0.attn_norm.weight", "f32", {64}),
      Tensor("blk.0.attn_q.weight", "q8_0", {64, 64}), Tensor("output.weight", "q8_0", {64, 100})};
  EXPECT_EQ(WeightBytesPerToken(untied), 68u + 64 * 4 + 64 * 68 + 100 * 68);
}

TEST(BenchStatsTest, BytesPerTokenReadsTheWholeEmbeddingWhenItIsTheOutput) {
  const std::vector<gguf::TensorInfo> tied = {Tensor("token_embd.weight", "q4_0", {64, 100}),
                                              Tensor("blk.0.attn_q.weight", "q4_0", {64, 64}),
                                              Tensor("output_norm.weight", "f32", {64})};
  // q4_0: 18 bytes per 32 values.
  EXPECT_EQ(WeightBytesPerToken(tied), 100u * 36 + 64 * 36 + 64 * 4);
}

TEST(BenchStatsTest, BytesPerTokenReadsOneRowOfThePerLayerEmbedding) {
  // Gemma 4: tied token_embd (all of it, the LM head), per_layer_token_embd (one row of 72 f32).
  const std::vector<gguf::TensorInfo> ple = {Tensor("token_embd.weight", "f32", {64, 100}),
                                             Tensor("per_layer_token_embd.weight", "f32", {72, 100}),
                                             Tensor("output_norm.weight", "f32", {64})};
  EXPECT_EQ(WeightBytesPerToken(ple), 100u * 64 * 4 + 72 * 4 + 64 * 4);
}

TEST(BenchStatsTest, BytesPerTokenReadsTheChosenExpertsOnly) {
  // 8 experts of 32 x 64 q8_0 (32 rows of 68 bytes each), 2 chosen per token; the router is read whole.
  const std::vector<gguf::TensorInfo> moe = {Tensor("blk.0.ffn_gate_inp.weight", "f32", {64, 8}),
                                             Tensor("blk.0.ffn_up_exps.weight", "q8_0", {64, 32, 8}),
                                             Tensor("output_norm.weight", "f32", {64})};
  EXPECT_EQ(WeightBytesPerToken(moe, 2), 64u * 8 * 4 + 2 * 32 * 68 + 64 * 4);
  EXPECT_EQ(WeightBytesPerToken(moe), 64u * 8 * 4 + 8 * 32 * 68 + 64 * 4);  // dense count without the routing
}

TEST(BenchStatsTest, BytesPerTokenOfTheBundledModel) {
  Expected<gguf::File> f = gguf::File::Open(testing::BundledModelPath());
  ASSERT_TRUE(f.ok()) << f.status().message();
  uint64_t all = 0;
  for (const gguf::TensorInfo& t : f->tensors()) all += t.n_bytes;
  // f32, dim 64, vocab 512, separate output matrix: all but 511 embedding rows.
  EXPECT_EQ(WeightBytesPerToken(f->tensors()), all - 511 * 64 * 4);
  EXPECT_EQ(PredominantWeightType(f->tensors()), "f32");
}

TEST(BenchStatsTest, PredominantTypeCountsMatricesOnly) {
  const std::vector<gguf::TensorInfo> t = {Tensor("a", "f32", {4096}), Tensor("b", "q6_K", {256, 2}),
                                           Tensor("c", "tq1_0", {256, 3})};
  EXPECT_EQ(PredominantWeightType(t), "tq1_0");
  EXPECT_EQ(PredominantWeightType(std::vector<gguf::TensorInfo>{Tensor("n", "f32", {8})}), "");
}

TEST(BenchStatsTest, RooflineFraction) {
  // 10 tokens/s x 1 GB per token over 20 GB/s: half the roofline.
  EXPECT_DOUBLE_EQ(RooflineFraction(10.0, 1'000'000'000, 20e9), 0.5);
  EXPECT_EQ(RooflineFraction(0.0, 100, 1e9), 0.0);
  EXPECT_EQ(RooflineFraction(1.0, 0, 1e9), 0.0);
  EXPECT_EQ(RooflineFraction(1.0, 100, 0.0), 0.0);
}

TEST(BenchRunTest, TokenIdsAreFixedAndInRange) {
  const std::vector<int32_t> a = BenchTokenIds(1000, 32000);
  ASSERT_EQ(a.size(), 1000u);
  EXPECT_EQ(a, BenchTokenIds(1000, 32000));
  // A prefix of a longer run (prompt ids do not depend on -n).
  EXPECT_EQ(std::vector<int32_t>(a.begin(), a.begin() + 10), BenchTokenIds(10, 32000));
  for (int32_t id : a) {
    EXPECT_GE(id, 0);
    EXPECT_LT(id, 32000);
  }
  // The LCG bench/vs_llamacpp.py repeats: its first ids, computed there.
  EXPECT_EQ(BenchTokenIds(3, 32000), (std::vector<int32_t>{22300, 21626, 24642}));
}

}  // namespace
}  // namespace trit::perf
