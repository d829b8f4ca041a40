// Tests of src/chat/lexer.*: jinja2's whitespace rules with HF's settings.
#include "chat/lexer.h"

#include <gtest/gtest.h>

namespace trit::chat {
namespace {

// The text tokens joined, with "|" between tokens of other kinds.
std::string Texts(std::string_view source) {
  std::string out;
  for (const Token& t : Tokenize(source)) {
    if (t.kind == TokenKind::kText) out += t.text;
    else if (t.kind == TokenKind::kBlockBegin || t.kind == TokenKind::kVarBegin) out += "|";
  }
  return out;
}

TEST(ChatLexer, TrimBlocksDropsOneNewlineAfterBlockTags) {
  EXPECT_EQ(Texts("{% if x %}\nA\n{% endif %}\nB"), "|A\n|B");
  EXPECT_EQ(Texts("{% if x %}\n\nA{% endif %}"), "|\nA|");  // only one newline
  EXPECT_EQ(Texts("{{ x }}\nA"), "|\nA");                  // not after {{ }}
  EXPECT_EQ(Texts("{# c #}\nA"), "A");                      // comments too
}

TEST(ChatLexer, LstripBlocksRemovesIndentBeforeBlockTagsOnly) {
  EXPECT_EQ(Texts("A\n    {% if x %}B"), "A\n|B");
  EXPECT_EQ(Texts("A\n    {{ x }}B"), "A\n    |B");
  EXPECT_EQ(Texts("A  {% if x %}B"), "A  |B");  // not at the start of a line
  EXPECT_EQ(Texts("  {% if x %}B"), "|B");       // start of template counts
  EXPECT_EQ(Texts("A\n  {%+ if x %}B"), "A\n  |B");
}

TEST(ChatLexer, MinusStripsAllWhitespaceOnThatSide) {
  EXPECT_EQ(Texts("A \n\t {%- if x -%} \n\n B"), "A|B");
  EXPECT_EQ(Texts("A\n{{- x -}}\n B"), "A|B");
  EXPECT_EQ(Texts("A {#- c -#} B"), "AB");
}

TEST(ChatLexer, TrailingNewlineOfTemplateIsDroppedAndCrlfNormalized) {
  EXPECT_EQ(Texts("A\r\nB\n"), "A\nB");
  EXPECT_EQ(Texts("A\n\n"), "A\n");
}

TEST(ChatLexer, ExpressionTokens) {
  const std::vector<Token> tokens = Tokenize("{{ a.b[0] // 2 ** -1.5e3 ~ 'x' != \"y\" }}");
  std::vector<std::string> texts;
  for (const Token& t : tokens) texts.push_back(t.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"{{", "a", ".", "b", "[", "0", "]", "//", "2", "**", "-", "1.5e3", "~",
                                              "x", "!=", "y", "}}", ""}));
  EXPECT_EQ(tokens[11].kind, TokenKind::kFloat);
  EXPECT_EQ(tokens[13].kind, TokenKind::kString);
}

TEST(ChatLexer, EndDelimiterInsideBracketsIsNotAnEnd) {
  const std::vector<Token> tokens = Tokenize("{{ {'a': {'b': 1}} }}");
  EXPECT_EQ(tokens[tokens.size() - 2].kind, TokenKind::kVarEnd);
  EXPECT_EQ(tokens.size(), 12u);
}

TEST(ChatLexer, StringEscapesFollowPython) {
  EXPECT_EQ(DecodeStringEscapes(R"(a\nb\t\\\'\x41\u00e9\d)"), "a\nb\t\\'A\xc3\xa9\\d");
  EXPECT_EQ(DecodeStringEscapes(R"(\101\0)"), std::string("A\0", 2));
}

TEST(ChatLexer, ErrorsNameLineAndColumn) {
  try {
    Tokenize("ok\n  {{ 'abc }}");
    FAIL() << "expected an error";
  } catch (const TemplateError& e) {
    EXPECT_EQ(e.pos().line, 2);
    EXPECT_EQ(e.pos().column, 6);
    EXPECT_NE(std::string(e.what()).find("unterminated string"), std::string::npos);
  }
  EXPECT_THROW(Tokenize("{% if x"), TemplateError);
  EXPECT_THROW(Tokenize("{# open"), TemplateError);
  EXPECT_THROW(Tokenize("{{ a ) }}"), TemplateError);
  EXPECT_THROW(Tokenize("{{ a ; b }}"), TemplateError);
}

}  // namespace
}  // namespace trit::chat
