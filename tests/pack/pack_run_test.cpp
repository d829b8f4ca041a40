// `pack run`'s work (pack/pack_run.h): passes as wide as the plan says with
// positions carried, every row's logits the same as one pass over all ids,
// and the oracle comparing each pass with single steps that continue the
// same cache (which a reset cache would not match).
#include "pack/pack_run.h"

#include <gtest/gtest.h>

#include <cstring>

#include "runtime/session.h"
#include "runtime/verify_run.h"
#include "test_paths.h"

namespace trit::pack {
namespace {

const std::vector<int32_t> kIds = {1, 403, 407, 261, 378, 425, 1209 % 512};

std::unique_ptr<model::Model> Bundled() {
  Expected<std::unique_ptr<model::Model>> m = model::LoadModel(testing::BundledModelPath());
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(m).value() : nullptr;
}

TEST(PackRunTest, TheWidthComesFromThePlanOrIsOneRow) {
  PackPlan plan;
  plan.prefill_m = 4;
  EXPECT_EQ(WidthFromPlan(plan).m, 4);
  EXPECT_EQ(WidthFromPlan(plan).source, "plan.json prefill_m");
  plan.prefill_m.reset();
  plan.decode_m = 2;  // a decode width is not a prefill width: never guessed from it
  EXPECT_EQ(WidthFromPlan(plan).m, 1);
  EXPECT_EQ(WidthFromPlan(plan).source, "plan.json states no prefill_m: one row per pass");
}

TEST(PackRunTest, SevenIdsAtWidthFourRunPassesOfFourAndThreeAndAllRowsMatch) {
  std::unique_ptr<model::Model> m = Bundled();
  ASSERT_NE(m, nullptr);
  Expected<PackRunResult> r = RunPackPasses(*m, kIds, {.width = 4, .check = true});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->passes.size(), 2u);
  EXPECT_EQ(r->passes[0].first_position, 0);
  EXPECT_EQ(r->passes[0].rows, 4);
  EXPECT_EQ(r->passes[1].first_position, 4);
  EXPECT_EQ(r->passes[1].rows, 3);
  EXPECT_EQ(r->identical, 7);
  EXPECT_EQ(r->differing, 0);
  EXPECT_EQ(r->argmax.size(), 7u);
  // The same logits as `trit verify` computes in one pass of all rows.
  Expected<runtime::VerifyResult> v = runtime::RunVerify(*m, kIds, {});
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(r->logits_sha256, v->logits_sha256);
  EXPECT_EQ(r->argmax, v->argmax);
}

TEST(PackRunTest, OneRowPerPassAndAnyThreadCountGiveTheSameBits) {
  std::unique_ptr<model::Model> m = Bundled();
  ASSERT_NE(m, nullptr);
  Expected<PackRunResult> wide = RunPackPasses(*m, kIds, {.width = 4});
  Expected<PackRunResult> one = RunPackPasses(*m, kIds, {.width = 1, .check = true, .n_threads = 2});
  ASSERT_TRUE(wide.ok() && one.ok());
  EXPECT_EQ(one->passes.size(), 7u);
  EXPECT_EQ(one->identical, 7);
  EXPECT_EQ(one->logits_sha256, wide->logits_sha256);
  EXPECT_EQ(wide->identical + wide->differing, 0);  // no check asked
}

TEST(PackRunTest, TheOracleContinuesTheCacheWhereAResetCacheWouldDisagree) {
  // The second pass (positions 4-6) saw ids 0-3 before it. Its rows match
  // single steps continuing that cache (above); rows of the same ids on a
  // fresh cache, which a resetting oracle compares with, do not.
  std::unique_ptr<model::Model> m = Bundled();
  ASSERT_NE(m, nullptr);
  Expected<PackRunResult> r = RunPackPasses(*m, kIds, {.width = 4, .check = true});
  ASSERT_TRUE(r.ok());
  Expected<std::unique_ptr<runtime::Session>> fresh = runtime::Session::Create(*m, {.n_ctx = 8});
  ASSERT_TRUE(fresh.ok());
  const std::vector<int32_t> tail(kIds.begin() + 4, kIds.end());
  Expected<runtime::Logits> reset = (*fresh)->Verify(tail);
  ASSERT_TRUE(reset.ok());
  const size_t n_vocab = static_cast<size_t>(r->n_vocab);
  EXPECT_NE(std::memcmp(reset->values.data(), r->logits.data() + 4 * n_vocab, 3 * n_vocab * sizeof(float)), 0);
}

TEST(PackRunTest, RefusesIdsOutsideTheVocabulary) {
  std::unique_ptr<model::Model> m = Bundled();
  ASSERT_NE(m, nullptr);
  Expected<PackRunResult> r = RunPackPasses(*m, {1, 512}, {.width = 4});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "--ids: id 512 (item 2) is out of range, expected 0..511");
}

}  // namespace
}  // namespace trit::pack
