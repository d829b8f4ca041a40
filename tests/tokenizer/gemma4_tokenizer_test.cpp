// The gemma4 tokenizer (tokenizer.ggml.model "gemma4": BPE over
// '▁'-escaped UTF-8) on the tiny Gemma 4 file of tests/data/hf/gemma4, which
// llama.cpp's converter wrote from tests/data/hf/gemma3's tokenizer.json:
// the ids Hugging Face's tokenizer gives for the same texts
// (tests/data/hf/gemma3/expected_ids.json), byte fallback, newline runs, and
// decoding back to the text.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "test_paths.h"
#include "tokenizer/tokenizer.h"

namespace trit::tokenizer {
namespace {

std::unique_ptr<Tokenizer> Load() {
  Expected<std::unique_ptr<Tokenizer>> t =
      Tokenizer::FromGgufPath(testing::SourcePath("tests/data/hf/gemma4/gemma4-tiny-f32.gguf"));
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? std::move(*t) : nullptr;
}

TEST(Gemma4TokenizerTest, GivesHuggingFaceIds) {
  std::unique_ptr<Tokenizer> t = Load();
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->vocab().model_name(), "gemma4");
  EXPECT_TRUE(t->vocab().add_bos());
  std::ifstream in(testing::SourcePath("tests/data/hf/gemma3/expected_ids.json"));
  const nlohmann::json ref = nlohmann::json::parse(in);
  int checked = 0;
  for (const nlohmann::json& c : ref["cases"]) {
    const std::string text = c["text"];
    if (text.find('<') != std::string::npos) continue;  // the special-token case: typed differently per converter
    const std::vector<TokenId> want = c["ids"].get<std::vector<TokenId>>();
    EXPECT_EQ(t->Encode(text, {.add_special = true, .parse_special = true}), want) << text;
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

TEST(Gemma4TokenizerTest, FallsBackToByteTokensAndDecodesBack) {
  std::unique_ptr<Tokenizer> t = Load();
  ASSERT_NE(t, nullptr);
  // Characters the 400-token vocabulary lacks (an emoji, CJK) become <0xXX> tokens.
  for (const std::string text : {"Hi \xf0\x9f\x99\x82 there", "\xe4\xbd\xa0\xe5\xa5\xbd, world\n\nnext line "}) {
    const std::vector<TokenId> ids = t->Encode(text, {.add_special = false, .parse_special = false});
    ASSERT_FALSE(ids.empty());
    bool has_byte = false;
    for (TokenId id : ids) has_byte = has_byte || t->vocab().IsByte(id);
    EXPECT_TRUE(has_byte) << text;
    EXPECT_EQ(t->Decode(ids, {}), text);
  }
}

// The split keeps newline runs apart; this vocabulary has no newline token,
// so a run is its bytes (a vocabulary with "\n\n" gives that token whole).
TEST(Gemma4TokenizerTest, ANewlineRunWithoutItsTokenIsItsBytes) {
  std::unique_ptr<Tokenizer> t = Load();
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->vocab().Find("\n\n"), kNoToken);
  const TokenId lf = t->vocab().Find("<0x0A>");
  ASSERT_NE(lf, kNoToken);
  EXPECT_EQ(t->Encode("\n\n", {.add_special = false, .parse_special = false}), (std::vector<TokenId>{lf, lf}));
}

}  // namespace
}  // namespace trit::tokenizer
