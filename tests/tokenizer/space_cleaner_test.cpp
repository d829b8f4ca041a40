// llama.cpp's clean-up of spaces (src/tokenizer/space_cleaner.*), whole and
// in pieces, against a literal transcription of llama.cpp's three in-place
// passes over a byte buffer.
#include "tokenizer/space_cleaner.h"

#include <gtest/gtest.h>

#include <random>

namespace trit::tokenizer {
namespace {

// llama_vocab::impl::detokenize's clean_spaces block, pass by pass, on a buffer.
std::string ReferenceCleanSpaces(std::string text) {
  size_t total = text.size();
  // Pass 1: " ?" " !" " ." " ,".
  {
    const size_t n = total;
    total = n ? 1 : 0;
    for (size_t i = 1; i < n; ++i) {
      const char x = text[i];
      if (text[i - 1] == ' ' && (x == '?' || x == '!' || x == '.' || x == ',')) --total;
      text[total++] = x;
    }
  }
  // Pass 2: " ' " (the next space is consumed by overwriting it with NUL).
  {
    const size_t n = total;
    total = n ? 1 : 0;
    for (size_t i = 1; i < n; ++i) {
      const char x = text[i];
      if (x == '\'' && i + 1 < n && text[i - 1] == ' ' && text[i + 1] == ' ') {
        --total;
        text[++i] = '\0';
      }
      text[total++] = x;
    }
  }
  // Pass 3: " 's" " 'm" " 're" " 've".
  {
    const size_t n = total;
    total = n ? 1 : 0;
    for (size_t i = 1; i < n; ++i) {
      const char x = text[i];
      if (text[i - 1] == ' ' && x == '\'' && i + 1 < n) {
        const char x1 = text[i + 1];
        if (x1 == 's' || x1 == 'm') {
          --total;
        } else if (x1 != 't' && x1 != 'd' && i + 2 < n) {
          const char x2 = text[i + 2];
          if ((x1 == 'r' && x2 == 'e') || (x1 == 'v' && x2 == 'e')) --total;
        }
      }
      text[total++] = x;
    }
  }
  text.resize(total);
  return text;
}

TEST(SpaceCleanerTest, HandCheckedCases) {
  EXPECT_EQ(CleanSpaces(""), "");
  EXPECT_EQ(CleanSpaces(" "), " ");
  EXPECT_EQ(CleanSpaces(" hello , world !"), " hello, world!");
  EXPECT_EQ(CleanSpaces("a ."), "a.");
  EXPECT_EQ(CleanSpaces(" ."), ".");
  EXPECT_EQ(CleanSpaces("a  ."), "a .");  // only the space right before
  EXPECT_EQ(CleanSpaces("y ' all"), "y'all");
  EXPECT_EQ(CleanSpaces("a ' ' b"), "a'' b");  // matches do not overlap
  EXPECT_EQ(CleanSpaces("it 's"), "it's");
  EXPECT_EQ(CleanSpaces("i 'm"), "i'm");
  EXPECT_EQ(CleanSpaces("we 're"), "we're");
  EXPECT_EQ(CleanSpaces("we 've"), "we've");
  EXPECT_EQ(CleanSpaces("don 't"), "don 't");
  EXPECT_EQ(CleanSpaces("i 'll"), "i 'll");
  EXPECT_EQ(CleanSpaces("i 'd"), "i 'd");
  EXPECT_EQ(CleanSpaces("a '"), "a '");
  EXPECT_EQ(CleanSpaces("a 'r"), "a 'r");
  EXPECT_EQ(CleanSpaces("\xC3\xA9 ."), "\xC3\xA9.");
}

TEST(SpaceCleanerTest, MatchesLlamaCppOnRandomTextInRandomPieces) {
  std::mt19937 rng(1234);
  const std::string alphabet = " ' .?,!smrvetdla";
  std::uniform_int_distribution<size_t> pick(0, alphabet.size() - 1);
  std::uniform_int_distribution<size_t> length(0, 24);
  for (int iter = 0; iter < 20000; ++iter) {
    std::string text(length(rng), ' ');
    for (char& c : text) c = alphabet[pick(rng)];
    const std::string expected = ReferenceCleanSpaces(text);
    ASSERT_EQ(CleanSpaces(text), expected) << "'" << text << "'";

    SpaceCleaner cleaner;
    std::string streamed;
    for (size_t i = 0; i < text.size();) {
      const size_t n = std::uniform_int_distribution<size_t>(0, 4)(rng);
      cleaner.Push(std::string_view(text).substr(i, n), &streamed);
      i += n;
    }
    cleaner.Finish(&streamed);
    ASSERT_EQ(streamed, expected) << "'" << text << "'";
  }
}

TEST(SpaceCleanerTest, FinishStartsAfresh) {
  SpaceCleaner cleaner;
  std::string out;
  cleaner.Push("a ", &out);
  cleaner.Finish(&out);
  cleaner.Push(". b", &out);
  cleaner.Finish(&out);
  EXPECT_EQ(out, "a . b");
}

}  // namespace
}  // namespace trit::tokenizer
