// PreTokenizer: hand-checked splits per pre type (derived from each regex by
// hand, not from running it), the flags per type, unknown names refused,
// and any bytes accepted.
#include "tokenizer/pretokenizer.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace trit::tokenizer {
namespace {

using Pieces = std::vector<std::string>;

Pieces Split(std::string_view pre, std::string_view text) {
  Expected<PreTokenizer> p = PreTokenizer::ForName(pre);
  EXPECT_TRUE(p.ok()) << p.status().message();
  if (!p.ok()) return {};
  std::vector<std::string_view> views;
  p->Split(text, &views);
  return {views.begin(), views.end()};
}

TEST(PreTokenizerGpt2, WordsContractionsNumbersWhitespace) {
  EXPECT_EQ(Split("gpt-2", "Hello world"), (Pieces{"Hello", " world"}));
  EXPECT_EQ(Split("gpt-2", "I've he's"), (Pieces{"I", "'ve", " he", "'s"}));
  EXPECT_EQ(Split("gpt-2", "I'VE"), (Pieces{"I", "'", "VE"}));  // GPT-2's contractions are lower case only
  EXPECT_EQ(Split("gpt-2", "  Hello"), (Pieces{" ", " Hello"}));
  EXPECT_EQ(Split("gpt-2", "a   b"), (Pieces{"a", "  ", " b"}));
  EXPECT_EQ(Split("gpt-2", "a  "), (Pieces{"a", "  "}));
  EXPECT_EQ(Split("gpt-2", "3333333 x"), (Pieces{"3333333", " x"}));
  EXPECT_EQ(Split("gpt-2", "!!!!!!"), (Pieces{"!!!!!!"}));
  EXPECT_EQ(Split("gpt-2", "Hello\n\n"), (Pieces{"Hello", "\n\n"}));
  EXPECT_EQ(Split("gpt-2", "a\tb"), (Pieces{"a", "\t", "b"}));
  // Emoji are neither letters nor numbers; CJK are letters.
  EXPECT_EQ(Split("gpt-2", "\xF0\x9F\x9A\x80 (normal)"), (Pieces{"\xF0\x9F\x9A\x80", " (", "normal", ")"}));
  EXPECT_EQ(Split("gpt-2", "\xE6\x88\x91\xE6\x83\xB3 apple"), (Pieces{"\xE6\x88\x91\xE6\x83\xB3", " apple"}));
  // U+0085 (NEL) is whitespace to Hugging Face and llama.cpp: two of them are
  // two whitespace pieces, not one run of "other" characters.
  EXPECT_EQ(Split("gpt-2", "\xC2\x85\xC2\x85" "b"), (Pieces{"\xC2\x85", "\xC2\x85", "b"}));
  // U+3000 (ideographic space) is whitespace too.
  EXPECT_EQ(Split("gpt-2", "a\xE3\x80\x80\xE3\x80\x80" "b"), (Pieces{"a", "\xE3\x80\x80", "\xE3\x80\x80", "b"}));
}

TEST(PreTokenizerLlama3, CaseInsensitiveContractionsAndThreeDigitGroups) {
  EXPECT_EQ(Split("llama-bpe", "Hello, y'all! How"), (Pieces{"Hello", ",", " y", "'all", "!", " How"}));
  EXPECT_EQ(Split("llama-bpe", "I'VE"), (Pieces{"I", "'VE"}));
  EXPECT_EQ(Split("llama-bpe", "3333333"), (Pieces{"333", "333", "3"}));
  EXPECT_EQ(Split("llama-bpe", " 12345"), (Pieces{" ", "123", "45"}));
  EXPECT_EQ(Split("llama-bpe", "  Hello"), (Pieces{" ", " Hello"}));
  EXPECT_EQ(Split("llama-bpe", "Hello\n\n world"), (Pieces{"Hello", "\n\n", " world"}));
  EXPECT_EQ(Split("llama-bpe", "x ...\ny"), (Pieces{"x", " ...\n", "y"}));
  EXPECT_EQ(Split("llama-bpe", "a   "), (Pieces{"a", "   "}));
}

TEST(PreTokenizerQwen2, SingleDigits) {
  EXPECT_EQ(Split("qwen2", "a3333"), (Pieces{"a", "3", "3", "3", "3"}));
  EXPECT_EQ(Split("qwen2", "it's"), (Pieces{"it", "'s"}));
  EXPECT_EQ(Split("deepseek-r1-qwen", "I'M"), (Pieces{"I", "'M"}));
}

// Qwen3.5 keeps combining marks in the word they follow; Qwen2 splits them
// off. The pieces are those of Hugging Face tokenizers' Split with each
// model's tokenizer.json regex (tokenizers 0.22, checked by hand here).
TEST(PreTokenizerQwen35, CombiningMarksStayInWords) {
  EXPECT_EQ(Split("qwen35", "nai\u0308ve cafe\u0301"), (Pieces{"nai\u0308ve", " cafe\u0301"}));
  EXPECT_EQ(Split("qwen2", "nai\u0308ve cafe\u0301"), (Pieces{"nai", "\u0308ve", " cafe", "\u0301"}));
  EXPECT_EQ(Split("qwen35", "\u0915\u093f\u0924\u093e\u092c"), (Pieces{"\u0915\u093f\u0924\u093e\u092c"}));
  EXPECT_EQ(Split("qwen2", "\u0915\u093f\u0924\u093e\u092c"),
            (Pieces{"\u0915", "\u093f\u0924", "\u093e\u092c"}));
  EXPECT_EQ(Split("qwen35", " \u0301x"), (Pieces{" \u0301x"}));
  EXPECT_EQ(Split("qwen35", "it's a3333"), (Pieces{"it", "'s", " a", "3", "3", "3", "3"}));
}

TEST(PreTokenizerStarcoder, DigitsFirstThenGpt2) {
  for (std::string_view pre : {"starcoder", "refact", "command-r", "smollm"}) {
    EXPECT_EQ(Split(pre, "w048 7tuijk"), (Pieces{"w", "0", "4", "8", " ", "7", "tuijk"})) << pre;
  }
}

TEST(PreTokenizerFalcon, PunctuationThenGpt2ThenThreeDigits) {
  EXPECT_EQ(Split("falcon", "3333 a...b"), (Pieces{"333", "3", " a", "...", "b"}));
  EXPECT_EQ(Split("falcon", "x`y"), (Pieces{"x", "`", "y"}));
}

TEST(PreTokenizerDefault, SymbolsDigitsThreeDigits) {
  EXPECT_EQ(Split("default", "a+b=3333"), (Pieces{"a", "+", "b", "=", "333", "3"}));
}

TEST(PreTokenizerDeepSeek, LlmLettersPunctuationCjk) {
  EXPECT_EQ(Split("deepseek-llm", "Hello world\n3"), (Pieces{"Hello", " world", "\n", "3"}));
  EXPECT_EQ(Split("deepseek-llm", "\xE6\x88\x91\xE6\x83\xB3\xE5\x9C\xA8" "apple"),
            (Pieces{"\xE6\x88\x91\xE6\x83\xB3\xE5\x9C\xA8", "apple"}));
  EXPECT_EQ(Split("deepseek-llm", "Hello  "), (Pieces{"Hello", "  "}));
  EXPECT_EQ(Split("deepseek-llm", "a, b"), (Pieces{"a", ",", " b"}));
  // U+1F7D, U+1FD3, U+2126, U+212A: letters of the class whose code points a
  // normalisation of the source would have changed; U+0628 (Arabic) is
  // outside it. (The later CJK regex's range U+0800..U+4E00 then keeps the
  // four together; a missing one would have been cut out of the run.)
  EXPECT_EQ(Split("deepseek-llm", "\xE1\xBD\xBD\xE1\xBF\x93\xE2\x84\xA6\xE2\x84\xAA\xD8\xA8"),
            (Pieces{"\xE1\xBD\xBD\xE1\xBF\x93\xE2\x84\xA6\xE2\x84\xAA", "\xD8\xA8"}));
  // The punctuation regex's range ':'..'~' holds the ASCII letters, so it cuts
  // ASCII letters off a run of other letters: "x\u1F7D" -> "x", "\u1F7D".
  EXPECT_EQ(Split("deepseek-llm", "x\xE1\xBD\xBD"), (Pieces{"x", "\xE1\xBD\xBD"}));
  // An Arabic letter is outside the class: it is left between matches.
  EXPECT_EQ(Split("deepseek-llm", "ab\xD8\xA8" "cd"), (Pieces{"ab", "\xD8\xA8", "cd"}));
}

TEST(PreTokenizerDeepSeek, CoderSingleDigits) {
  EXPECT_EQ(Split("deepseek-coder", "foo(bar)12"), (Pieces{"foo", "(", "bar", ")", "1", "2"}));
}

TEST(PreTokenizerOthers, CaseSplitsAndPossessives) {
  EXPECT_EQ(Split("tekken", "HelloWorld"), (Pieces{"Hello", "World"}));
  EXPECT_EQ(Split("gpt-4o", "HelloWorld's 12345"), (Pieces{"Hello", "World's", " ", "123", "45"}));
  EXPECT_EQ(Split("bailingmoe", "x'S"), (Pieces{"x", "'S"}));
  EXPECT_EQ(Split("poro-chat", "Hello, world."), (Pieces{"Hello", ",", " world", "."}));
}

TEST(PreTokenizer, FlagsPerType) {
  struct Row {
    std::string_view pre, type;
    bool clean_spaces, ignore_merges;
  };
  for (const Row& r : {Row{"gpt-2", "gpt2", true, false}, Row{"default", "default", true, false},
                       Row{"llama-bpe", "llama3", true, true}, Row{"llama3", "llama3", true, true},
                       Row{"qwen2", "qwen2", false, false}, Row{"qwen35", "qwen35", false, false}, Row{"megrez", "qwen2", true, false},
                       Row{"deepseek-llm", "deepseek-llm", false, false},
                       Row{"deepseek-coder", "deepseek-coder", false, false}, Row{"falcon", "falcon", true, false},
                       Row{"starcoder", "starcoder", true, false}, Row{"refact", "refact", true, false},
                       Row{"command-r", "command-r", false, false}, Row{"mpt", "mpt", true, false},
                       Row{"phi-2", "gpt2", true, false}, Row{"smollm", "smollm", false, false},
                       Row{"tekken", "tekken", false, true}}) {
    Expected<PreTokenizer> p = PreTokenizer::ForName(r.pre);
    ASSERT_TRUE(p.ok()) << r.pre;
    EXPECT_EQ(p->type_name(), r.type) << r.pre;
    EXPECT_EQ(p->clean_spaces(), r.clean_spaces) << r.pre;
    EXPECT_EQ(p->ignore_merges(), r.ignore_merges) << r.pre;
  }
}

TEST(PreTokenizer, UnknownNameIsRefusedByName) {
  Expected<PreTokenizer> p = PreTokenizer::ForName("xyz");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), ErrorCode::kUnsupported);
  const std::string m = p.status().message();
  EXPECT_TRUE(m.starts_with("tokenizer.ggml.pre 'xyz' is not supported (supported: ")) << m;
  EXPECT_NE(m.find("gpt-2"), std::string::npos) << m;
  EXPECT_NE(m.find("llama-bpe"), std::string::npos) << m;
  EXPECT_FALSE(PreTokenizer::ForName("").ok());
  EXPECT_FALSE(PreTokenizer::ForName("GPT-2").ok());  // names are exact
}

// Pieces are non-empty and concatenate to the input.
void ExpectCover(const PreTokenizer& p, std::string_view text) {
  std::vector<std::string_view> pieces;
  p.Split(text, &pieces);
  std::string joined;
  for (std::string_view piece : pieces) {
    EXPECT_FALSE(piece.empty());
    joined += piece;
  }
  EXPECT_EQ(joined, text);
}

TEST(PreTokenizer, EverySupportedNameCompilesAndCovers) {
  for (std::string_view name : PreTokenizer::SupportedNames()) {
    Expected<PreTokenizer> p = PreTokenizer::ForName(name);
    ASSERT_TRUE(p.ok()) << name;
    ExpectCover(*p, "Hello, y'all! 12345 \xE6\x88\x91 \xF0\x9F\x98\x81 \t\n\n  end  ");
  }
}

TEST(PreTokenizer, InvalidUtf8StaysBetweenMatches) {
  EXPECT_EQ(Split("gpt-2", "ab\xFF" "cd"), (Pieces{"ab", "\xFF", "cd"}));
  EXPECT_EQ(Split("gpt-2", "a \xFF"), (Pieces{"a", " ", "\xFF"}));
  EXPECT_EQ(Split("gpt-2", "\xE2\x82"), (Pieces{"\xE2\x82"}));  // truncated sequence
  EXPECT_EQ(Split("llama-bpe", "x\xC0\x80y"), (Pieces{"x", "\xC0\x80", "y"}));  // overlong NUL
  EXPECT_EQ(Split("gpt-2", ""), Pieces{});
  std::mt19937 rng(42);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> len(1, 64);
  for (std::string_view name : PreTokenizer::SupportedNames()) {
    Expected<PreTokenizer> p = PreTokenizer::ForName(name);
    ASSERT_TRUE(p.ok());
    for (int i = 0; i < 200; ++i) {
      std::string s(static_cast<size_t>(len(rng)), '\0');
      for (char& c : s) c = static_cast<char>(byte(rng));
      ExpectCover(*p, s);
    }
  }
}

TEST(PreTokenizer, LongWhitespaceRunsDoNotExhaustTheMatcher) {
  for (std::string_view name : {"gpt-2", "llama-bpe", "qwen2", "deepseek-llm", "gpt-4o"}) {
    Expected<PreTokenizer> p = PreTokenizer::ForName(name);
    ASSERT_TRUE(p.ok());
    const std::string text = std::string(1 << 20, ' ') + "a" + std::string(1 << 16, '\t') + "\n";
    std::vector<std::string_view> pieces;
    p->Split(text, &pieces);
    std::string joined;
    for (std::string_view piece : pieces) joined += piece;
    EXPECT_EQ(joined, text) << name;
    EXPECT_LE(pieces.size(), 8u) << name;  // runs stay runs
  }
}

}  // namespace
}  // namespace trit::tokenizer
