// trit_verify: every row's logits, bit-identical to running the same ids in
// shorter passes; the buffer it needs; and trit_embed's plain refusal.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "api/api_test_util.h"

namespace trit::testing {
namespace {

const std::vector<int32_t> kIds = {1, 403, 407, 261, 378, 262, 353};

std::vector<float> Verify(const trit_model* m, const std::vector<int32_t>& ids) {
  std::vector<float> out(ids.size() * static_cast<size_t>(trit_model_n_vocab(m)));
  EXPECT_EQ(trit_verify(m, ids.data(), ids.size(), out.data(), out.size()), TRIT_STATUS_OK) << trit_last_error();
  return out;
}

int32_t Argmax(const float* row, size_t n) {
  size_t best = 0;
  for (size_t i = 1; i < n; ++i) if (row[i] > row[best]) best = i;
  return static_cast<int32_t>(best);
}

TEST(ApiVerifyTest, EveryRowMatchesShorterPassesBitForBit) {
  ModelPtr m = LoadBundled(2);
  ASSERT_TRUE(m);
  const size_t n_vocab = static_cast<size_t>(trit_model_n_vocab(m.get()));
  const std::vector<float> all = Verify(m.get(), kIds);
  for (size_t k = 1; k < kIds.size(); ++k) {
    const std::vector<float> prefix = Verify(m.get(), std::vector<int32_t>(kIds.begin(), kIds.begin() + static_cast<std::ptrdiff_t>(k)));
    EXPECT_EQ(std::memcmp(prefix.data(), all.data(), prefix.size() * sizeof(float)), 0) << "rows 0.." << k;
  }
  // Row 0 predicts what greedy generation from BOS produces first.
  trit_generate_options o = Greedy(1);
  Collected c;
  ASSERT_EQ(trit_generate_ids(m.get(), kIds.data(), 1, &o, Collect, &c, nullptr), TRIT_STATUS_OK);
  EXPECT_EQ(c.tokens[0], Argmax(all.data(), n_vocab));
}

TEST(ApiVerifyTest, BufferAndIdsAreChecked) {
  ModelPtr m = LoadBundled();
  ASSERT_TRUE(m);
  std::vector<float> out(kIds.size() * 512 - 1, 7.0f);
  EXPECT_EQ(trit_verify(m.get(), kIds.data(), kIds.size(), out.data(), out.size()), TRIT_STATUS_BUFFER_TOO_SMALL);
  EXPECT_NE(std::string(trit_last_error()).find(std::to_string(kIds.size() * 512)), std::string::npos) << trit_last_error();
  EXPECT_EQ(out[0], 7.0f);  // nothing computed
  const std::vector<int32_t> bad = {1, 600};
  EXPECT_EQ(trit_verify(m.get(), bad.data(), bad.size(), out.data(), out.size()), TRIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(trit_last_error()).find("600"), std::string::npos) << trit_last_error();
  EXPECT_EQ(trit_verify(m.get(), kIds.data(), 0, out.data(), out.size()), TRIT_STATUS_INVALID_ARGUMENT);
}

TEST(ApiVerifyTest, EmbeddingsAreRefusedPlainly) {
  ModelPtr m = LoadBundled();
  ASSERT_TRUE(m);
  float out[64] = {0};
  size_t n = 99;
  EXPECT_EQ(trit_embed(m.get(), "hi", 2, out, 64, &n), TRIT_STATUS_UNSUPPORTED);
  EXPECT_EQ(n, 0u);
  EXPECT_NE(std::string(trit_last_error()).find("not implemented"), std::string::npos) << trit_last_error();
  for (float v : out) EXPECT_EQ(v, 0.0f);  // no vector, real or fake
}

}  // namespace
}  // namespace trit::testing
