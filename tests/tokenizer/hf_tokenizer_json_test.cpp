// Hugging Face tokenizer.json reading (src/tokenizer/hf_tokenizer_json.*):
// hand-written WordPiece and byte-level BPE tokenizers, every refusal by its
// message, and the GGUF round trip through trit's own tokenizer, whose ids
// are derived by hand from the tiny vocabularies below.
#include "tokenizer/hf_tokenizer_json.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "formats/gguf/reader.h"
#include "tokenizer/tokenizer.h"

namespace trit::tokenizer {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kCls = "[CLS]";

// ids: 0 [PAD] 1 [UNK] 2 [CLS] 3 [SEP] 4 [MASK] 5 hello 6 world 7 ##s 8 play 9 ##ing 10 !
Json WordPieceJson() {
  Json vocab = {{"[PAD]", 0}, {"[UNK]", 1}, {"[CLS]", 2}, {"[SEP]", 3}, {"[MASK]", 4},  {"hello", 5},
                {"world", 6}, {"##s", 7},   {"play", 8},  {"##ing", 9}, {"!", 10}};
  Json added = Json::array();
  for (const char* t : {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"}) {
    added.push_back({{"id", vocab[t]}, {"content", t}, {"special", true}, {"normalized", false}});
  }
  auto special = [](const char* id, int type) { return Json{{"SpecialToken", {{"id", id}, {"type_id", type}}}}; };
  auto seq = [](const char* id, int type) { return Json{{"Sequence", {{"id", id}, {"type_id", type}}}}; };
  return {
      {"version", "1.0"},
      {"added_tokens", added},
      {"normalizer", {{"type", "BertNormalizer"}, {"lowercase", true}}},
      {"pre_tokenizer", {{"type", "BertPreTokenizer"}}},
      {"post_processor",
       {{"type", "TemplateProcessing"},
        {"single", {special("[CLS]", 0), seq("A", 0), special("[SEP]", 0)}},
        {"pair", {special("[CLS]", 0), seq("A", 0), special("[SEP]", 0), seq("B", 1), special("[SEP]", 1)}}}},
      {"model",
       {{"type", "WordPiece"}, {"unk_token", "[UNK]"}, {"continuing_subword_prefix", "##"}, {"vocab", vocab}}},
  };
}

constexpr std::string_view kBertConfig =
    R"({"do_lower_case": true, "unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]",
        "cls_token": "[CLS]", "mask_token": {"content": "[MASK]", "lstrip": false}})";

// ids: 0 h 1 e 2 l 3 o 4 w 5 r 6 d 7 Ġ 8 he 9 ll 10 hell 11 hello 12 Ġw 13 or 14 Ġwor 15 Ġworl 16 Ġworld
//      17 <|endoftext|> (added, special)
Json BpeJson() {
  Json vocab = Json::object();
  int id = 0;
  for (const char* t : {"h", "e", "l", "o", "w", "r", "d", "\xC4\xA0", "he", "ll", "hell", "hello", "\xC4\xA0w", "or",
                        "\xC4\xA0wor", "\xC4\xA0worl", "\xC4\xA0world"}) {
    vocab[t] = id++;
  }
  return {
      {"added_tokens", {{{"id", 17}, {"content", "<|endoftext|>"}, {"special", true}}}},
      {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}},
      {"model",
       {{"type", "BPE"},
        {"vocab", vocab},
        {"merges",
         {"h e", "l l", "he ll", "hell o", "\xC4\xA0 w", "o r", "\xC4\xA0w or", "\xC4\xA0wor l",
          "\xC4\xA0worl d"}}}},
  };
}

constexpr std::string_view kBpeConfig = R"({"eos_token": "<|endoftext|>", "bos_token": {"content": "<|endoftext|>"}})";

Expected<HfTokenizer> Parse(const Json& j, std::string_view config = "") { return ParseHfTokenizer(j.dump(), config); }

// Writes `tok`'s metadata to a temporary GGUF and loads trit's tokenizer from it.
std::unique_ptr<Tokenizer> RoundTrip(const HfTokenizer& tok) {
  gguf::Writer writer;
  Status s = WriteHfTokenizerMetadata(tok, writer);
  EXPECT_TRUE(s.ok()) << s.message();
  const std::string path = ::testing::TempDir() + "hf_tokenizer_" + std::to_string(getpid()) + ".gguf";
  s = writer.WriteFile(path);
  EXPECT_TRUE(s.ok()) << s.message();
  Expected<std::unique_ptr<Tokenizer>> t = Tokenizer::FromGgufPath(path);
  std::remove(path.c_str());
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? std::move(t).value() : nullptr;
}

TEST(HfTokenizerJsonTest, WordPieceReadsTokensTypesAndSpecials) {
  Expected<HfTokenizer> tok = Parse(WordPieceJson(), kBertConfig);
  ASSERT_TRUE(tok.ok()) << tok.status().message();
  EXPECT_EQ(tok->model, "bert");
  EXPECT_TRUE(tok->lowercase);
  ASSERT_EQ(tok->tokens.size(), 11u);
  EXPECT_EQ(tok->tokens[0], "[PAD]");
  EXPECT_EQ(tok->tokens[2], kCls);
  EXPECT_EQ(tok->tokens[5], "\xE2\x96\x81hello");  // phantom space
  EXPECT_EQ(tok->tokens[7], "s");                  // "##s"
  EXPECT_EQ(tok->tokens[10], "\xE2\x96\x81!");
  EXPECT_EQ(tok->token_types, (std::vector<int32_t>{3, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1}));
  EXPECT_TRUE(tok->merges.empty());
  EXPECT_EQ(tok->special.cls, 2);
  EXPECT_EQ(tok->special.bos, 2);  // no bos_token: the cls token, as gguf-py
  EXPECT_EQ(tok->special.eos, 3);  // no eos_token: the sep token
  EXPECT_EQ(tok->special.sep, 3);
  EXPECT_EQ(tok->special.unk, 1);
  EXPECT_EQ(tok->special.pad, 0);
  EXPECT_EQ(tok->special.mask, 4);
  // [CLS] A [SEP] / [CLS] A [SEP] B [SEP]: bos and eos added; no separator of its own.
  EXPECT_EQ(tok->add_bos, true);
  EXPECT_EQ(tok->add_eos, true);
  EXPECT_EQ(tok->add_sep, false);
}

TEST(HfTokenizerJsonTest, WordPieceWithoutConfigHasFlagsButNoIds) {
  // gguf-py looks ids up only through tokenizer_config.json's *_token fields.
  Expected<HfTokenizer> tok = Parse(WordPieceJson());
  ASSERT_TRUE(tok.ok()) << tok.status().message();
  EXPECT_FALSE(tok->special.cls.has_value());
  EXPECT_FALSE(tok->special.bos.has_value());
  EXPECT_EQ(tok->add_bos, true);
}

TEST(HfTokenizerJsonTest, WordPieceRoundTripsThroughGguf) {
  Expected<HfTokenizer> tok = Parse(WordPieceJson(), kBertConfig);
  ASSERT_TRUE(tok.ok()) << tok.status().message();
  std::unique_ptr<Tokenizer> t = RoundTrip(*tok);
  ASSERT_NE(t, nullptr);
  const EncodeOptions special = {.add_special = true, .parse_special = false};
  const EncodeOptions raw = {.add_special = false, .parse_special = false};
  EXPECT_EQ(t->Encode("Hello worlds, playing!", special), (std::vector<TokenId>{2, 5, 6, 7, 1, 8, 9, 10, 3}));
  EXPECT_EQ(t->Encode("HELLO xyz", raw), (std::vector<TokenId>{5, 1}));
  EXPECT_EQ(t->Encode("play plays", raw), (std::vector<TokenId>{8, 8, 7}));
}

TEST(HfTokenizerJsonTest, ByteLevelBpeReadsMergesAndSpecials) {
  Expected<HfTokenizer> tok = Parse(BpeJson(), kBpeConfig);
  ASSERT_TRUE(tok.ok()) << tok.status().message();
  EXPECT_EQ(tok->model, "gpt2");
  EXPECT_EQ(tok->pre, "gpt-2");
  ASSERT_EQ(tok->tokens.size(), 18u);
  EXPECT_EQ(tok->tokens[7], "\xC4\xA0");
  EXPECT_EQ(tok->tokens[17], "<|endoftext|>");
  EXPECT_EQ(tok->token_types[17], 3);
  EXPECT_EQ(tok->token_types[0], 1);
  ASSERT_EQ(tok->merges.size(), 9u);
  EXPECT_EQ(tok->merges[4], "\xC4\xA0 w");
  EXPECT_EQ(tok->special.bos, 17);
  EXPECT_EQ(tok->special.eos, 17);
  EXPECT_FALSE(tok->special.unk.has_value());
  EXPECT_FALSE(tok->add_bos.has_value());
}

TEST(HfTokenizerJsonTest, ByteLevelBpeRoundTripsThroughGguf) {
  Expected<HfTokenizer> tok = Parse(BpeJson(), kBpeConfig);
  ASSERT_TRUE(tok.ok()) << tok.status().message();
  std::unique_ptr<Tokenizer> t = RoundTrip(*tok);
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->Encode("hello world<|endoftext|>", {.add_special = false, .parse_special = true}),
            (std::vector<TokenId>{11, 16, 17}));
  EXPECT_EQ(t->Encode("hell world", {.add_special = false, .parse_special = false}),
            (std::vector<TokenId>{10, 16}));
  EXPECT_EQ(t->Decode(std::vector<TokenId>{11, 16}, {}), "hello world");
}

TEST(HfTokenizerJsonTest, ArrayMergesEqualStringMergesAndEncodeSpaces) {
  Json j = BpeJson();
  Json arrays = Json::array();
  for (const Json& m : j["model"]["merges"]) {
    const std::string s = m.get<std::string>();
    const size_t space = s.find(' ');
    arrays.push_back({s.substr(0, space), s.substr(space + 1)});
  }
  j["model"]["merges"] = arrays;
  Expected<HfTokenizer> from_arrays = Parse(j);
  Expected<HfTokenizer> from_strings = Parse(BpeJson());
  ASSERT_TRUE(from_arrays.ok()) << from_arrays.status().message();
  ASSERT_TRUE(from_strings.ok());
  EXPECT_EQ(from_arrays->merges, from_strings->merges);

  // A space inside a token of the array form is written as U+0120, as gguf-py does.
  j["model"]["vocab"][" "] = 18;
  j["model"]["vocab"][" h"] = 19;
  j["model"]["merges"].push_back({" ", "h"});
  Expected<HfTokenizer> spaced = Parse(j);
  ASSERT_TRUE(spaced.ok()) << spaced.status().message();
  EXPECT_EQ(spaced->merges.back(), "\xC4\xA0 h");
}

TEST(HfTokenizerJsonTest, NamesKnownSplitPreTokenizers) {
  struct Case {
    std::string regex, pre;
  };
  const Case cases[] = {
      {R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
       "llama-bpe"},
      // Qwen3.5's tokenizer.json (Qwen/Qwen3.5-0.8B): combining marks join letters.
      {R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
       "qwen35"},
  };
  for (const Case& c : cases) {
    Json j = BpeJson();
    j["pre_tokenizer"] = {
        {"type", "Sequence"},
        {"pretokenizers",
         {{{"type", "Split"}, {"pattern", {{"Regex", c.regex}}}, {"behavior", "Isolated"}, {"invert", false}},
          {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", false}}}}};
    Expected<HfTokenizer> tok = Parse(j);
    ASSERT_TRUE(tok.ok()) << tok.status().message();
    EXPECT_EQ(tok->pre, c.pre);
  }
}

TEST(HfTokenizerJsonTest, AddedTokensExtendTheVocabulary) {
  Json j = BpeJson();
  j["added_tokens"].push_back({{"id", 18}, {"content", "<|im_start|>"}, {"special", false}});
  j["added_tokens"].push_back({{"id", 19}, {"content", "my\xE2\x96\x81word"}, {"special", false}});
  Expected<HfTokenizer> tok = Parse(j);
  ASSERT_TRUE(tok.ok()) << tok.status().message();
  ASSERT_EQ(tok->tokens.size(), 20u);
  EXPECT_EQ(tok->token_types[18], 3);  // not special, but looks special ("<|...|>")
  EXPECT_EQ(tok->token_types[19], 4);  // user-defined, "▁" pre-normalized to a space
  EXPECT_EQ(tok->tokens[19], "my word");
}

TEST(HfTokenizerJsonTest, RobertaProcessingAddsBosEosSep) {
  Json j = BpeJson();
  j["post_processor"] = {{"type", "RobertaProcessing"}, {"sep", {"<|endoftext|>", 17}}, {"cls", {"<|endoftext|>", 17}}};
  Expected<HfTokenizer> tok = Parse(j, R"({"eos_token": "<|endoftext|>"})");
  ASSERT_TRUE(tok.ok()) << tok.status().message();
  EXPECT_EQ(tok->add_bos, true);
  EXPECT_EQ(tok->add_eos, true);
  EXPECT_EQ(tok->add_sep, true);
  EXPECT_EQ(tok->special.cls, 17);
  EXPECT_EQ(tok->special.sep, 17);
}

TEST(HfTokenizerJsonTest, ConfigFlagsOverrideTheTemplate) {
  Expected<HfTokenizer> tok =
      Parse(WordPieceJson(), R"({"cls_token": "[CLS]", "sep_token": "[SEP]", "add_eos_token": false})");
  ASSERT_TRUE(tok.ok()) << tok.status().message();
  EXPECT_EQ(tok->add_eos, false);
  EXPECT_EQ(tok->add_bos, true);
}

// Expects ParseHfTokenizer(json, config) to fail with `code` and a message containing `part`.
void ExpectRefused(const std::string& json, std::string_view config, ErrorCode code, std::string_view part) {
  Expected<HfTokenizer> tok = ParseHfTokenizer(json, config);
  ASSERT_FALSE(tok.ok()) << json.substr(0, 200);
  EXPECT_EQ(tok.status().code(), code) << tok.status().message();
  EXPECT_NE(tok.status().message().find(part), std::string::npos) << tok.status().message();
}

TEST(HfTokenizerJsonTest, RefusesBadJson) {
  ExpectRefused("{\"model\":", "", ErrorCode::kCorrupt, "tokenizer.json: not valid JSON");
  ExpectRefused("[1]", "", ErrorCode::kCorrupt, "tokenizer.json: top level is array, expected an object");
  ExpectRefused(std::string(100, '[') + std::string(100, ']'), "", ErrorCode::kCorrupt,
                "tokenizer.json: JSON nests deeper than 64 levels");
  ExpectRefused(BpeJson().dump(), "{", ErrorCode::kCorrupt, "tokenizer_config.json: not valid JSON");
  ExpectRefused("{}", "", ErrorCode::kCorrupt, "model: missing");
  ExpectRefused(R"({"model": 3})", "", ErrorCode::kCorrupt, "model: is number, expected an object");
  ExpectRefused(R"({"model": {"vocab": {}}})", "", ErrorCode::kCorrupt, "model.type: missing, expected a string");
}

TEST(HfTokenizerJsonTest, RefusesModelTypes) {
  ExpectRefused(R"({"model": {"type": "Foo"}})", "", ErrorCode::kCorrupt,
                R"(model.type: "Foo" is not a tokenizers model)");
  ExpectRefused(R"({"model": {"type": "Unigram", "vocab": [["a", 0.0]]}})", "", ErrorCode::kUnsupported,
                "model.type: Unigram is not supported");
  ExpectRefused(R"({"model": {"type": "WordLevel", "vocab": {"a": 0}}})", "", ErrorCode::kUnsupported,
                "model.type: WordLevel is not supported");
  ExpectRefused(R"({"model": {"type": "BPE", "byte_fallback": true, "vocab": {"a": 0}, "merges": []}})", "",
                ErrorCode::kUnsupported, "BPE with byte_fallback (SentencePiece-style");
  ExpectRefused(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}})", "", ErrorCode::kUnsupported,
                "BPE without a ByteLevel pre_tokenizer");
  Json j = WordPieceJson();
  j["model"]["continuing_subword_prefix"] = "@@";
  ExpectRefused(j.dump(), "", ErrorCode::kUnsupported, R"(model.continuing_subword_prefix: "@@" is not "##")");
  j = BpeJson();
  j["pre_tokenizer"]["add_prefix_space"] = true;
  ExpectRefused(j.dump(), "", ErrorCode::kUnsupported, "pre_tokenizer: {\"add_prefix_space\":true");
}

TEST(HfTokenizerJsonTest, RefusesBadIds) {
  auto wp = [](const std::string& vocab) {
    return R"({"model": {"type": "WordPiece", "vocab": )" + vocab + "}}";
  };
  ExpectRefused(wp(R"({"a": 0, "b": 0})"), "", ErrorCode::kCorrupt,
                R"(model.vocab["b"]: id 0 is given twice (also to "a"))");
  ExpectRefused(wp(R"({"a": 0, "b": 2})"), "", ErrorCode::kCorrupt,
                R"(token ids have gaps: 2 tokens but id 2 is given ("b"); id 1 is missing)");
  ExpectRefused(wp(R"({"a": "0"})"), "", ErrorCode::kCorrupt, R"(model.vocab["a"]: id is string, expected an integer)");
  ExpectRefused(wp(R"({"a": 1.5})"), "", ErrorCode::kCorrupt, R"(model.vocab["a"]: id is number, expected an integer)");
  ExpectRefused(wp(R"({"a": -1})"), "", ErrorCode::kCorrupt, R"(model.vocab["a"]: id -1 is outside 0..16777215)");
  ExpectRefused(wp(R"({"a": 99999999999999999999})"), "", ErrorCode::kCorrupt,
                R"(model.vocab["a"]: id is number, expected an integer)");
  ExpectRefused(wp(R"({"a": 18446744073709551615})"), "", ErrorCode::kCorrupt,
                R"(model.vocab["a"]: id 18446744073709551615 is outside)");
  ExpectRefused(wp("[]"), "", ErrorCode::kCorrupt, "model.vocab: array, expected an object of token: id");
  ExpectRefused(wp("{}"), "", ErrorCode::kCorrupt, "model.vocab: empty, and no added_tokens");
}

TEST(HfTokenizerJsonTest, RefusesBadAddedTokens) {
  Json j = WordPieceJson();
  j["added_tokens"] = {{{"id", 11}, {"content", 5}}};
  ExpectRefused(j.dump(), "", ErrorCode::kCorrupt, "added_tokens[0].content: number, expected a string");
  j["added_tokens"] = {{{"content", "x"}}};
  ExpectRefused(j.dump(), "", ErrorCode::kCorrupt, "added_tokens[0].id: missing");
  j["added_tokens"] = {{{"id", 5}, {"content", "bye"}}};
  ExpectRefused(j.dump(), "", ErrorCode::kCorrupt, R"(added_tokens[0]: id 5 is "bye" here but "hello" in model.vocab)");
  j["added_tokens"] = {{{"id", 11}, {"content", "x"}}, {{"id", 11}, {"content", "y"}}};
  ExpectRefused(j.dump(), "", ErrorCode::kCorrupt, R"(added_tokens[1]: id 11 is given twice (also to "x"))");
  j["added_tokens"] = {3};
  ExpectRefused(j.dump(), "", ErrorCode::kCorrupt, "added_tokens[0]: is number, expected an object");
  j["added_tokens"] = "x";
  ExpectRefused(j.dump(), "", ErrorCode::kCorrupt, "added_tokens: is string, expected an array");
}

TEST(HfTokenizerJsonTest, RefusesBadMerges) {
  Json j = BpeJson();
  j["model"]["merges"] = {"h zz"};
  ExpectRefused(j.dump(), "", ErrorCode::kCorrupt, R"(model.merges[0]: token "zz" is not in model.vocab)");
  j["model"]["merges"] = {"l o"};  // "lo" is not a token
  ExpectRefused(j.dump(), "", ErrorCode::kCorrupt, R"(model.merges[0]: token "lo" is not in model.vocab)");
  j["model"]["merges"] = {"h e", "hello"};
  ExpectRefused(j.dump(), "", ErrorCode::kCorrupt,
                R"(model.merges[1]: "hello" is not two tokens separated by one space)");
  j["model"]["merges"] = {{"h", "e", "l"}};
  ExpectRefused(j.dump(), "", ErrorCode::kCorrupt, R"(model.merges[0]: is ["h","e","l"], expected "a b")");
  j["model"]["merges"] = Json::array();
  ExpectRefused(j.dump(), "", ErrorCode::kCorrupt, "model.merges: empty, expected a non-empty array");
  j["model"].erase("merges");
  ExpectRefused(j.dump(), "", ErrorCode::kCorrupt, "model.merges: missing, expected a non-empty array");
}

TEST(HfTokenizerJsonTest, WriterRefusesCasedWordPiece) {
  Json j = WordPieceJson();
  j["normalizer"]["lowercase"] = false;
  Expected<HfTokenizer> tok = Parse(j, kBertConfig);
  ASSERT_TRUE(tok.ok()) << tok.status().message();
  EXPECT_FALSE(tok->lowercase);
  gguf::Writer writer;
  Status s = WriteHfTokenizerMetadata(*tok, writer);
  EXPECT_EQ(s.code(), ErrorCode::kUnsupported);
  EXPECT_NE(s.message().find("WordPiece tokenizer without a lowercasing normalizer"), std::string::npos);
}

TEST(HfTokenizerJsonTest, WritesTheConverterKeys) {
  Expected<HfTokenizer> tok = Parse(WordPieceJson(), kBertConfig);
  ASSERT_TRUE(tok.ok());
  gguf::Writer writer;
  ASSERT_TRUE(WriteHfTokenizerMetadata(*tok, writer).ok());
  const std::string path = ::testing::TempDir() + "hf_tokenizer_keys_" + std::to_string(getpid()) + ".gguf";
  ASSERT_TRUE(writer.WriteFile(path).ok());
  Expected<gguf::File> file = gguf::File::Open(path);
  std::remove(path.c_str());
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(*file->GetString("tokenizer.ggml.model"), "bert");
  EXPECT_EQ(*file->GetInt("tokenizer.ggml.cls_token_id"), 2);
  EXPECT_EQ(*file->GetInt("tokenizer.ggml.seperator_token_id"), 3);
  EXPECT_EQ(*file->GetBool("tokenizer.ggml.add_eos_token"), true);
  EXPECT_EQ(file->Find("tokenizer.ggml.scores"), nullptr);
  EXPECT_EQ(file->Find("tokenizer.ggml.merges"), nullptr);
}

}  // namespace
}  // namespace trit::tokenizer
