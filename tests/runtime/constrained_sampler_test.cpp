// ConstrainedSampler: every answer is a sentence of the grammar, the greedy
// shortcut gives what the full mask gives, the bias moves logits, and a
// grammar that no token can follow is an error, not a hang.
#include "runtime/constrained_sampler.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "grammar/gbnf.h"
#include "test_paths.h"

namespace trit::runtime {
namespace {

const tokenizer::Tokenizer& Spm() {
  static const std::unique_ptr<tokenizer::Tokenizer> tok = [] {
    auto t = tokenizer::Tokenizer::FromGgufPath(std::string(TRIT_SOURCE_DIR) + "/tests/data/vocab/ggml-vocab-llama-spm.gguf");
    EXPECT_TRUE(t.ok()) << t.status().message();
    return std::move(t).value();
  }();
  return *tok;
}

const grammar::TokenIndex& Index() {
  static const std::unique_ptr<grammar::TokenIndex> index = IndexVocabulary(Spm());
  return *index;
}

std::shared_ptr<const grammar::Grammar> Compile(const char* gbnf) {
  auto g = grammar::ParseGbnf(gbnf);
  EXPECT_TRUE(g.ok()) << g.status().message();
  return std::move(g).value();
}

bool IsEnd(int32_t token) {
  const auto& ends = Spm().vocab().end_of_generation();
  return token == Spm().vocab().special().eos || std::find(ends.begin(), ends.end(), token) != ends.end();
}

// Generates with random logits until the grammar must end, an end token
// comes, or `max` tokens; returns the text.
std::string Generate(ConstrainedSampler& s, uint64_t seed, int max, bool* ended) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<float> logits(static_cast<size_t>(Spm().vocab().size()));
  std::vector<int32_t> history;
  std::string text;
  *ended = false;
  for (int i = 0; i < max; ++i) {
    for (float& v : logits) v = normal(rng);
    Expected<int32_t> token = s.Sample(logits, history, static_cast<int64_t>(history.size()));
    EXPECT_TRUE(token.ok()) << token.status().message();
    if (!token.ok()) break;
    if (IsEnd(*token)) {
      *ended = true;
      break;
    }
    text += Spm().TokenToPiece(*token, false, false);
    history.push_back(*token);
    s.Accept(*token);
    if (s.MustEnd()) {
      *ended = true;
      break;
    }
  }
  return text;
}

TEST(ConstrainedSamplerTest, EveryAnswerIsASentenceOfTheGrammar) {
  const auto g = Compile(R"(root ::= "{" pair ("," pair){0,3} "}"
pair ::= "\"" [a-z]{1,6} "\":" ("true" | "false" | [0-9]{1,4}))");
  for (float temperature : {0.0f, 0.8f, 1.5f}) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      ConstrainedSampler s({.temperature = temperature, .seed = seed}, {.logit_bias = {}, .grammar = g}, &Index());
      bool ended = false;
      const std::string text = Generate(s, seed, 200, &ended);
      ASSERT_TRUE(ended) << text;
      EXPECT_TRUE(grammar::Matches(g, text)) << "temperature " << temperature << " seed " << seed << ": " << text;
    }
  }
}

TEST(ConstrainedSamplerTest, GreedyShortcutEqualsTheFullMask) {
  const auto g = Compile(R"(root ::= [a-z ]{3,40} ".")");
  // A bias that makes the unconstrained choice allowed at some steps and
  // not at others; with temperature 0 both paths must agree token by token.
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    ConstrainedSampler greedy({.temperature = 0.0f, .seed = seed}, {.logit_bias = {}, .grammar = g}, &Index());
    // top_k = 1 with a temperature draws the argmax too, but always through the mask.
    ConstrainedSampler masked({.temperature = 1.0f, .top_k = 1, .seed = seed}, {.logit_bias = {}, .grammar = g}, &Index());
    bool e1 = false, e2 = false;
    EXPECT_EQ(Generate(greedy, seed, 60, &e1), Generate(masked, seed, 60, &e2));
    EXPECT_EQ(e1, e2);
  }
}

TEST(ConstrainedSamplerTest, LogitBiasMovesTheChoice) {
  std::vector<float> logits(static_cast<size_t>(Spm().vocab().size()), 0.0f);
  logits[100] = 5.0f;
  ConstrainedSampler plain({}, {}, nullptr);
  EXPECT_EQ(*plain.Sample(logits, {}, 0), 100);
  ConstrainedSampler banned({}, {.logit_bias = {{100, -100.0f}, {200, 1.0f}}, .grammar = nullptr}, nullptr);
  EXPECT_EQ(*banned.Sample(logits, {}, 0), 200);
  EXPECT_FALSE(banned.constrained());
  EXPECT_FALSE(banned.MustEnd());
}

TEST(ConstrainedSamplerTest, AGrammarNoTokenCanFollowIsAnError) {
  // A vocabulary of "a", "b" and an end token, and a grammar that wants "ac".
  const grammar::TokenIndex index({"a", "b", ""}, {2});
  ConstrainedSampler s({}, {.logit_bias = {}, .grammar = Compile(R"(root ::= "ac")")}, &index);
  const std::vector<float> logits = {0.0f, 1.0f, 2.0f};
  Expected<int32_t> a = s.Sample(logits, {}, 0);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, 0);
  s.Accept(*a);
  Expected<int32_t> next = s.Sample(logits, {}, 0);
  ASSERT_FALSE(next.ok());
  EXPECT_NE(next.status().message().find("no token"), std::string::npos) << next.status().message();
}

TEST(ConstrainedSamplerTest, EndTokensOnlyWhereTheGrammarMayEnd) {
  const auto g = Compile(R"(root ::= "ab" "c"?)");
  const auto& vocab = Spm().vocab();
  std::vector<float> logits(static_cast<size_t>(vocab.size()), 0.0f);
  const int32_t eos = vocab.special().eos;
  logits[static_cast<size_t>(eos)] = 50.0f;  // the model wants to stop at once
  ConstrainedSampler s({}, {.logit_bias = {}, .grammar = g}, &Index());
  Expected<int32_t> first = s.Sample(logits, {}, 0);
  ASSERT_TRUE(first.ok());
  EXPECT_NE(*first, eos);
  std::string text = Spm().TokenToPiece(*first, false, false);
  s.Accept(*first);
  while (text != "ab" && text != "abc") {
    Expected<int32_t> next = s.Sample(logits, {}, 0);
    ASSERT_TRUE(next.ok());
    ASSERT_NE(*next, eos) << text;
    text += Spm().TokenToPiece(*next, false, false);
    s.Accept(*next);
  }
  if (text == "ab") {
    EXPECT_FALSE(s.MustEnd());
    EXPECT_EQ(*s.Sample(logits, {}, 0), eos);  // now it may end
  } else {
    EXPECT_TRUE(s.MustEnd());
  }
}

}  // namespace
}  // namespace trit::runtime
