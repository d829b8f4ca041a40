// SentencePiece-style tokenization (src/tokenizer/spm_tokenizer.cpp) on the
// Llama-2 vocabulary (tests/data/vocab/ggml-vocab-llama-spm.gguf) and the
// bundled model's 512-token vocabulary. Byte tokens "<0xNN>" have id NN + 3
// in both.
#include <gtest/gtest.h>

#include <random>

#include "formats/gguf/reader.h"
#include "test_paths.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/vocab_test_data.h"

namespace trit::tokenizer {
namespace {

constexpr EncodeOptions kRaw = {.add_special = false, .parse_special = false};
constexpr DecodeOptions kPlain = {};

std::unique_ptr<Tokenizer> LoadTokenizer(const std::string& path) {
  Expected<gguf::File> file = gguf::File::Open(path);
  EXPECT_TRUE(file.ok()) << path << ": " << file.status().message();
  if (!file.ok()) return nullptr;
  Expected<std::unique_ptr<Tokenizer>> t = Tokenizer::FromGguf(*file);
  EXPECT_TRUE(t.ok()) << path << ": " << t.status().message();
  return t.ok() ? std::move(t).value() : nullptr;
}

class SpmTokenizerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { tok_ = LoadTokenizer(testing::VocabDataPath("ggml-vocab-llama-spm.gguf")).release(); }
  static void TearDownTestSuite() {
    delete tok_;
    tok_ = nullptr;
  }
  void SetUp() override { ASSERT_NE(tok_, nullptr); }
  TokenId Id(std::string_view text) const {
    const TokenId id = tok_->vocab().Find(text);
    EXPECT_NE(id, kNoToken) << text;
    return id;
  }
  static Tokenizer* tok_;
};
Tokenizer* SpmTokenizerTest::tok_ = nullptr;

constexpr TokenId kBos = 1, kEos = 2, kSpace = 29871;  // "▁"

TEST_F(SpmTokenizerTest, VocabularyFacts) {
  EXPECT_EQ(tok_->vocab().model(), ModelType::kSpm);
  EXPECT_EQ(tok_->vocab().size(), 32000);
  EXPECT_EQ(tok_->vocab().text(kSpace), "\xE2\x96\x81");
  EXPECT_EQ(tok_->vocab().text(3 + 0xF0), "<0xF0>");
  EXPECT_FALSE(tok_->clean_spaces());
}

TEST_F(SpmTokenizerTest, EmptyText) {
  EXPECT_EQ(tok_->Encode("", kRaw), std::vector<TokenId>{});
  EXPECT_EQ(tok_->Encode("", {.add_special = true}), std::vector<TokenId>{kBos});
  EXPECT_EQ(tok_->Decode({}, kPlain), "");
}

TEST_F(SpmTokenizerTest, OnlySpaces) {
  // The dummy prefix adds one '▁': three spaces are "▁▁▁▁", one token.
  EXPECT_EQ(tok_->Encode("   ", kRaw), std::vector<TokenId>{Id("\xE2\x96\x81\xE2\x96\x81\xE2\x96\x81\xE2\x96\x81")});
  EXPECT_EQ(tok_->Encode(" ", kRaw), std::vector<TokenId>{Id("\xE2\x96\x81\xE2\x96\x81")});
  EXPECT_EQ(tok_->Decode(tok_->Encode("   ", kRaw), kPlain), "   ");
}

TEST_F(SpmTokenizerTest, WordsAndDummyPrefix) {
  EXPECT_EQ(tok_->Encode("Hello", kRaw), std::vector<TokenId>{Id("\xE2\x96\x81Hello")});
  EXPECT_EQ(tok_->Encode(" Hello", kRaw), (std::vector<TokenId>{kSpace, Id("\xE2\x96\x81Hello")}));
  EXPECT_EQ(tok_->Encode("Hello", {.add_special = true}), (std::vector<TokenId>{kBos, Id("\xE2\x96\x81Hello")}));
}

TEST_F(SpmTokenizerTest, ByteFallbackForCharactersNotInTheVocabulary) {
  // 🦙 U+1F999 = F0 9F A6 99 has no token: "▁" then its four bytes.
  ASSERT_EQ(tok_->vocab().Find("\xF0\x9F\xA6\x99"), kNoToken);
  const std::vector<TokenId> ids = tok_->Encode("\xF0\x9F\xA6\x99", kRaw);
  EXPECT_EQ(ids, (std::vector<TokenId>{kSpace, 3 + 0xF0, 3 + 0x9F, 3 + 0xA6, 3 + 0x99}));
  EXPECT_EQ(tok_->Decode(ids, kPlain), "\xF0\x9F\xA6\x99");
  EXPECT_EQ(tok_->TokenToPiece(3 + 0xF0, false, false), "\xF0");
  // Invalid UTF-8 goes out byte by byte and comes back unchanged.
  const std::string invalid = "a\xFF\xC3";
  const std::vector<TokenId> inv = tok_->Encode(invalid, kRaw);
  EXPECT_EQ(inv, (std::vector<TokenId>{Id("\xE2\x96\x81" "a"), 3 + 0xFF, 3 + 0xC3}));
  EXPECT_EQ(tok_->Decode(inv, kPlain), invalid);
}

TEST_F(SpmTokenizerTest, SpecialTokensAreTextUnlessParsed) {
  const std::vector<TokenId> plain = tok_->Encode("<s>hi", kRaw);
  EXPECT_EQ(std::count(plain.begin(), plain.end(), kBos), 0);
  EXPECT_EQ(tok_->Decode(plain, kPlain), "<s>hi");
  // Parsed: the token itself; the text after it gets the dummy prefix again.
  EXPECT_EQ(tok_->Encode("<s>hi", {.add_special = false, .parse_special = true}),
            (std::vector<TokenId>{kBos, Id("\xE2\x96\x81hi")}));
  EXPECT_EQ(tok_->Encode("hi</s>", {.add_special = false, .parse_special = true}),
            (std::vector<TokenId>{Id("\xE2\x96\x81hi"), kEos}));
}

TEST_F(SpmTokenizerTest, DecodeSpecialTokensAndLeadingSpace) {
  const TokenId hello = Id("\xE2\x96\x81Hello");
  EXPECT_EQ(tok_->Decode(std::vector<TokenId>{hello}, kPlain), "Hello");  // dummy prefix removed
  // The first token (here BOS, printing nothing) takes the removal, as in llama.cpp.
  EXPECT_EQ(tok_->Decode(std::vector<TokenId>{kBos, hello, kEos}, kPlain), " Hello");
  EXPECT_EQ(tok_->Decode(std::vector<TokenId>{kBos, hello, kEos}, {.remove_special = true}), " Hello");
  EXPECT_EQ(tok_->Decode(std::vector<TokenId>{kBos, hello, kEos}, {.render_special = true}), "<s> Hello</s>");
  EXPECT_EQ(tok_->TokenToPiece(0, false, false), "");         // <unk>
  EXPECT_EQ(tok_->TokenToPiece(0, true, false), "<unk>");
  EXPECT_EQ(tok_->TokenToPiece(-1, true, false), "");
  EXPECT_EQ(tok_->TokenToPiece(32000, true, false), "");
  EXPECT_EQ(tok_->TokenToPiece(kSpace, false, true), "");
  EXPECT_EQ(tok_->TokenToPiece(kSpace, false, false), " ");
}

// Every reference text comes back unchanged: SentencePiece with byte
// fallback loses nothing, and Decode removes exactly the dummy prefix
// Encode added.
TEST_F(SpmTokenizerTest, RoundTripsEveryReferenceCase) {
  for (const std::string name : {"ggml-vocab-llama-spm.gguf", "llama2-tokenizer-test-c"}) {
    const std::string base = testing::VocabDataPath(name);
    const std::vector<testing::VocabCase> cases = testing::ReadVocabCases(base + ".inp", base + ".out");
    for (const testing::VocabCase& c : cases) {
      EXPECT_EQ(tok_->Decode(tok_->Encode(c.text, kRaw), kPlain), c.text);
      EXPECT_EQ(tok_->Decode(tok_->Encode(c.text, {.add_special = true}), {.remove_special = true}),
                c.text.empty() ? "" : " " + c.text)
          << "with BOS removed, the dummy prefix stays (llama.cpp)";
    }
  }
}

TEST_F(SpmTokenizerTest, RandomBytesRoundTrip) {
  // Any bytes, valid UTF-8 or not, come back: unknown characters and
  // invalid bytes go through byte tokens.
  std::mt19937 rng(7);
  const std::string bytes = std::string("ab <>s\n\t\xC3\xA9\xF0\x9F\xA6\x99\x80\xFF\xE4\xBD", 18);
  for (int iter = 0; iter < 500; ++iter) {
    std::string text(std::uniform_int_distribution<size_t>(0, 30)(rng), ' ');
    for (char& c : text) c = bytes[std::uniform_int_distribution<size_t>(0, bytes.size() - 1)(rng)];
    const std::vector<TokenId> ids = tok_->Encode(text, kRaw);
    for (TokenId id : ids) ASSERT_TRUE(tok_->vocab().Valid(id));
    ASSERT_EQ(tok_->Decode(ids, kPlain), text) << ::testing::PrintToString(text);
  }
}

TEST_F(SpmTokenizerTest, LiteralEscapedSpaceIsNotLossless) {
  // U+2581 in the input is indistinguishable from an escaped space, so it
  // decodes as ' ' (SentencePiece and llama.cpp do the same).
  EXPECT_EQ(tok_->Decode(tok_->Encode("a\xE2\x96\x81" "b", kRaw), kPlain), "a b");
}

TEST_F(SpmTokenizerTest, LongInputEncodesAndRoundTrips) {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "The quick brown fox, 1234 \xE4\xBD\xA0\xE5\xA5\xBD \xF0\x9F\xA6\x99!\n";
  const std::vector<TokenId> ids = tok_->Encode(text, kRaw);
  EXPECT_EQ(tok_->Decode(ids, kPlain), text);
}

TEST(SpmBundledModelTest, TokenizesAndDecodes) {
  std::unique_ptr<Tokenizer> tok = LoadTokenizer(testing::BundledModelPath());
  ASSERT_NE(tok, nullptr);
  EXPECT_EQ(tok->vocab().size(), 512);
  // Whole-word tokens of tok512: ▁Once 403, ▁upon 407, ▁a 261, ▁time 378.
  EXPECT_EQ(tok->Encode("Once upon a time", {.add_special = true}), (std::vector<TokenId>{1, 403, 407, 261, 378}));
  // ü (C3 BC) is not among the 512 tokens: byte fallback.
  ASSERT_EQ(tok->vocab().Find("\xC3\xBC"), kNoToken);
  const std::vector<TokenId> ids = tok->Encode("men\xC3\xBC", kRaw);
  ASSERT_GE(ids.size(), 2u);
  EXPECT_EQ(ids[ids.size() - 2], 3 + 0xC3);
  EXPECT_EQ(ids.back(), 3 + 0xBC);
  for (const std::string text : {"Once upon a time, there was a little girl named Lily.", "men\xC3\xBC caf\xC3\xA9", "", " "}) {
    EXPECT_EQ(tok->Decode(tok->Encode(text, kRaw), kPlain), text);
  }
}

}  // namespace
}  // namespace trit::tokenizer
