#include "grammar/gbnf.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/grammar.h"
#include "grammar/matcher.h"

namespace trit::grammar {
namespace {

// The grammar of `text`; nullptr (and a test failure) when it does not parse.
std::shared_ptr<const Grammar> Parse(std::string_view text) {
  Expected<std::shared_ptr<const Grammar>> grammar = ParseGbnf(text);
  EXPECT_TRUE(grammar.ok()) << text << "\n" << grammar.status().message();
  return grammar.ok() ? *grammar : nullptr;
}

// The message of the error `text` gives (and a test failure when it parses
// or the error is not kInvalidArgument).
std::string ParseError(std::string_view text) {
  Expected<std::shared_ptr<const Grammar>> grammar = ParseGbnf(text);
  EXPECT_FALSE(grammar.ok()) << text.substr(0, 200) << "\nparsed as\n" << (grammar.ok() ? (*grammar)->ToString() : "");
  if (grammar.ok()) return "";
  EXPECT_EQ(grammar.status().code(), ErrorCode::kInvalidArgument);
  return grammar.status().message();
}

void ExpectContains(const std::string& message, std::string_view what) {
  EXPECT_NE(message.find(what), std::string::npos) << "message: " << message << "\nexpected to contain: " << what;
}

// Every `accept` text matches the grammar of `text` and no `reject` one does.
void ExpectLanguage(std::string_view text, const std::vector<std::string>& accept,
                    const std::vector<std::string>& reject) {
  std::shared_ptr<const Grammar> g = Parse(text);
  ASSERT_NE(g, nullptr);
  for (const std::string& s : accept) {
    EXPECT_TRUE(Matches(g, s)) << "grammar:\n" << text << "\nshould accept '" << s << "'";
  }
  for (const std::string& s : reject) {
    EXPECT_FALSE(Matches(g, s)) << "grammar:\n" << text << "\nshould reject '" << s << "'";
  }
}

// n copies of `s`.
std::string Times(std::string_view s, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

TEST(GbnfTest, SequencesAndAlternatives) {
  ExpectLanguage(R"(root ::= "a" "b" [c])", {"abc"}, {"", "ab", "abcc", "acb", "bc"});
  ExpectLanguage(R"(root ::= "a" | "b" "c" | "")", {"", "a", "bc"}, {"b", "c", "ac", "abc", "aa"});
  // An empty first alternative.
  ExpectLanguage(R"(root ::= | "x")", {"", "x"}, {"xx"});
  // Rules may be used before they are defined; names hold letters, digits and '-'.
  ExpectLanguage("root ::= my-Rule2 tail\nmy-Rule2 ::= \"x\"\ntail ::= \"y\" | \"z\"\n", {"xy", "xz"},
                 {"x", "y", "xyz"});
}

TEST(GbnfTest, Groups) {
  ExpectLanguage(R"(root ::= ("a" | "b") "c")", {"ac", "bc"}, {"c", "abc", "a"});
  ExpectLanguage(R"(root ::= ( ( "a" ) ( "b" | ( "c" "d" ) ) ))", {"ab", "acd"}, {"a", "ac", "abcd"});
  // Inside a group, newlines (and comments) are spaces.
  ExpectLanguage("root ::= (\n    \"a\"   # the first\n  | \"b\"\n\n  ) \"c\"\n", {"ac", "bc"}, {"c", "abc"});
  // An empty group is an empty sequence.
  ExpectLanguage(R"(root ::= "a" () "b")", {"ab"}, {"a"});
}

TEST(GbnfTest, Repetitions) {
  ExpectLanguage(R"(root ::= "a"*)", {"", "a", "aaaa"}, {"b", "ab"});
  ExpectLanguage(R"(root ::= "a"+)", {"a", "aaaa"}, {"", "b"});
  ExpectLanguage(R"(root ::= "a"?)", {"", "a"}, {"aa"});
  ExpectLanguage(R"(root ::= "a"{3})", {"aaa"}, {"", "aa", "aaaa"});
  ExpectLanguage(R"(root ::= "a"{2,})", {"aa", "aaa", "aaaaaaa"}, {"", "a"});
  ExpectLanguage(R"(root ::= "a"{1,3})", {"a", "aa", "aaa"}, {"", "aaaa"});
  ExpectLanguage(R"(root ::= "a"{,2})", {"", "a", "aa"}, {"aaa"});
  ExpectLanguage(R"(root ::= "a"{0} "b")", {"b"}, {"ab"});
  ExpectLanguage(R"(root ::= "a"{0,0} "b")", {"b"}, {"ab"});
  ExpectLanguage(R"(root ::= "a"{ 2 , 3 })", {"aa", "aaa"}, {"a", "aaaa"});
  // A literal of several characters repeats as a whole.
  ExpectLanguage(R"(root ::= "ab"*)", {"", "ab", "abab"}, {"a", "aba", "abb"});
  ExpectLanguage(R"(root ::= "ab"{2})", {"abab"}, {"ab", "ababab"});
  ExpectLanguage(R"(root ::= "ab"{1,2} "c")", {"abc", "ababc"}, {"c", "abababc", "abac"});
  // Groups, rules and classes repeat too.
  ExpectLanguage(R"(root ::= ("a" | "bc")+)", {"a", "bc", "abca", "bcbc"}, {"", "b", "ac"});
  ExpectLanguage("root ::= x{2,3}\nx ::= \"x\" | \"yy\"\n", {"xx", "xyy", "yyxyy"}, {"x", "xxxx", "y"});
  ExpectLanguage(R"(root ::= [0-9]{1,3} "." [0-9]{2})", {"1.25", "123.00"}, {".25", "1234.00", "1.2"});
  // A repetition of a repetition repeats what the first made.
  ExpectLanguage(R"(root ::= "a"{2}{3})", {"aaaaaa"}, {"aa", "aaaa", "aaaaaaa"});
  ExpectLanguage(R"(root ::= "a"{2}*)", {"", "aa", "aaaa"}, {"a", "aaa"});
  // ""* is "".
  ExpectLanguage(R"(root ::= ""* "x")", {"x"}, {""});
}

TEST(GbnfTest, BoundedRepetitionsAreChainsOfOptionalHelpers) {
  // x{0,3}: one helper per optional copy, each calling the next.
  std::shared_ptr<const Grammar> g = Parse(R"(root ::= "a"{0,3})");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->n_rules(), 4u);
  EXPECT_EQ(g->ToString(),
            "root ::= root_1\n"
            "root_1 ::= \"a\" root_2 | \"\"\n"
            "root_2 ::= \"a\" root_3 | \"\"\n"
            "root_3 ::= \"a\" | \"\"\n");
}

TEST(GbnfTest, LiteralsAndEscapes) {
  ExpectLanguage(R"(root ::= "hello, world")", {"hello, world"}, {"hello,world", "hello, world!"});
  ExpectLanguage(R"(root ::= "")", {""}, {" "});
  ExpectLanguage(R"(root ::= "\n\r\t\\\"\'\[\]\-\^\/")", {"\n\r\t\\\"'[]-^/"}, {"\\n"});
  ExpectLanguage(R"(root ::= "\x41\x7a\x00")", {std::string("Az\0", 3)}, {"Az"});
  ExpectLanguage(R"(root ::= "\u00e9\u00E9\u20AC")", {"\xc3\xa9\xc3\xa9\xe2\x82\xac"}, {"ee\xe2\x82\xac"});
  ExpectLanguage(R"(root ::= "\U0001F600\U0010FFFF")", {"\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf"}, {"\xf0\x9f\x98\x80"});
  // Raw UTF-8 and characters that need no escape.
  ExpectLanguage("root ::= \"h\xc3\xa9 \xf0\x9f\x98\x80 # [x] 'q' |\"", {"h\xc3\xa9 \xf0\x9f\x98\x80 # [x] 'q' |"},
                 {"he \xf0\x9f\x98\x80 # [x] 'q' |"});
}

TEST(GbnfTest, CharacterClasses) {
  ExpectLanguage(R"(root ::= [a-c])", {"a", "b", "c"}, {"", "d", "`", "ab", "A"});
  ExpectLanguage(R"(root ::= [a-cx-z0-9_])", {"a", "c", "x", "z", "0", "9", "_"}, {"d", "w", "-", "A"});
  // A '-' first or last is itself.
  ExpectLanguage(R"(root ::= [-a] [a-])", {"-a", "a-", "--", "aa"}, {"b-", "-b"});
  // Escapes inside classes.
  ExpectLanguage(R"(root ::= [\n\t\]\-\^\\\[])", {"\n", "\t", "]", "-", "^", "\\", "["}, {"n", "t", " "});
  ExpectLanguage(R"(root ::= [\x41-\x43])", {"A", "B", "C"}, {"D", "@"});
  ExpectLanguage(R"(root ::= [\u00e0-\u00FF])", {"\xc3\xa0", "\xc3\xbf"}, {"\xc3\x9f", "\xc4\x80", "a"});
  ExpectLanguage(R"(root ::= [\U0001F600-\U0001F64F])", {"\xf0\x9f\x98\x80", "\xf0\x9f\x99\x8f"},
                 {"\xf0\x9f\x99\x90", "\xf0\x9f\x97\xbf"});
  ExpectLanguage("root ::= [\xc3\xa0-\xc3\xbf\xce\xb1-\xcf\x89]", {"\xc3\xa9", "\xce\xb2"}, {"e", "\xc3\x9f"});
  // Overlapping and adjacent ranges merge.
  std::shared_ptr<const Grammar> g = Parse(R"(root ::= [a-cb-dfe])");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->ToString(), "root ::= [a-f]\n");
  // A '^' not first is itself; a "^" first negates.
  ExpectLanguage(R"(root ::= [a^])", {"a", "^"}, {"b"});
}

TEST(GbnfTest, NegatedClassesAndAnyCharacter) {
  ExpectLanguage(R"(root ::= [^a-c])", {"d", "A", "\n", "\xc3\xa9", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf"},
                 {"a", "b", "c", "", "dd"});
  ExpectLanguage(R"(root ::= [^"\\])", {"a", "'"}, {"\"", "\\"});
  ExpectLanguage(R"(root ::= [^\x00-\x7F])", {"\xc2\x80", "\xef\xbf\xbf"}, {"a", std::string(1, '\0')});
  ExpectLanguage(R"(root ::= .)", {"a", "\n", std::string(1, '\0'), "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"},
                 {"", "ab", "\xc3\xa9\xc3\xa9"});
  ExpectLanguage(R"(root ::= "<" .* ">")", {"<>", "<a>b>", "<\xc3\xa9>"}, {"<", "a<>"});
  // The negation covers all of U+0000..U+10FFFF (surrogates are never text).
  std::shared_ptr<const Grammar> g = Parse(R"(root ::= [^b])");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->ToString(), "root ::= [\\x00-ac-\\U0010FFFF]\n");
}

TEST(GbnfTest, CommentsAndNewlines) {
  ExpectLanguage("# a comment first\n\nroot ::= \"a\" # after a rule\n# between rules\n  \n", {"a"}, {""});
  // A newline right after '::=' or '|' continues the rule.
  ExpectLanguage("root ::=\n  \"a\" |\n  \"b\"\n", {"a", "b"}, {"", "ab"});
  ExpectLanguage("root ::=   # comment after ::=\n  \"a\" | # comment after |\n  \"b\"", {"a", "b"}, {""});
  // Windows line ends and tabs.
  ExpectLanguage("root ::=\t\"a\" x\r\nx ::= \"b\"\r\n\r\n", {"ab"}, {"a"});
  ExpectLanguage("root ::= \"a\" x\rx ::= \"b\"\r", {"ab"}, {"a"});
  // Elsewhere a newline ends the rule: a '|' on the next line starts nothing.
  EXPECT_EQ(ParseError("root ::= \"a\"\n  | \"b\"\n"), "2:3: expected a rule name, found '|'");
  // '#' inside literals and classes is a character.
  ExpectLanguage(R"(root ::= "#" [#])", {"##"}, {"#"});
}

TEST(GbnfTest, SyntaxErrorsGiveLineColumnAndWhatWasExpected) {
  EXPECT_EQ(ParseError("root ::= \"a\"\nfoo ::= [a"), "2:9: this character class has no closing ']'");
  EXPECT_EQ(ParseError("root = \"a\""), "1:6: expected '::=' after the rule name 'root', found '='");
  EXPECT_EQ(ParseError("root ::= \"a\"\nx\n"),
            "2:2: expected '::=' after the rule name 'x', found the end of the line");
  EXPECT_EQ(ParseError("root ::= \"a\" ]"),
            "1:14: expected a symbol, '|', a newline or the end of the text in rule 'root', found ']'");
  EXPECT_EQ(ParseError("root ::= \"a\"\n\n  ::= \"b\""), "3:3: expected a rule name, found ':'");
  EXPECT_EQ(ParseError("root ::= \"abc"), "1:10: this string literal has no closing '\"'");
  EXPECT_EQ(ParseError("root ::= ( \"a\" | \"b\""),
            "1:21: expected ')' to close the group opened at 1:10, found the end of the text");
  EXPECT_EQ(ParseError("root ::= (\"a\"\n  \"b\" ]"),
            "2:7: expected ')' to close the group opened at 1:10, found ']'");
  EXPECT_EQ(ParseError("root ::= *\"a\""), "1:10: expected a symbol before the repetition '*'");
  EXPECT_EQ(ParseError("root ::= \"a\" | +"), "1:16: expected a symbol before the repetition '+'");
  EXPECT_EQ(ParseError("root ::= \"a\"{"), "1:14: expected a count or ',' after '{', found the end of the text");
  EXPECT_EQ(ParseError("root ::= \"a\"{x}"), "1:14: expected a count or ',' after '{', found 'x'");
  EXPECT_EQ(ParseError("root ::= \"a\"{2"), "1:15: expected '}' to close the repetition, found the end of the text");
  EXPECT_EQ(ParseError("root ::= \"a\"{2,3,4}"), "1:17: expected '}' to close the repetition, found ','");
  EXPECT_EQ(ParseError("root ::= \"a\"{3,2}"), "1:13: the repetition {3,2} has its maximum below its minimum");
  EXPECT_EQ(ParseError("root ::= [z-a]"), "1:11: the range U+007A-U+0061 is reversed");
  EXPECT_EQ(ParseError("root ::= \"a\\q\""), "1:12: unknown escape '\\' followed by 'q'");
  EXPECT_EQ(ParseError("root ::= \"\\x4G\""), "1:14: expected 2 hex digits after '\\x', found 'G'");
  EXPECT_EQ(ParseError("root ::= [\\u12]"), "1:15: expected 4 hex digits after '\\u', found ']'");
  EXPECT_EQ(ParseError("root ::= \"\\U0010FFF\""), "1:20: expected 8 hex digits after '\\U', found '\"'");
  EXPECT_EQ(ParseError("root ::= \"\\U00110000\""), "1:11: the escape names 0x110000, past U+10FFFF");
  EXPECT_EQ(ParseError("root ::= \"\\"), "1:11: the escape '\\' is unfinished at the end of the text");
  EXPECT_EQ(ParseError("root ::= \"\\\""), "1:10: this string literal has no closing '\"'");
}

TEST(GbnfTest, InvalidUtf8InTheTextIsRefused) {
  EXPECT_EQ(ParseError("root ::= \"\xc3(\""), "1:11: invalid UTF-8 in the grammar text (an unfinished character)");
  EXPECT_EQ(ParseError("root ::= \"\xff\""), "1:11: invalid UTF-8 in the grammar text (byte 0xFF)");
  EXPECT_EQ(ParseError("root ::= \"\xc0\x80\""), "1:11: invalid UTF-8 in the grammar text (byte 0xC0)");
  EXPECT_EQ(ParseError("root ::= [\xe0\x80\x80]"),
            "1:11: invalid UTF-8 in the grammar text (an overlong form or a surrogate)");
  EXPECT_EQ(ParseError("root ::= \"\xed\xa0\x80\""),
            "1:11: invalid UTF-8 in the grammar text (an overlong form or a surrogate)");
  EXPECT_EQ(ParseError("root ::= \"\xf4\x90\x80\x80\""),
            "1:11: invalid UTF-8 in the grammar text (an overlong form or a surrogate)");
  EXPECT_EQ(ParseError("root ::= \"\x80\""), "1:11: invalid UTF-8 in the grammar text (byte 0x80)");
  EXPECT_EQ(ParseError("root ::= \xe2\x82\xac"),
            "1:10: expected a symbol, '|', a newline or the end of the text in rule 'root', found byte 0xE2");
}

TEST(GbnfTest, UndefinedAndDuplicateRulesAreNamed) {
  EXPECT_EQ(ParseError("root ::= foo"), "1:10: rule 'foo' is used but never defined");
  EXPECT_EQ(ParseError("root ::= \"a\" | x\nx ::= \"b\" y y\n"), "2:11: rule 'y' is used but never defined");
  EXPECT_EQ(ParseError("root ::= \"a\"\nroot ::= \"b\""), "2:1: rule 'root' is defined twice (first at 1:1)");
  EXPECT_EQ(ParseError("root ::= x\nx ::= \"a\"\n\n  x ::= \"b\""), "4:3: rule 'x' is defined twice (first at 2:1)");
}

TEST(GbnfTest, EmptyTextAndMissingRoot) {
  EXPECT_EQ(ParseError(""), "the grammar is empty: it has no rule");
  EXPECT_EQ(ParseError("  \n\t# only a comment\n\r\n"), "the grammar is empty: it has no rule");
  EXPECT_EQ(ParseError("foo ::= \"a\""), "the grammar has no rule 'root' (the start rule)");
  EXPECT_EQ(ParseError("Root ::= \"a\""), "the grammar has no rule 'root' (the start rule)");
}

TEST(GbnfTest, LeftRecursionIsRefusedNamingTheCycle) {
  // Direct.
  ExpectContains(ParseError("root ::= root \"a\" | \"b\""),
                 "rule 'root' is left-recursive: root -> root can come around");
  // Indirect, through two other rules.
  ExpectContains(ParseError("root ::= a \"x\"\na ::= b | \"y\"\nb ::= root \"z\""),
                 "rule 'root' is left-recursive: root -> a -> b -> root can come around");
  // Through a prefix that can be empty.
  ExpectContains(ParseError("root ::= e root \"x\" | \"y\"\ne ::= \"z\"?"),
                 "rule 'root' is left-recursive: root -> root");
  ExpectContains(ParseError("root ::= e f x | \"y\"\ne ::= \"\"\nf ::= \"q\" | e\nx ::= root"),
                 "rule 'root' is left-recursive: root -> x -> root");
  // A repetition of something that can be empty loops.
  ExpectContains(ParseError("root ::= (\"a\"?)*"), "rule 'root_3' is left-recursive");
  ExpectContains(ParseError("root ::= \"a\"**"), "rule 'root_2' is left-recursive");
  // Recursion after a character, or after a prefix that cannot be empty, is fine.
  ExpectLanguage("root ::= \"x\" root | \"y\"", {"y", "xxy"}, {"x"});
  ExpectLanguage("root ::= e \"q\" root | \"y\"\ne ::= \"z\"?", {"y", "qy", "zqqy"}, {"zy"});
  ExpectLanguage("root ::= a\na ::= \"(\" a \")\" | \"\"", {"", "()", "((()))"}, {"(()", "())"});
}

TEST(GbnfTest, TextSizeLimit) {
  std::string text = "root ::= \"a\"\n#";
  text.resize(kMaxGbnfBytes, 'x');
  EXPECT_NE(Parse(text), nullptr);
  text += 'x';
  EXPECT_EQ(ParseError(text), fmt::format("the grammar is {} bytes; at most {} are accepted", kMaxGbnfBytes + 1,
                                          kMaxGbnfBytes));
}

TEST(GbnfTest, ElementLimitCountsExpandedRepetitions) {
  static_assert(kMaxGrammarElements == 500'000 && kMaxRepetition == 10'000);
  // 49 x 10000 + 9999 characters and the kEnd: exactly the limit.
  const std::string fits = "root ::= " + Times("\"x\"{10000} ", 49) + "\"x\"{9999}";
  std::shared_ptr<const Grammar> g = Parse(fits);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->n_elements(), kMaxGrammarElements);
  EXPECT_TRUE(Matches(g, std::string(499'999, 'x')));
  EXPECT_FALSE(Matches(g, std::string(499'998, 'x')));
  ExpectContains(ParseError("root ::= " + Times("\"x\"{10000} ", 50)),
                 "the grammar has more than 500000 elements once its repetitions are expanded");
  // A repeated group or literal of several characters is one rule call per copy.
  std::shared_ptr<const Grammar> nested = Parse("root ::= (\"x\"{1000}){1000} \"xy\"{10000}");
  ASSERT_NE(nested, nullptr);
  EXPECT_LT(nested->n_elements(), 25'000u);
}

TEST(GbnfTest, RuleLimitCountsHelpers) {
  static_assert(kMaxGrammarRules == 100'000);
  // root and 9 x 10000 + 9999 optional helpers: exactly the limit.
  const std::string fits = "root ::= " + Times("\"x\"{0,10000} ", 9) + "\"x\"{0,9999}";
  std::shared_ptr<const Grammar> g = Parse(fits);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->n_rules(), kMaxGrammarRules);
  // Ambiguous (which chain takes which x), so short.
  EXPECT_TRUE(Matches(g, std::string(20, 'x')));
  const std::string message = "the grammar needs more than 100000 rules (groups and repetitions count as rules)";
  ExpectContains(ParseError("root ::= " + Times("\"x\"{0,10000} ", 10)), message);
  // A group past the limit.
  ExpectContains(ParseError(fits + " (\"y\")"), message);
}

TEST(GbnfTest, RepetitionCountLimit) {
  EXPECT_NE(Parse("root ::= \"x\"{10000}"), nullptr);
  EXPECT_NE(Parse("root ::= \"x\"{0,10000}"), nullptr);
  EXPECT_EQ(ParseError("root ::= \"x\"{10001}"), "1:14: the repetition count 10001 is above the limit of 10000");
  EXPECT_EQ(ParseError("root ::= \"x\"{1,99999999999999999999999}"),
            "1:16: the repetition count 99999999999999999999999 is above the limit of 10000");
}

TEST(GbnfTest, GroupDepthLimit) {
  static_assert(kMaxGroupDepth == 256);
  auto nested = [](int depth) { return "root ::= " + Times("(", depth) + "\"a\"" + Times(")", depth); };
  std::shared_ptr<const Grammar> g = Parse(nested(256));
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(Matches(g, "a"));
  // The 257th '(' is at column 9 + 257.
  EXPECT_EQ(ParseError(nested(257)), "1:266: groups nest more than 256 deep");
  // Hostile depth gives the same error, not a stack overflow.
  EXPECT_EQ(ParseError(nested(100'000)), "1:266: groups nest more than 256 deep");
}

TEST(GbnfTest, StartStateMustFitTheMatcherCaps) {
  // One stack per alternative at the start: 512 fit, 513 do not.
  auto alternatives = [](int n) {
    std::string text = "root ::= ";
    for (int i = 0; i < n; ++i) text += fmt::format("{}\"\\u{:04X}\"", i == 0 ? "" : " | ", 0x100 + i);
    return text;
  };
  std::shared_ptr<const Grammar> g = Parse(alternatives(static_cast<int>(kMaxStacks)));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(Matcher(g).n_stacks(), kMaxStacks);
  const std::string message = ParseError(alternatives(static_cast<int>(kMaxStacks) + 1));
  ExpectContains(message, "the grammar is too ambiguous at its start");
  ExpectContains(message, "512 parse stacks");
  // A chain of rules longer than the steps one character may take.
  std::string chain = "root ::= r0\n";
  for (int i = 0; i < 60'000; ++i) chain += fmt::format("r{} ::= r{}\n", i, i + 1);
  chain += "r60000 ::= \"a\"\n";
  ExpectContains(ParseError(chain), "the grammar is too ambiguous at its start");
  // Shorter, it parses.
  std::string short_chain = "root ::= r0\n";
  for (int i = 0; i < 1000; ++i) short_chain += fmt::format("r{} ::= r{}\n", i, i + 1);
  short_chain += "r1000 ::= \"a\"\n";
  g = Parse(short_chain);
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(Matches(g, "a"));
}

TEST(GbnfTest, ToStringWritesEveryRuleOnce) {
  std::shared_ptr<const Grammar> g = Parse("root ::= \"ab\" [c-e]* . | x\nx ::= [^\\n] \"\\\"\" \"\" | \"\"");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->ToString(),
            "root ::= \"ab\" root_1 . | x\n"
            "root_1 ::= [c-e] root_1 | \"\"\n"
            "x ::= [\\x00-\\t\\x0B-\\U0010FFFF] \"\\\"\" | \"\"\n");
}

// ToString's text parses to the same grammar, once helper names (which GBNF
// names cannot spell: "<rule>_<n>") are respelled. Rules are numbered by
// first appearance, so the second printing may list them in another order.
std::vector<std::string> SortedLines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1) {
    lines.push_back(text.substr(start, end - start));
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

TEST(GbnfTest, ToStringRoundTrips) {
  const std::vector<std::string> texts = {
      "root ::= \"a\\n\\\"\\\\\" [^\\]\\-] x | \"\"\nx ::= [\\u00e9\\U0001F600] \"\\x01\" [\\[\\^\"]",
      "root ::= \"\\t\" [\\x00-\\x1F\\x7F] \"\\u20AC\xf0\x9f\x98\x80\" .",
      "root ::= (\"a\" | \"bc\")+ [0-9]{2,4} \"x\"? y{,2}\ny ::= [^a-z]",
      "root ::= object\nobject ::= \"{\" (pair (\",\" pair)*)? \"}\"\npair ::= [a-z]+ \":\" value\n"
      "value ::= object | [0-9]+",
  };
  for (const std::string& text : texts) {
    std::shared_ptr<const Grammar> g = Parse(text);
    ASSERT_NE(g, nullptr);
    std::string printed = g->ToString();
    std::replace(printed.begin(), printed.end(), '_', '-');
    std::shared_ptr<const Grammar> again = Parse(printed);
    ASSERT_NE(again, nullptr) << printed;
    std::string reprinted = again->ToString();
    std::replace(reprinted.begin(), reprinted.end(), '_', '-');
    EXPECT_EQ(SortedLines(reprinted), SortedLines(printed)) << "from\n" << text << "\nprinted\n" << printed;
    EXPECT_EQ(again->n_rules(), g->n_rules());
    EXPECT_EQ(again->n_elements(), g->n_elements());
  }
}

TEST(GbnfTest, ClassesAnswerMembership) {
  std::shared_ptr<const Grammar> g = Parse("root ::= [b-dx\\u0100-\\u0200\\U00010000-\\U0010FFFF]");
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->n_classes(), 1u);
  for (uint32_t c : std::vector<uint32_t>{'b', 'c', 'd', 'x', 0x100u, 0x150u, 0x200u, 0x10000u, 0x10FFFFu}) {
    EXPECT_TRUE(g->ClassContains(0, c)) << c;
  }
  for (uint32_t c : std::vector<uint32_t>{'a', 'e', 'w', 'y', 0u, 127u, 128u, 0xFFu, 0x201u, 0xFFFFu}) {
    EXPECT_FALSE(g->ClassContains(0, c)) << c;
  }
  EXPECT_TRUE(g->ClassIntersects(0, 'e', 'x'));
  EXPECT_FALSE(g->ClassIntersects(0, 'e', 'w'));
  EXPECT_TRUE(g->ClassIntersects(0, 0x201, 0x10000));
  EXPECT_FALSE(g->ClassIntersects(0, 0x201, 0xFFFF));
  EXPECT_TRUE(g->ClassIntersects(0, 0, kMaxCodePoint));
}

}  // namespace
}  // namespace trit::grammar
