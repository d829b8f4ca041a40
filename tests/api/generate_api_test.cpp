// trit_generate: the bundled model's published greedy output, stopping,
// seeds, threads, the context, and refusals before any callback.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "api/api_test_util.h"

namespace trit::testing {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

Collected Generate(const trit_model* m, const char* prompt, const trit_generate_options& o,
                   trit_generate_result* r = nullptr) {
  Collected c;
  EXPECT_EQ(trit_generate(m, prompt, &o, Collect, &c, r), TRIT_STATUS_OK) << trit_last_error();
  return c;
}

TEST(ApiGenerateTest, GreedyFromBosIsLlama2csPublishedOutput) {
  ModelPtr m = LoadBundled();
  ASSERT_TRUE(m);
  trit_generate_options o = Greedy(200);
  o.tokenize_flags = TRIT_TOKENIZE_ADD_SPECIAL;
  trit_generate_result r;
  r.struct_size = sizeof(r);
  const Collected c = Generate(m.get(), "", o, &r);
  EXPECT_EQ(c.text, ReadFile(SourcePath("tests/data/reference/expected_greedy_llama2c_steps200.txt")));
  EXPECT_EQ(r.n_prompt_tokens, 1);  // BOS
  EXPECT_EQ(r.n_generated, 200);
  EXPECT_EQ(r.stop, TRIT_STOP_MAX_TOKENS);
  EXPECT_EQ(static_cast<int64_t>(c.tokens.size()), r.n_generated + (c.tokens.back() == TRIT_NO_TOKEN ? 1 : 0));
}

// A BitNet I2_S file made by bitnet.cpp's own tools (tests/data/bitnet): the
// C API runs it as every other file, and greedy decoding gives bitnet.cpp's
// tokens (llama-cli -n 16 --temp 0).
TEST(ApiGenerateTest, BitnetCppI2SFileGivesBitnetCppsTokens) {
  ModelPtr m = LoadModel(SourcePath("tests/data/bitnet/tiny-i2_s.gguf"), 2);
  ASSERT_TRUE(m);
  trit_generate_options o = Greedy(16);
  o.tokenize_flags = TRIT_TOKENIZE_ADD_SPECIAL;
  const Collected c = Generate(m.get(), "Once upon a time", o);
  EXPECT_EQ(c.text, std::string("n~~ay&~ ier\xF3~ b b b b b b"));
}

TEST(ApiGenerateTest, TextEqualsTheDetokenizedIds) {
  ModelPtr m = LoadBundled();
  ASSERT_TRUE(m);
  const Collected c = Generate(m.get(), "Lily and Ben", Greedy(40));
  std::vector<int32_t> ids;
  for (int32_t t : c.tokens) if (t != TRIT_NO_TOKEN) ids.push_back(t);
  ASSERT_FALSE(ids.empty());
  // The callback's pieces are the generated ids decoded after the prompt.
  std::vector<int32_t> all;  // no BOS: the text's first token loses its SentencePiece space
  size_t n = 0;
  int32_t prompt[16];
  ASSERT_EQ(trit_tokenize(m.get(), "Lily and Ben", 12, 0, prompt, 16, &n), TRIT_STATUS_OK);
  all.insert(all.end(), prompt, prompt + n);
  all.insert(all.end(), ids.begin(), ids.end());
  char text[4096];
  size_t len = 0;
  ASSERT_EQ(trit_detokenize(m.get(), all.data(), all.size(), 0, text, sizeof(text), &len),
            TRIT_STATUS_OK);
  EXPECT_EQ("Lily and Ben" + c.text, std::string(text, len));
}

TEST(ApiGenerateTest, CallbackStops) {
  ModelPtr m = LoadBundled();
  ASSERT_TRUE(m);
  Collected c;
  c.stop_after = 5;
  trit_generate_options o = Greedy(100);
  trit_generate_result r;
  r.struct_size = sizeof(r);
  ASSERT_EQ(trit_generate(m.get(), "Once", &o, Collect, &c, &r), TRIT_STATUS_OK) << trit_last_error();
  EXPECT_EQ(r.stop, TRIT_STOP_CALLBACK);
  EXPECT_EQ(r.n_generated, 5);
}

// The bundled model's greedy stories never end (1500 tokens from "Once upon
// a time" hold no EOS): the test names a token it does generate as EOS.
class ApiEndOfGenerationTest : public TempDirTest {};

TEST_F(ApiEndOfGenerationTest, StopsThereUnlessAskedNotTo) {
  ModelPtr plain = LoadBundled();
  ASSERT_TRUE(plain);
  const trit_generate_options o = Greedy(30);
  const Collected all = Generate(plain.get(), "Once upon a time", o);
  ASSERT_GE(all.tokens.size(), 30u);
  const int32_t end = all.tokens[10];
  size_t first = 0;
  while (all.tokens[first] != end) ++first;

  const std::string path = Path("eos.gguf");
  WriteBundledWith(path, "tokenizer.ggml.eos_token_id", gguf::Value(static_cast<uint32_t>(end)));
  ModelPtr m = LoadModel(path);
  ASSERT_TRUE(m);
  ASSERT_EQ(trit_model_token_is_end_of_generation(m.get(), end), 1);
  trit_generate_result r;
  r.struct_size = sizeof(r);
  const Collected stopped = Generate(m.get(), "Once upon a time", o, &r);
  EXPECT_EQ(r.stop, TRIT_STOP_END_OF_GENERATION);
  EXPECT_EQ(r.n_generated, static_cast<int64_t>(first));
  for (int32_t t : stopped.tokens) EXPECT_NE(t, end);  // the end token is not passed on

  trit_generate_options go_on = o;
  go_on.stop_at_end_of_generation = 0;
  EXPECT_EQ(Generate(m.get(), "Once upon a time", go_on, &r).text, all.text);
  EXPECT_EQ(r.stop, TRIT_STOP_MAX_TOKENS);
}

TEST(ApiGenerateTest, SameSeedSameTokensWhateverTheThreads) {
  ModelPtr one = LoadBundled(1);
  ModelPtr two = LoadBundled(2);
  ASSERT_TRUE(one && two);
  trit_generate_options o;
  trit_generate_options_default(&o);
  o.max_tokens = 40;
  o.temperature = 0.9f;
  o.seed = 42;
  const std::string a = Generate(one.get(), "Lily and Ben", o).text;
  EXPECT_EQ(Generate(two.get(), "Lily and Ben", o).text, a);
  EXPECT_EQ(Generate(one.get(), "Lily and Ben", o).text, a);
  o.seed = 43;
  EXPECT_NE(Generate(one.get(), "Lily and Ben", o).text, a);

  o.seed = TRIT_SEED_RANDOM;  // drawn and reported: reusing it reproduces the text
  trit_generate_result r;
  r.struct_size = sizeof(r);
  const std::string random = Generate(one.get(), "Lily and Ben", o, &r).text;
  o.seed = r.seed;
  EXPECT_EQ(Generate(one.get(), "Lily and Ben", o).text, random);
}

TEST(ApiGenerateTest, OneModelOnSeveralThreadsAtOnce) {
  ModelPtr m = LoadBundled(1);
  ASSERT_TRUE(m);
  const std::string expected = Generate(m.get(), "Once upon a time", Greedy(60)).text;
  std::string got[4];
  std::vector<std::thread> threads;
  for (std::string& g : got) {
    threads.emplace_back([&m, &g] { g = Generate(m.get(), "Once upon a time", Greedy(60)).text; });
  }
  for (std::thread& t : threads) t.join();
  for (const std::string& g : got) EXPECT_EQ(g, expected);
}

TEST(ApiGenerateTest, FullContextEndsGeneration) {
  ModelPtr m = LoadBundled(1, 8);
  ASSERT_TRUE(m);
  trit_generate_options o = Greedy(100);
  o.stop_at_end_of_generation = 0;
  trit_generate_result r;
  r.struct_size = sizeof(r);
  Generate(m.get(), "", o, &r);  // BOS + 7 fed back + 1 last = 8 tokens
  EXPECT_EQ(r.stop, TRIT_STOP_CONTEXT_FULL);
  EXPECT_EQ(r.n_generated, 8);
  Collected c;
  EXPECT_EQ(trit_generate(m.get(), "Once upon a time there was a little girl named Lily", &o, Collect, &c, nullptr),
            TRIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(trit_last_error()).find("the context holds 8"), std::string::npos) << trit_last_error();
}

TEST(ApiGenerateTest, RefusalsComeBeforeAnyCallback) {
  ModelPtr m = LoadBundled();
  ASSERT_TRUE(m);
  Collected c;
  trit_generate_options o = Greedy(10);
  o.top_p = 2.0f;
  EXPECT_EQ(trit_generate(m.get(), "Once", &o, Collect, &c, nullptr), TRIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(trit_last_error()).find("top_p"), std::string::npos) << trit_last_error();
  o = Greedy(0);
  EXPECT_EQ(trit_generate(m.get(), "Once", &o, Collect, &c, nullptr), TRIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(trit_last_error()).find("max_tokens 0"), std::string::npos) << trit_last_error();
  o = Greedy(10);
  o.tokenize_flags = 0;
  EXPECT_EQ(trit_generate(m.get(), "", &o, Collect, &c, nullptr), TRIT_STATUS_INVALID_ARGUMENT);  // no tokens
  const int32_t bad[] = {1, 9999};
  EXPECT_EQ(trit_generate_ids(m.get(), bad, 2, &o, Collect, &c, nullptr), TRIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(trit_last_error()).find("9999"), std::string::npos) << trit_last_error();
  trit_generate_result r;
  r.struct_size = 0;
  EXPECT_EQ(trit_generate(m.get(), "Once", nullptr, Collect, &c, &r), TRIT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(trit_generate(m.get(), nullptr, nullptr, Collect, &c, nullptr), TRIT_STATUS_INVALID_ARGUMENT);
  EXPECT_TRUE(c.tokens.empty());
}

TEST(ApiGenerateTest, IdsAreUsedAsGiven) {
  ModelPtr m = LoadBundled();
  ASSERT_TRUE(m);
  int32_t ids[32];
  size_t n = 0;
  ASSERT_EQ(trit_tokenize(m.get(), "Once upon a time", 16, TRIT_TOKENIZE_ADD_SPECIAL, ids, 32, &n), TRIT_STATUS_OK);
  const trit_generate_options o = Greedy(30);
  Collected from_ids;
  ASSERT_EQ(trit_generate_ids(m.get(), ids, n, &o, Collect, &from_ids, nullptr), TRIT_STATUS_OK) << trit_last_error();
  EXPECT_EQ(from_ids.text, Generate(m.get(), "Once upon a time", o).text);
}

}  // namespace
}  // namespace trit::testing
