// WordPiece tokenization (src/tokenizer/wpm_tokenizer.cpp) on the BERT
// vocabulary of BAAI/bge-small-en-v1.5 (tests/data/vocab/ggml-vocab-bert-bge.gguf),
// whose GGUF writes word-initial pieces as "▁piece" and "##piece" as "piece".
#include <gtest/gtest.h>

#include <random>

#include "formats/gguf/reader.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/vocab_test_data.h"

namespace trit::tokenizer {
namespace {

constexpr EncodeOptions kRaw = {.add_special = false, .parse_special = false};
constexpr DecodeOptions kPlain = {};

class WpmTokenizerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Expected<gguf::File> file = gguf::File::Open(testing::VocabDataPath("ggml-vocab-bert-bge.gguf"));
    if (!file.ok()) return;
    Expected<std::unique_ptr<Tokenizer>> t = Tokenizer::FromGguf(*file);
    if (t.ok()) tok_ = std::move(t).value().release();
  }
  static void TearDownTestSuite() {
    delete tok_;
    tok_ = nullptr;
  }
  void SetUp() override { ASSERT_NE(tok_, nullptr); }
  // The id of a word-initial piece ("▁" + word).
  TokenId Word(std::string_view word) const {
    const TokenId id = tok_->vocab().Find("\xE2\x96\x81" + std::string(word));
    EXPECT_NE(id, kNoToken) << word;
    return id;
  }
  static Tokenizer* tok_;
};
Tokenizer* WpmTokenizerTest::tok_ = nullptr;

constexpr TokenId kUnk = 100, kCls = 101, kSep = 102;

TEST_F(WpmTokenizerTest, VocabularyFacts) {
  EXPECT_EQ(tok_->vocab().model(), ModelType::kWpm);
  EXPECT_EQ(tok_->vocab().text(kUnk), "[UNK]");
  EXPECT_EQ(tok_->vocab().text(kCls), "[CLS]");
  EXPECT_EQ(tok_->vocab().text(kSep), "[SEP]");
  EXPECT_TRUE(tok_->clean_spaces());
}

TEST_F(WpmTokenizerTest, EmptyAndWhitespaceOnly) {
  EXPECT_EQ(tok_->Encode("", kRaw), std::vector<TokenId>{});
  EXPECT_EQ(tok_->Encode(" \t\n\xE3\x80\x80 ", kRaw), std::vector<TokenId>{});  // U+3000 is White_Space
  EXPECT_EQ(tok_->Encode("", {.add_special = true}), (std::vector<TokenId>{kCls, kSep}));
}

TEST_F(WpmTokenizerTest, LowercasesSplitsPunctuationAndAddsClsSep) {
  const std::vector<TokenId> hello_world = {Word("hello"), Word(","), Word("world"), Word("!")};
  EXPECT_EQ(tok_->Encode("Hello, WORLD!", kRaw), hello_world);
  std::vector<TokenId> with_special = hello_world;
  with_special.insert(with_special.begin(), kCls);
  with_special.push_back(kSep);
  EXPECT_EQ(tok_->Encode("Hello, WORLD!", {.add_special = true}), with_special);
}

TEST_F(WpmTokenizerTest, StripsAccentsAfterNfd) {
  // "Ünïcödé" -> NFD -> marks (Mn) dropped -> "unicode".
  EXPECT_EQ(tok_->Encode("\xC3\x9Cn\xC3\xAF" "c\xC3\xB6" "d\xC3\xA9", kRaw), std::vector<TokenId>{Word("unicode")});
  // The same text already decomposed gives the same.
  EXPECT_EQ(tok_->Encode("U\xCC\x88nic\xCC\xA7ode", kRaw), std::vector<TokenId>{Word("unicode")});
}

TEST_F(WpmTokenizerTest, DropsControlCharacters) {
  // U+200D ZERO WIDTH JOINER (Cf) and U+0007 (Cc) vanish without splitting the word.
  EXPECT_EQ(tok_->Encode("hel\xE2\x80\x8Dlo\x07", kRaw), std::vector<TokenId>{Word("hello")});
}

TEST_F(WpmTokenizerTest, ContinuationPiecesAndUnknownWords) {
  // "tokenization" is "token" + "##ization" in BERT's vocabulary.
  const TokenId ization = tok_->vocab().Find("ization");
  ASSERT_NE(ization, kNoToken);
  EXPECT_EQ(tok_->Encode("tokenization", kRaw), (std::vector<TokenId>{Word("token"), ization}));
  // A word with a character no piece covers is one [UNK] as a whole.
  EXPECT_EQ(tok_->Encode("ab\xF0\x9F\xA6\x99" "cd", kRaw), std::vector<TokenId>{kUnk});
  EXPECT_EQ(tok_->Encode("x \xF0\x9F\xA6\x99 y", kRaw), (std::vector<TokenId>{Word("x"), kUnk, Word("y")}));
}

TEST_F(WpmTokenizerTest, CjkIdeographsAreWordsOfTheirOwn) {
  // 我想 -> two words (想 is not in this vocabulary: [UNK]); ASCII symbols split too.
  ASSERT_EQ(tok_->vocab().Find("\xE2\x96\x81\xE6\x83\xB3"), kNoToken);
  const std::vector<TokenId> ids = tok_->Encode("\xE6\x88\x91\xE6\x83\xB3" "a+b", kRaw);
  EXPECT_EQ(ids, (std::vector<TokenId>{Word("\xE6\x88\x91"), kUnk, Word("a"), Word("+"), Word("b")}));
}

TEST_F(WpmTokenizerTest, SpecialTokensAreTextUnlessParsed) {
  // "cls" is "cl" + "##s".
  EXPECT_EQ(tok_->Encode("[CLS]", kRaw),
            (std::vector<TokenId>{Word("["), Word("cl"), tok_->vocab().Find("s"), Word("]")}));
  EXPECT_EQ(tok_->Encode("[CLS] hi [SEP]", {.add_special = false, .parse_special = true}),
            (std::vector<TokenId>{kCls, Word("hi"), kSep}));
}

TEST_F(WpmTokenizerTest, RandomBytesGiveValidIds) {
  std::mt19937 rng(7);
  const std::string bytes = std::string("aB ,'.\n\t\xC3\xA9\xCC\x81\xF0\x9F\xA6\x99\x80\xFF\xE4\xBD\x00", 21);
  for (int iter = 0; iter < 500; ++iter) {
    std::string text(std::uniform_int_distribution<size_t>(0, 30)(rng), ' ');
    for (char& c : text) c = bytes[std::uniform_int_distribution<size_t>(0, bytes.size() - 1)(rng)];
    for (TokenId id : tok_->Encode(text, kRaw)) ASSERT_TRUE(tok_->vocab().Valid(id)) << ::testing::PrintToString(text);
  }
}

TEST_F(WpmTokenizerTest, DecodeCleansSpacesAsLlamaCpp) {
  // Word-initial pieces print a leading space (llama.cpp keeps it: WordPiece
  // has no dummy prefix to remove); spaces before , ! and 's go.
  EXPECT_EQ(tok_->Decode(tok_->Encode("Hello, world!", kRaw), kPlain), " hello, world!");
  EXPECT_EQ(tok_->Decode(tok_->Encode("It's tokenization", kRaw), kPlain), " it's tokenization");
  EXPECT_EQ(tok_->Decode(tok_->Encode("hi", {.add_special = true}), kPlain), " hi");
  EXPECT_EQ(tok_->Decode(tok_->Encode("hi", {.add_special = true}), {.render_special = true}), "[CLS] hi[SEP]");
}

}  // namespace
}  // namespace trit::tokenizer
