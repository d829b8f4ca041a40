#include "formats/gguf/model_summary.h"

#include <gtest/gtest.h>

#include "test_paths.h"

namespace trit::gguf {
namespace {

TEST(ModelSummaryTest, BundledModel) {
  Expected<gguf::File> f = gguf::File::Open(testing::BundledModelPath());
  ASSERT_TRUE(f.ok()) << f.status().message();
  const ModelSummary s = Summarize(*f);
  EXPECT_EQ(s.architecture, "llama");
  EXPECT_EQ(s.context_length, 2048u);
  EXPECT_EQ(s.block_count, 5u);
  EXPECT_EQ(s.embedding_length, 64u);
  EXPECT_EQ(s.feed_forward_length, 172u);
  EXPECT_EQ(s.head_count, 8u);
  EXPECT_EQ(s.head_count_kv, 4u);
  EXPECT_EQ(s.tokenizer_model, "llama");
  EXPECT_EQ(s.vocab_size, 512u);
  EXPECT_FALSE(s.has_chat_template);
  ASSERT_EQ(s.types.size(), 1u);
  EXPECT_EQ(s.types[0].type, "f32");
  EXPECT_EQ(s.types[0].tensors, 48u);
  EXPECT_EQ(s.types[0].bytes, s.parameters * 4);
  // token_embd + output (64 x 512 each), 5 layers of attention and
  // feed-forward matrices, 11 norm vectors of 64.
  const uint64_t per_layer = 64 * 64 * 2 + 64 * 32 * 2 + 64 * 172 * 3 + 64 * 2;
  EXPECT_EQ(s.parameters, 2u * 64 * 512 + 5 * per_layer + 64);
}

}  // namespace
}  // namespace trit::gguf

namespace trit::gguf {
namespace {

// Gemma 4's per-layer arrays (llama.cpp's converter's tiny test file).
TEST(ModelSummaryTest, PerLayerArrays) {
  Expected<gguf::File> f =
      gguf::File::Open(std::string(TRIT_SOURCE_DIR) + "/tests/data/hf/gemma4/gemma4-tiny-f32.gguf");
  ASSERT_TRUE(f.ok()) << f.status().message();
  const ModelSummary s = Summarize(*f);
  EXPECT_FALSE(s.feed_forward_length.has_value());
  EXPECT_EQ(s.feed_forward_per_layer, (std::vector<uint64_t>{96, 96, 96, 96, 96, 96, 192, 192, 192}));
  EXPECT_FALSE(s.head_count_kv.has_value());
  EXPECT_EQ(s.head_count_kv_per_layer, (std::vector<uint64_t>{2, 2, 1, 2, 2, 1, 2, 2, 1}));
  EXPECT_EQ(s.head_count, 4u);
}

}  // namespace
}  // namespace trit::gguf

namespace trit::gguf {
namespace {

// A mixture of experts (llama.cpp's converter's tiny Qwen3-MoE file).
TEST(ModelSummaryTest, Experts) {
  Expected<gguf::File> f =
      gguf::File::Open(std::string(TRIT_SOURCE_DIR) + "/tests/data/hf/qwen3moe/qwen3moe-tiny-f32.gguf");
  ASSERT_TRUE(f.ok()) << f.status().message();
  const ModelSummary s = Summarize(*f);
  EXPECT_EQ(s.expert_count, 8u);
  EXPECT_EQ(s.expert_used_count, 3u);
  EXPECT_EQ(s.expert_feed_forward_length, 32u);
  Expected<gguf::File> dense = gguf::File::Open(std::string(TRIT_SOURCE_DIR) + "/tests/data/hf/gemma4/gemma4-tiny-f32.gguf");
  ASSERT_TRUE(dense.ok()) << dense.status().message();
  EXPECT_FALSE(Summarize(*dense).expert_count.has_value());
}

}  // namespace
}  // namespace trit::gguf
