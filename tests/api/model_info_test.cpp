// Metadata through the C API, against the bundled model's known values.
#include <gtest/gtest.h>

#include <string>

#include "api/api_test_util.h"

namespace trit::testing {
namespace {

TEST(ApiModelInfoTest, HyperParameters) {
  ModelPtr m = LoadBundled();
  ASSERT_TRUE(m);
  EXPECT_STREQ(trit_model_architecture(m.get()), "llama");
  EXPECT_EQ(trit_model_n_vocab(m.get()), 512);
  EXPECT_EQ(trit_model_n_embd(m.get()), 64);
  EXPECT_EQ(trit_model_n_layer(m.get()), 5);
  EXPECT_EQ(trit_model_n_ctx_train(m.get()), 2048);
  EXPECT_EQ(trit_model_n_ctx(m.get()), 2048);  // 0 in the options: the trained length
  EXPECT_EQ(trit_model_token_bos(m.get()), 1);
  EXPECT_EQ(trit_model_token_eos(m.get()), 2);
  EXPECT_EQ(trit_model_token_is_end_of_generation(m.get(), 2), 1);
  EXPECT_EQ(trit_model_token_is_end_of_generation(m.get(), 403), 0);
  EXPECT_EQ(trit_model_token_is_end_of_generation(m.get(), 100000), 0);
  EXPECT_EQ(trit_model_has_chat_template(m.get()), 0);
  EXPECT_EQ(trit_model_n_vocab(nullptr), 0);
  EXPECT_STREQ(trit_model_architecture(nullptr), "");
}

TEST(ApiModelInfoTest, ContextFromTheOptions) {
  ModelPtr m = LoadBundled(1, 64);
  ASSERT_TRUE(m);
  EXPECT_EQ(trit_model_n_ctx(m.get()), 64);
}

TEST(ApiModelInfoTest, MetadataKeysAndScalarValues) {
  ModelPtr m = LoadBundled();
  ASSERT_TRUE(m);
  const size_t n = trit_model_meta_count(m.get());
  ASSERT_GT(n, 5u);
  bool has_architecture = false;
  for (size_t i = 0; i < n; ++i) has_architecture |= std::string(trit_model_meta_key(m.get(), i)) == "general.architecture";
  EXPECT_TRUE(has_architecture);
  EXPECT_EQ(trit_model_meta_key(m.get(), n), nullptr);

  char buf[64];
  size_t len = 0;
  ASSERT_EQ(trit_model_meta_string(m.get(), "general.architecture", buf, sizeof(buf), &len), TRIT_STATUS_OK);
  EXPECT_STREQ(buf, "llama");
  EXPECT_EQ(len, 5u);
  ASSERT_EQ(trit_model_meta_string(m.get(), "llama.context_length", buf, sizeof(buf), &len), TRIT_STATUS_OK)
      << trit_last_error();
  EXPECT_STREQ(buf, "2048");
  // Too small: the size needed is reported, nothing written.
  EXPECT_EQ(trit_model_meta_string(m.get(), "general.architecture", buf, 5, &len), TRIT_STATUS_BUFFER_TOO_SMALL);
  EXPECT_EQ(len, 5u);

  EXPECT_EQ(trit_model_meta_string(m.get(), "no.such.key", buf, sizeof(buf), &len), TRIT_STATUS_NOT_FOUND);
  EXPECT_NE(std::string(trit_last_error()).find("'no.such.key'"), std::string::npos) << trit_last_error();
  EXPECT_EQ(trit_model_meta_string(m.get(), "tokenizer.ggml.tokens", buf, sizeof(buf), &len), TRIT_STATUS_UNSUPPORTED);
  EXPECT_NE(std::string(trit_last_error()).find("array of 512 string"), std::string::npos) << trit_last_error();
}

}  // namespace
}  // namespace trit::testing
