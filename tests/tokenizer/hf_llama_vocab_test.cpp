// tokenizer.json read as gguf-py's LlamaHfVocab lists it (ParseLlamaHfVocab,
// Gemma 4's vocabulary): token types by transformers 5's all_special_tokens,
// not by added_tokens' "special" flag; every refusal by its message. The real
// case (a checkpoint against llama.cpp's converter) is
// tests/convert/hf_convert_decoders_test's gemma4/checkpoint.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "tokenizer/hf_tokenizer_json.h"

namespace trit::tokenizer {
namespace {

using Json = nlohmann::json;

// ids: 0 <pad> 1 <eos> 2 <bos> 3 <unk> 4 <0x41> 5 ▁a 6 b 7 ▁ab | added past model.vocab: 8 <|x|> 9 <|tool_call> 10 plain
Json SpmBpeJson() {
  Json vocab = {{"<pad>", 0}, {"<eos>", 1}, {"<bos>", 2}, {"<unk>", 3}, {"<0x41>", 4}, {"\xE2\x96\x81" "a", 5},
                {"b", 6},     {"\xE2\x96\x81" "ab", 7}};
  Json added = Json::array();
  for (const auto& [id, text, special] : {std::tuple{0, "<pad>", true}, {1, "<eos>", true}, {2, "<bos>", true},
                                          {3, "<unk>", true}, {8, "<|x|>", true}, {9, "<|tool_call>", true},
                                          {10, "plain", false}}) {
    added.push_back({{"id", id}, {"content", text}, {"special", special}});
  }
  return {{"added_tokens", added},
          {"model", {{"type", "BPE"}, {"byte_fallback", true}, {"vocab", vocab}, {"merges", {"\xE2\x96\x81" "a b"}}}},
          {"decoder", {{"type", "Sequence"}, {"decoders", Json::array()}}}};
}

Expected<HfTokenizer> Parse(const Json& tokenizer, const Json& config) {
  return ParseLlamaHfVocab(tokenizer.dump(), config.is_null() ? "" : config.dump());
}

TEST(HfLlamaVocabTest, TypesFollowAllSpecialTokens) {
  const Json config = {{"tokenizer_class", "GemmaTokenizer"},
                       {"bos_token", "<bos>"},
                       {"eos_token", {{"content", "<eos>"}, {"__type", "AddedToken"}}},
                       {"image_token", "<|x|>"},
                       {"add_bos_token", true},
                       {"additional_special_tokens", {"plain"}}};  // v4's name: not read by transformers 5
  Expected<HfTokenizer> tok = Parse(SpmBpeJson(), config);
  ASSERT_TRUE(tok.ok()) << tok.status().message();
  EXPECT_EQ(tok->model, "llama");
  EXPECT_TRUE(tok->pre.empty());
  ASSERT_EQ(tok->tokens.size(), 11u);
  // <pad> and <unk>: GemmaTokenizer's defaults; <0x41> a byte; <|x|> named
  // (image_token); <|tool_call>: special in tokenizer.json only, so user-defined.
  EXPECT_EQ(tok->token_types, (std::vector<int32_t>{3, 3, 3, 3, 6, 1, 1, 1, 3, 4, 4}));
  EXPECT_EQ(tok->scores, std::vector<float>(11, -1000.0f));
  EXPECT_EQ(tok->merges, (std::vector<std::string>{"\xE2\x96\x81" "a b"}));
  EXPECT_EQ(tok->special.bos, 2);
  EXPECT_EQ(tok->special.eos, 1);
}

TEST(HfLlamaVocabTest, ExtraSpecialTokensAsListOrDict) {
  for (const Json& extra : {Json{"<|tool_call>"}, Json{{"tool", "<|tool_call>"}}}) {
    Expected<HfTokenizer> tok = Parse(SpmBpeJson(), {{"extra_special_tokens", extra}});
    ASSERT_TRUE(tok.ok()) << tok.status().message();
    EXPECT_EQ(tok->token_types[9], 3) << extra.dump();
    EXPECT_EQ(tok->token_types[0], 1) << "no tokenizer_class: no GemmaTokenizer defaults";
  }
}

TEST(HfLlamaVocabTest, RefusesOtherTokenizerKinds) {
  Json byte_level = SpmBpeJson();
  byte_level["model"]["byte_fallback"] = false;
  Expected<HfTokenizer> tok = Parse(byte_level, nullptr);
  ASSERT_FALSE(tok.ok());
  EXPECT_EQ(tok.status().code(), ErrorCode::kUnsupported);
  EXPECT_EQ(tok.status().message(),
            "model: type BPE, byte_fallback false, decoder Sequence: not a SentencePiece-style BPE tokenizer (BPE with "
            "byte_fallback and a Sequence decoder), which this architecture's vocabulary is read as");
  Json bad_merge = SpmBpeJson();
  bad_merge["model"]["merges"] = {"x y"};
  tok = Parse(bad_merge, nullptr);
  ASSERT_FALSE(tok.ok());
  EXPECT_EQ(tok.status().message(), "model.merges[0]: token \"x\" is not in model.vocab");
  tok = ParseLlamaHfVocab("[1]", "");
  ASSERT_FALSE(tok.ok());
  EXPECT_EQ(tok.status().message(), "tokenizer.json: top level is array, expected an object");
}

}  // namespace
}  // namespace trit::tokenizer
