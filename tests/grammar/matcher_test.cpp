#include "grammar/matcher.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/gbnf.h"
#include "grammar/grammar.h"

namespace trit::grammar {
namespace {

std::shared_ptr<const Grammar> Parse(std::string_view text) {
  Expected<std::shared_ptr<const Grammar>> grammar = ParseGbnf(text);
  EXPECT_TRUE(grammar.ok()) << text << "\n" << grammar.status().message();
  return grammar.ok() ? *grammar : nullptr;
}

// JSON with whitespace, as llama.cpp's json.gbnf writes it (ambiguous where
// two `ws` meet).
constexpr std::string_view kJson = R"gbnf(
root   ::= ws value ws
value  ::= object | array | string | number | "true" | "false" | "null"
object ::= "{" ws ( member ( ws "," ws member )* )? ws "}"
member ::= string ws ":" ws value
array  ::= "[" ws ( value ( ws "," ws value )* )? ws "]"
string ::= "\"" char* "\""
char   ::= [^"\\\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} )
number ::= "-"? ( "0" | [1-9] [0-9]* ) ( "." [0-9]+ )? ( [eE] [-+]? [0-9]+ )?
ws     ::= [ \t\n\r]*
)gbnf";

// The whole state of a matcher, for "unchanged" checks (stacks() is
// canonical: equal states, equal vectors).
struct Snapshot {
  std::vector<uint32_t> stacks;
  PartialUtf8 partial;
  size_t n_stacks;
  bool operator==(const Snapshot&) const = default;
};
Snapshot Snap(const Matcher& m) { return {m.stacks(), m.partial(), m.n_stacks()}; }

// One state reached by different paths, with the thread's scratch used in
// between, gives equal matchers (stacks() is canonical).
TEST(MatcherTest, EqualStatesCompareEqual) {
  auto g = Parse(kJson);
  Matcher a(g);
  ASSERT_TRUE(a.Accept("[1, {\"k\": [tr"));
  Matcher other(g);
  ASSERT_TRUE(other.Accept("{\"x\": [[[\"y\", 2.5e3, null]]], \"z\": "));
  Matcher b(g);
  ASSERT_TRUE(b.Accept("[1,"));
  ASSERT_TRUE(other.Accept("false"));
  ASSERT_TRUE(b.Accept(" {\"k\":"));
  ASSERT_TRUE(b.Accept(" [t"));
  EXPECT_FALSE(a == b);
  ASSERT_TRUE(b.Accept("r"));
  EXPECT_TRUE(a == b);
  EXPECT_EQ(a.stacks(), b.stacks());
  EXPECT_FALSE(a == Matcher(g));
  // An ambiguous grammar, its text fed whole and a byte at a time.
  for (const char* grammar : {"root ::= (x | y | z)+\nx ::= [a-z]+ \" \"?\ny ::= [a-m]+ \",\"?\nz ::= \"ab\" [a-z]* | [b-z]",
                              "root ::= ([a-c] | [b-d] [a-z]? | \"abc\")* \".\""}) {
    auto amb = Parse(grammar);
    for (const std::string text : {"abcab", "abc ba,bz", "bcbcbdab"}) {
      Matcher whole(amb), bytes(amb);
      if (!whole.Accept(text)) continue;
      for (char c : text) ASSERT_TRUE(bytes.Accept(std::string(1, c)));
      EXPECT_TRUE(whole == bytes) << grammar << " / " << text;
    }
  }
}

// The longest stack of the matcher's state, in positions.
uint32_t Depth(const Matcher& m) {
  uint32_t depth = 0;
  for (size_t i = 0; i < m.stacks().size(); i += 1 + m.stacks()[i]) depth = std::max(depth, m.stacks()[i]);
  return depth;
}

void ExpectLanguage(const std::shared_ptr<const Grammar>& g, const std::vector<std::string>& accept,
                    const std::vector<std::string>& reject) {
  for (const std::string& s : accept) EXPECT_TRUE(Matches(g, s)) << "should accept '" << s << "'";
  for (const std::string& s : reject) EXPECT_FALSE(Matches(g, s)) << "should reject '" << s << "'";
}

TEST(MatcherTest, Json) {
  std::shared_ptr<const Grammar> g = Parse(kJson);
  ASSERT_NE(g, nullptr);
  ExpectLanguage(g,
                 {"{}", " { } ", "[]", "0", "-0.5", "12e-3", "1E+10", "true", "null", "\"\"",
                  R"({"a": [1, -2.5e+3, true, false, null, "x\"\\\/\b\f\n\r\t\u00e9"]})",
                  "{\n  \"k\" : {\"b\":{\"c\":[[[ ]]]}},\n  \"h\xc3\xa9\" : \"\xf0\x9f\x98\x80\"\n}\n",
                  R"([{"a":1},{"b":[2,3]},[]])"},
                 {"", "{", "}", "{\"a\"}", "{\"a\":}", "[1,]", "[,1]", "01", "1.", ".5", "-", "+1", "1e",
                  "\"\x01\"", "\"\\q\"", "\"\\u12G4\"", "tru", "True", "{\"a\":1,}", "\"abc", "[1 2]",
                  "{'a':1}", "{\"a\":1}}", "[]]"});
}

TEST(MatcherTest, NestedBrackets) {
  std::shared_ptr<const Grammar> g = Parse("root ::= seq\nseq ::= ( \"(\" seq \")\" | \"[\" seq \"]\" | [a-z] )*");
  ASSERT_NE(g, nullptr);
  ExpectLanguage(g, {"", "()", "([])", "a(b[c]d)e", "(((((((((())))))))))", "()[]()"},
                 {"(", ")", "(]", "([)]", "(()", "())", "A", "[(])"});
  // Deep nesting: each open bracket is a return position on the stack.
  const std::string deep = std::string(1000, '(') + std::string(1000, '[') + std::string(1000, ']') +
                           std::string(1000, ')');
  EXPECT_TRUE(Matches(g, deep));
  EXPECT_FALSE(Matches(g, deep.substr(0, deep.size() - 1)));
  EXPECT_FALSE(Matches(g, deep + ")"));
}

TEST(MatcherTest, AmbiguousGrammarsKeepEveryParse) {
  // Texts over {a, b} with at least one a: which a is the middle one is open
  // until the end.
  std::shared_ptr<const Grammar> g = Parse("root ::= x* \"a\" x*\nx ::= \"a\" | \"b\"");
  ASSERT_NE(g, nullptr);
  ExpectLanguage(g, {"a", "bab", "aaaa", "bbbbba", "abbbb"}, {"", "b", "bbb", "abc"});
  // Equal stacks merge: the state stays small however long the text.
  Matcher m(g);
  for (int i = 0; i < 2000; ++i) ASSERT_TRUE(m.Accept(i % 3 == 0 ? "a" : "b"));
  EXPECT_LE(m.n_stacks(), 8u);
  EXPECT_TRUE(m.CanEnd());
  // Two parses of one prefix that end differently.
  std::shared_ptr<const Grammar> h = Parse(R"(root ::= ("a" | "ab") ("bc" | "c"))");
  ASSERT_NE(h, nullptr);
  ExpectLanguage(h, {"abc", "ac", "abbc"}, {"ab", "abcc", "bc", "abbbc"});
}

TEST(MatcherTest, RefusedInputLeavesTheStateUnchanged) {
  std::shared_ptr<const Grammar> g = Parse(kJson);
  ASSERT_NE(g, nullptr);
  Matcher m(g);
  EXPECT_TRUE(m.last_rejection().empty());
  ASSERT_TRUE(m.Accept("{\"ab"));
  const Snapshot before = Snap(m);
  // The refusal comes at the third byte: the two before it are undone too.
  EXPECT_FALSE(m.Accept("c\"}"));
  EXPECT_EQ(m.last_rejection(), "byte 0x7D '}' at offset 2 is not allowed by the grammar here");
  EXPECT_EQ(Snap(m), before);
  EXPECT_FALSE(m.Accept("c\x01"));
  EXPECT_EQ(m.last_rejection(), "byte 0x01 at offset 1 is not allowed by the grammar here");
  EXPECT_EQ(Snap(m), before);
  EXPECT_FALSE(m.Accept("\xc3\x28"));
  EXPECT_EQ(m.last_rejection(), "byte 0x28 '(' at offset 1 is not valid UTF-8 here");
  EXPECT_EQ(Snap(m), before);
  // Inside a character.
  ASSERT_TRUE(m.Accept("\xe2\x82"));
  const Snapshot pending = Snap(m);
  EXPECT_EQ(pending.partial.n_pending, 1u);
  EXPECT_FALSE(m.Accept("a"));
  EXPECT_EQ(Snap(m), pending);
  // And it goes on as if nothing happened.
  ASSERT_TRUE(m.Accept("\xac\": 1}"));
  EXPECT_TRUE(m.CanEnd());
  EXPECT_TRUE(m.Accept(""));
  EXPECT_TRUE(m.CanEnd());
}

TEST(MatcherTest, Utf8MaySplitAcrossCalls) {
  std::shared_ptr<const Grammar> g = Parse("root ::= \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\" [\xce\xb1-\xcf\x89]");
  ASSERT_NE(g, nullptr);
  const std::string text = "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xce\xb2";
  // Byte by byte: the pending count follows the character.
  const std::vector<uint32_t> pending = {1, 0, 2, 1, 0, 3, 2, 1, 0, 1, 0};
  Matcher m(g);
  for (size_t i = 0; i < text.size(); ++i) {
    ASSERT_TRUE(m.Accept(text.substr(i, 1))) << i << ": " << m.last_rejection();
    EXPECT_EQ(m.partial().n_pending, pending[i]) << i;
    EXPECT_EQ(m.CanEnd(), i + 1 == text.size()) << i;
    EXPECT_EQ(m.MustEnd(), i + 1 == text.size()) << i;
  }
  // Every split into three calls.
  for (size_t i = 0; i <= text.size(); ++i) {
    for (size_t j = i; j <= text.size(); ++j) {
      Matcher k(g);
      ASSERT_TRUE(k.Accept(text.substr(0, i)) && k.Accept(text.substr(i, j - i)) && k.Accept(text.substr(j)))
          << i << " " << j;
      EXPECT_TRUE(k.MustEnd());
    }
  }
}

TEST(MatcherTest, InvalidUtf8IsRefusedAtTheOffendingByte) {
  std::shared_ptr<const Grammar> g = Parse("root ::= .*");
  ASSERT_NE(g, nullptr);
  struct Case {
    std::string bytes;
    size_t offset;  // of the byte that makes it invalid
  };
  const std::vector<Case> cases = {
      {"\xc0\x80", 0},              // overlong NUL
      {"\xc1\xbf", 0},              // overlong U+007F
      {"\xe0\x80\x80", 1},          // overlong 3 bytes
      {"\xe0\x9f\xbf", 1},          // overlong U+07FF
      {"\xf0\x8f\xbf\xbf", 1},      // overlong U+FFFF
      {"\xed\xa0\x80", 1},          // U+D800, a surrogate
      {"\xed\xbf\xbf", 1},          // U+DFFF
      {"\xf4\x90\x80\x80", 1},      // U+110000
      {"\xf5\x80\x80\x80", 0},      // past U+10FFFF by its lead
      {"\xf8\x88\x80\x80\x80", 0},  // a 5-byte form
      {"\xff", 0},
      {"\x80", 0},                  // a stray continuation
      {"a\xbf", 1},
      {"\xc3\xa9\xa9", 2},          // one continuation too many
      {"\xc3" "A", 1},              // a character cut off by ASCII
      {"\xe2\x82" "A", 2},
      {"\xf0\x9f\x98\xc3\xa9", 3},  // cut off by another lead
  };
  for (const Case& c : cases) {
    Matcher m(g);
    const Snapshot before = Snap(m);
    EXPECT_FALSE(m.Accept(c.bytes)) << fmt::format("{:02x}", fmt::join(c.bytes, " "));
    EXPECT_EQ(Snap(m), before);
    EXPECT_NE(m.last_rejection().find(fmt::format("at offset {} is not valid UTF-8 here", c.offset)),
              std::string::npos)
        << m.last_rejection();
    // Fed byte by byte, the same byte is the one refused.
    Matcher b(g);
    for (size_t i = 0; i < c.bytes.size(); ++i) {
      EXPECT_EQ(b.Accept(c.bytes.substr(i, 1)), i < c.offset) << i;
      if (i >= c.offset) break;
    }
  }
  // The limits themselves are characters.
  const std::vector<std::string_view> limits = {"\xc2\x80",         "\xdf\xbf",         "\xe0\xa0\x80",
                                                "\xed\x9f\xbf",     "\xee\x80\x80",     "\xef\xbf\xbf",
                                                "\xf0\x90\x80\x80", "\xf4\x8f\xbf\xbf", std::string_view("\0", 1)};
  for (std::string_view ok : limits) {
    EXPECT_TRUE(Matches(g, ok)) << fmt::format("{:02x}", fmt::join(ok, " "));
  }
}

TEST(MatcherTest, ALeadByteNoStackCanTakeIsRefusedAtOnce) {
  std::shared_ptr<const Grammar> g = Parse(R"(root ::= [\u0100-\u017F]*)");
  ASSERT_NE(g, nullptr);
  Matcher m(g);
  EXPECT_FALSE(m.Accept("\xc3"));  // U+00C0..U+00FF
  EXPECT_EQ(m.last_rejection(), "byte 0xC3 at offset 0 is not allowed by the grammar here");
  EXPECT_FALSE(m.Accept("\xc6"));  // U+0180..U+01BF
  EXPECT_FALSE(m.Accept("\xe2"));
  EXPECT_FALSE(m.Accept("\xf0"));
  EXPECT_TRUE(m.Accept("\xc4"));   // U+0100..U+013F
  EXPECT_FALSE(m.CanEnd());
  EXPECT_TRUE(m.Accept("\x80\xc5\xbf"));
  EXPECT_TRUE(m.CanEnd());
  // Four bytes: each one narrows the range.
  std::shared_ptr<const Grammar> emoji = Parse(R"(root ::= [\U0001F600-\U0001F64F])");
  ASSERT_NE(emoji, nullptr);
  for (std::string_view refused : {"\xf1", "\xf0\xa0", "\xf0\x9f\x97", "\xf0\x9f\x99\x90", "\xe2", "a"}) {
    Matcher e(emoji);
    EXPECT_FALSE(e.Accept(refused)) << fmt::format("{:02x}", fmt::join(refused, " "));
    EXPECT_NE(e.last_rejection().find("not allowed by the grammar"), std::string::npos) << e.last_rejection();
  }
  for (std::string_view taken : {"\xf0", "\xf0\x9f", "\xf0\x9f\x98", "\xf0\x9f\x99\x8f"}) {
    Matcher e(emoji);
    EXPECT_TRUE(e.Accept(taken)) << fmt::format("{:02x}", fmt::join(taken, " "));
  }
}

TEST(MatcherTest, CanEndAndMustEnd) {
  std::shared_ptr<const Grammar> g = Parse(R"(root ::= "a" "b"?)");
  ASSERT_NE(g, nullptr);
  Matcher m(g);
  EXPECT_FALSE(m.CanEnd());
  EXPECT_FALSE(m.MustEnd());
  ASSERT_TRUE(m.Accept("a"));
  EXPECT_TRUE(m.CanEnd());
  EXPECT_FALSE(m.MustEnd());
  ASSERT_TRUE(m.Accept("b"));
  EXPECT_TRUE(m.CanEnd());
  EXPECT_TRUE(m.MustEnd());
  EXPECT_FALSE(m.Accept("b"));
  // The empty language's only sentence.
  std::shared_ptr<const Grammar> empty = Parse(R"(root ::= "")");
  ASSERT_NE(empty, nullptr);
  Matcher e(empty);
  EXPECT_TRUE(e.MustEnd());
  EXPECT_FALSE(e.Accept(" "));
  // A loop can always end and never must.
  std::shared_ptr<const Grammar> loop = Parse(R"(root ::= [a-z]*)");
  ASSERT_NE(loop, nullptr);
  Matcher l(loop);
  for (int i = 0; i < 50; ++i) {
    EXPECT_TRUE(l.CanEnd());
    EXPECT_FALSE(l.MustEnd());
    ASSERT_TRUE(l.Accept("q"));
  }
  // Ended on one path, going on on another.
  std::shared_ptr<const Grammar> two = Parse(R"(root ::= "ab" | "a" | "a" "c" "d")");
  ASSERT_NE(two, nullptr);
  Matcher t(two);
  ASSERT_TRUE(t.Accept("a"));
  EXPECT_TRUE(t.CanEnd());
  EXPECT_FALSE(t.MustEnd());
  EXPECT_EQ(t.n_stacks(), 3u);
  ASSERT_TRUE(t.Accept("c"));
  EXPECT_FALSE(t.CanEnd());
  ASSERT_TRUE(t.Accept("d"));
  EXPECT_TRUE(t.MustEnd());
  EXPECT_TRUE(Matches(two, "acd"));
  EXPECT_FALSE(Matches(two, "ac"));
}

// A class that holds no character (`[]`, or surrogates, which UTF-8 never
// spells) can never match: the stacks waiting on one do not count, so the
// matcher knows when nothing more can come.
TEST(MatcherTest, ClassesWithoutCharactersNeverMatch) {
  for (std::string_view text : {R"(root ::= "a" | "a" [])", R"(root ::= "a" []?)",
                                R"(root ::= "a" | "a" [\uD800-\uDFFF])", R"(root ::= "a" ("\uDFFF" "b")?)"}) {
    std::shared_ptr<const Grammar> g = Parse(text);
    ASSERT_NE(g, nullptr);
    Matcher m(g);
    ASSERT_TRUE(m.Accept("a")) << text;
    EXPECT_TRUE(m.CanEnd()) << text;
    EXPECT_TRUE(m.MustEnd()) << text;
    EXPECT_EQ(m.n_stacks(), 1u) << text;
    EXPECT_FALSE(m.Accept("\xed")) << text;  // the lead of U+D000..U+D7FF, never a surrogate
  }
  // A grammar that can read nothing at all starts with no stack.
  std::shared_ptr<const Grammar> none = Parse("root ::= []");
  ASSERT_NE(none, nullptr);
  Matcher m(none);
  EXPECT_EQ(m.n_stacks(), 0u);
  EXPECT_FALSE(m.CanEnd());
  EXPECT_FALSE(m.MustEnd());
  EXPECT_FALSE(m.Accept("a"));
  EXPECT_FALSE(m.Accept("\xc3"));
  std::shared_ptr<const Grammar> either = Parse(R"(root ::= [] | "x" [^\x00-\U0010FFFF]?)");
  ASSERT_NE(either, nullptr);
  EXPECT_TRUE(Matches(either, "x"));
  Matcher x(either);
  ASSERT_TRUE(x.Accept("x"));
  EXPECT_TRUE(x.MustEnd());
}

TEST(MatcherTest, NonAsciiClasses) {
  std::shared_ptr<const Grammar> g = Parse("root ::= [\xce\xb1-\xcf\x89]+ [^\xce\xb1-\xcf\x89]");
  ASSERT_NE(g, nullptr);
  ExpectLanguage(g, {"\xce\xb1\xce\xb2\xce\xb3!", "\xcf\x89" "a", "\xce\xb1\xf0\x9f\x98\x80", "\xce\xb1\xe2\x82\xac"},
                 {"a", "\xce\xb1", "\xce\xb1\xce\xb2", "!\xce\xb1", "\xce\xb0!"});
  // Classes spanning encodings: 1 to 4 bytes.
  std::shared_ptr<const Grammar> wide = Parse(R"(root ::= [\x7E-\u0800\uFFFF-\U00010001]*)");
  ASSERT_NE(wide, nullptr);
  ExpectLanguage(wide, {"~\x7f\xc2\x80\xdf\xbf\xe0\xa0\x80\xef\xbf\xbf\xf0\x90\x80\x80\xf0\x90\x80\x81"},
                 {"}", "\xe0\xa0\x81", "\xef\xbf\xbe", "\xf0\x90\x80\x82"});
}

TEST(MatcherTest, TooManyStacksIsReportedAndRefused) {
  // Each "a" may push either of two return positions: 3 * 2^k stacks after k.
  std::shared_ptr<const Grammar> g = Parse(R"(root ::= "a" root "b" | "a" root root "b" | "c")");
  ASSERT_NE(g, nullptr);
  Matcher m(g);
  ASSERT_TRUE(m.Accept("aaaaaaa")) << m.last_rejection();
  EXPECT_EQ(m.n_stacks(), 3u * 128);
  const Snapshot before = Snap(m);
  EXPECT_FALSE(m.Accept("a"));
  EXPECT_EQ(m.last_rejection(),
            fmt::format("byte 0x61 'a' at offset 0: the grammar is too ambiguous here (more than {} parse stacks "
                        "or {} steps for one character)",
                        kMaxStacks, kMaxStepsPerCodePoint));
  EXPECT_EQ(Snap(m), before);
  // Unambiguous text still goes through.
  EXPECT_TRUE(m.Accept("cbbbbbbb"));
  EXPECT_TRUE(m.CanEnd());
  // In one call, the offset is the eighth a's.
  Matcher once(g);
  EXPECT_FALSE(once.Accept("aaaaaaaac"));
  EXPECT_NE(once.last_rejection().find("offset 7: the grammar is too ambiguous"), std::string::npos);
}

TEST(MatcherTest, AGrammarTooAmbiguousToGoOnLeavesOnlyTheEnd) {
  // Found by gbnf_fuzz (fuzz/README.md): nested repetitions multiply the
  // ways to read each space, so after a few spaces every next byte passes
  // the stack cap. The text can end there and nothing else is allowed, yet
  // the grammar itself would go on: MustEnd stays false (it is not the
  // grammar's end), and a sampler, allowed only end tokens, ends there.
  std::shared_ptr<const Grammar> g = Parse("root::=([ ])++++++++++");
  ASSERT_NE(g, nullptr);
  Matcher m(g);
  size_t spaces = 0;
  while (spaces < 64 && m.Accept(" ")) ++spaces;
  ASSERT_LT(spaces, 64u);
  EXPECT_NE(m.last_rejection().find("too ambiguous"), std::string::npos) << m.last_rejection();
  EXPECT_TRUE(m.CanEnd());
  EXPECT_FALSE(m.MustEnd());
  for (int b = 0; b < 256; ++b) EXPECT_FALSE(Matcher(m).Accept(std::string(1, static_cast<char>(b)))) << b;
}

TEST(MatcherTest, TailCallsKeepStacksFlat) {
  for (std::string_view text : {"root ::= \"x\"*", "root ::= list\nlist ::= \"x\" list | \"\"",
                                "root ::= \"[\" item* \"]\"\nitem ::= \"x\" | \"(\" item* \")\""}) {
    std::shared_ptr<const Grammar> g = Parse(text);
    ASSERT_NE(g, nullptr);
    Matcher m(g);
    if (text.find('[') != std::string_view::npos) {
      ASSERT_TRUE(m.Accept("["));
    }
    ASSERT_TRUE(m.Accept("xx"));
    const Snapshot early = Snap(m);
    ASSERT_TRUE(m.Accept(std::string(10'000, 'x')));
    EXPECT_EQ(Snap(m), early) << text;  // the very same state
    EXPECT_LE(Depth(m), 3u) << text;
  }
  // A call that is not last keeps its return position: nesting grows stacks
  // (the measure above can tell).
  std::shared_ptr<const Grammar> nest = Parse("root ::= \"(\" root \")\" | \"\"");
  ASSERT_NE(nest, nullptr);
  Matcher m(nest);
  ASSERT_TRUE(m.Accept(std::string(100, '(')));
  EXPECT_GE(Depth(m), 100u);
}

TEST(MatcherTest, BoundedRepetitionCostsFewStacks) {
  std::shared_ptr<const Grammar> g = Parse(R"(root ::= "a"{0,20} "b")");
  ASSERT_NE(g, nullptr);
  Matcher m(g);
  EXPECT_EQ(m.n_stacks(), 2u);
  ASSERT_TRUE(m.Accept(std::string(20, 'a')));
  EXPECT_EQ(m.n_stacks(), 1u);
  EXPECT_FALSE(m.Accept("a"));
  EXPECT_TRUE(m.Accept("b"));
  EXPECT_TRUE(m.MustEnd());
}

TEST(MatcherTest, CopiesAreIndependent) {
  std::shared_ptr<const Grammar> g = Parse(kJson);
  ASSERT_NE(g, nullptr);
  Matcher a(g);
  ASSERT_TRUE(a.Accept("[1, \"\xe2\x82"));
  Matcher b = a;
  EXPECT_EQ(Snap(b), Snap(a));
  const Snapshot a_state = Snap(a);
  ASSERT_TRUE(b.Accept("\xac"));  // b: [1, "€
  EXPECT_EQ(Snap(a), a_state);
  EXPECT_NE(Snap(b), a_state);
  // Each goes its own way.
  EXPECT_FALSE(a.Accept("2"));  // a is inside a character
  ASSERT_TRUE(a.Accept("\x82\"]"));  // a: [1, "\u2082"]
  EXPECT_TRUE(a.CanEnd());
  EXPECT_FALSE(b.CanEnd());
  ASSERT_TRUE(b.Accept("x\", 3"));
  EXPECT_FALSE(b.CanEnd());
  EXPECT_FALSE(a.Accept(","));
  ASSERT_TRUE(b.Accept("]"));
  EXPECT_TRUE(b.CanEnd());
  Matcher c(g);
  ASSERT_TRUE(c.Accept("[1, 2"));
  Matcher d = c;
  ASSERT_TRUE(c.Accept("]"));
  ASSERT_TRUE(d.Accept("3, 4]"));
  EXPECT_TRUE(c.CanEnd());
  EXPECT_TRUE(d.CanEnd());
  c = d;  // assignment copies too
  EXPECT_EQ(Snap(c), Snap(d));
  EXPECT_EQ(c.grammar(), g);
}

TEST(MatcherTest, MatchesNeedsTheWholeText) {
  std::shared_ptr<const Grammar> g = Parse(R"(root ::= "ab")");
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(Matches(g, "ab"));
  EXPECT_FALSE(Matches(g, "a"));
  EXPECT_FALSE(Matches(g, "abc"));
  EXPECT_FALSE(Matches(g, ""));
}

}  // namespace
}  // namespace trit::grammar
