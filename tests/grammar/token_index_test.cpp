#include "grammar/token_index.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "grammar/gbnf.h"
#include "grammar/matcher.h"
#include "test_paths.h"
#include "tokenizer/tokenizer.h"

namespace trit::grammar {
namespace {

std::shared_ptr<const Grammar> Parse(std::string_view text) {
  Expected<std::shared_ptr<const Grammar>> grammar = ParseGbnf(text);
  EXPECT_TRUE(grammar.ok()) << text << "\n" << grammar.status().message();
  return grammar.ok() ? *grammar : nullptr;
}

// A vocabulary as the test knows it, independently of TokenIndex.
struct Vocab {
  std::vector<std::string> pieces;
  std::set<int32_t> ends;       // the end-of-generation ids
  std::vector<int32_t> end_arg;  // what TokenIndex is given (may repeat ids or name ids outside)
};

// The reference mask, by brute force: a token is allowed when a copy of the
// matcher accepts all its bytes; an end token when the matcher can end; an
// empty piece never.
std::vector<uint8_t> BruteMask(const Vocab& vocab, const Matcher& matcher) {
  std::vector<uint8_t> mask(vocab.pieces.size(), 0);
  for (size_t id = 0; id < vocab.pieces.size(); ++id) {
    if (vocab.ends.count(static_cast<int32_t>(id)) != 0) {
      mask[id] = matcher.CanEnd() ? 1 : 0;
    } else if (!vocab.pieces[id].empty()) {
      Matcher copy = matcher;
      mask[id] = copy.Accept(vocab.pieces[id]) ? 1 : 0;
    }
  }
  return mask;
}

std::string Escaped(std::string_view bytes) {
  std::string out;
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    out += b >= 0x20 && b < 0x7F ? std::string(1, c) : fmt::format("\\x{:02x}", b);
  }
  return out;
}

// FillMask, Allows and the brute force agree at the matcher's state; returns
// the mask. `where` names the state in failures.
std::vector<uint8_t> CheckState(const TokenIndex& index, const Vocab& vocab, const Matcher& matcher,
                                const std::string& where) {
  std::vector<uint8_t> mask(vocab.pieces.size(), 7);
  index.FillMask(matcher, mask);
  const std::vector<uint8_t> expected = BruteMask(vocab, matcher);
  size_t n_wrong = 0;
  for (size_t id = 0; id < mask.size(); ++id) {
    const auto token = static_cast<int32_t>(id);
    if (mask[id] != expected[id] && ++n_wrong <= 5) {
      ADD_FAILURE() << where << ": token " << id << " '" << Escaped(vocab.pieces[id]) << "'"
                    << (vocab.ends.count(token) ? " (end)" : "") << ": FillMask says " << int{mask[id]}
                    << ", the matcher says " << int{expected[id]};
    }
    if (index.Allows(matcher, token) != (expected[id] == 1) && ++n_wrong <= 5) {
      ADD_FAILURE() << where << ": token " << id << " '" << Escaped(vocab.pieces[id]) << "': Allows says "
                    << index.Allows(matcher, token) << ", the matcher says " << int{expected[id]};
    }
  }
  EXPECT_EQ(n_wrong, 0u) << where;
  return mask;
}

// Walks from a fresh matcher by random allowed tokens (not end tokens),
// checking the mask at every state and that TokenIndex::Accept moves the
// matcher as Matcher::Accept does.
void RandomWalks(const std::shared_ptr<const Grammar>& grammar, const Vocab& vocab, std::mt19937* rng, int n_walks,
                 int n_steps, const std::string& name) {
  const TokenIndex index(vocab.pieces, vocab.end_arg);
  for (int walk = 0; walk < n_walks; ++walk) {
    Matcher matcher(grammar);
    std::string text;
    for (int step = 0; step <= n_steps; ++step) {
      const std::string where = fmt::format("{} walk {} after '{}'", name, walk, Escaped(text));
      const std::vector<uint8_t> mask = CheckState(index, vocab, matcher, where);
      if (::testing::Test::HasFailure()) return;
      std::vector<int32_t> next;
      for (size_t id = 0; id < mask.size(); ++id) {
        if (mask[id] && !vocab.ends.count(static_cast<int32_t>(id))) next.push_back(static_cast<int32_t>(id));
      }
      if (next.empty()) break;
      const int32_t token = next[std::uniform_int_distribution<size_t>(0, next.size() - 1)(*rng)];
      Matcher reference = matcher;
      ASSERT_TRUE(reference.Accept(vocab.pieces[static_cast<size_t>(token)])) << where;
      index.Accept(&matcher, token);
      ASSERT_TRUE(matcher == reference) << where;
      ASSERT_EQ(matcher.partial(), reference.partial()) << where;
      text += vocab.pieces[static_cast<size_t>(token)];
    }
  }
}

// Random vocabularies: ASCII pieces (JSON punctuation, letters, digits,
// escapes), whole multi-byte characters, pieces of characters (leads,
// continuations), invalid bytes, repeated pieces, empty control tokens, and
// end tokens with and without bytes.
Vocab RandomVocab(std::mt19937* rng, size_t n) {
  static const std::vector<std::string> kAtoms = {
      "a", "b", "c", "e", "f", "l", "n", "r", "s", "t", "u", "x", "z", "0", "1", "2", "9", "{", "}", "[", "]",
      "\"", ":", ",", " ", "\n", "\\", "-", "+", ".", "E", "(", ")", "!", "_", "true", "null", "false", "\":",
      "\",\"", " {\"", "\\u00", "\\n", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xce\xb1", "\xcf\x89",
      "\xee\x80\x80", "\xed\x9f\xbf", "\xc2\x80", "\xf4\x8f\xbf\xbf",
      // Pieces of characters and bytes that are never UTF-8.
      "\xc3", "\xa9", "\xe2\x82", "\xac", "\xe2", "\x82\xac", "\xf0\x9f", "\x98\x80", "\xf0", "\x80", "\xce",
      "\xff", "\xc0", "\xed\xa0", "\xf5"};
  std::uniform_int_distribution<size_t> atom(0, kAtoms.size() - 1);
  std::uniform_int_distribution<int> length(1, 4);
  std::uniform_int_distribution<int> percent(0, 99);
  Vocab vocab;
  while (vocab.pieces.size() < n) {
    const int roll = percent(*rng);
    if (roll < 5 && !vocab.pieces.empty()) {  // a repeated piece
      vocab.pieces.push_back(vocab.pieces[std::uniform_int_distribution<size_t>(0, vocab.pieces.size() - 1)(*rng)]);
    } else if (roll < 8) {  // a control token
      vocab.pieces.emplace_back();
    } else {
      std::string piece;
      for (int k = length(*rng); k > 0; --k) piece += kAtoms[atom(*rng)];
      vocab.pieces.push_back(piece);
    }
  }
  // End tokens: one empty, one with bytes the grammars would take, one with others.
  const auto n_vocab = static_cast<int32_t>(n);
  vocab.pieces[1] = "";
  vocab.pieces[2] = "a";
  vocab.pieces[3] = "</s>";
  vocab.ends = {1, 2, 3};
  vocab.end_arg = {3, 1, 2, 2, n_vocab, -1, n_vocab + 100};  // repeats and ids outside are ignored
  return vocab;
}

// Grammars with loops (where the shortcut applies), non-ASCII classes and
// their complements, ambiguity, and characters the vocabulary holds only in
// pieces.
const std::vector<std::string>& TestGrammars() {
  static const std::vector<std::string> kGrammars = {
      // JSON with whitespace.
      R"gbnf(
root   ::= ws value ws
value  ::= object | array | string | number | "true" | "false" | "null"
object ::= "{" ws ( member ( ws "," ws member )* )? ws "}"
member ::= string ws ":" ws value
array  ::= "[" ws ( value ( ws "," ws value )* )? ws "]"
string ::= "\"" char* "\""
char   ::= [^"\\\x00-\x1F] | "\\" ( ["\\/bfnrt] | "u" [0-9a-fA-F]{4} )
number ::= "-"? ( "0" | [1-9] [0-9]* ) ( "." [0-9]+ )? ( [eE] [-+]? [0-9]+ )?
ws     ::= [ \t\n\r]*
)gbnf",
      R"(root ::= [a-z]+ ("," [a-z]+)*)",
      R"(root ::= "\"" [^"\\]* "\"")",
      R"(root ::= .*)",
      R"(root ::= [α-ω]* "!")",
      "root ::= x* \"a\" x*\nx ::= \"a\" | \"b\" | \"\xc3\xa9\"",
      R"(root ::= [^\u00e9]*)",
      R"(root ::= [\x00-\x7F\u0080-\uD7FF\uE001-\U0010FFFF]* "z")",
      R"(root ::= ("ab" | "a" "b"? | "\u20AC"{1,3})* "z")",
      R"(root ::= "{" [a-z]{0,5} "}" | "[" [^\]]* "]" | [0-9]+ ("." [0-9]+)?)",
      R"(root ::= "é"? [\u00e9-\u00ea]+ "\U0001F600"*)",
  };
  return kGrammars;
}

TEST(TokenIndexTest, MaskMatchesBruteForceOnRandomVocabularies) {
  std::mt19937 rng(20240601);
  for (int v = 0; v < 6; ++v) {
    const Vocab vocab = RandomVocab(&rng, 150 + 150 * static_cast<size_t>(v));
    for (size_t g = 0; g < TestGrammars().size(); ++g) {
      std::shared_ptr<const Grammar> grammar = Parse(TestGrammars()[g]);
      ASSERT_NE(grammar, nullptr);
      RandomWalks(grammar, vocab, &rng, /*n_walks=*/4, /*n_steps=*/25, fmt::format("vocab {} grammar {}", v, g));
      if (HasFailure()) return;
    }
  }
}

TEST(TokenIndexTest, TrieSharesPrefixesAndRepeatedPieces) {
  const TokenIndex index({"a", "ab", "abc", "b", "", "ab", "abd"}, {});
  EXPECT_EQ(index.n_vocab(), 7);
  EXPECT_EQ(index.n_nodes(), 5u);  // a, ab, abc, abd, b
  EXPECT_EQ(index.token_bytes(2), "abc");
  std::shared_ptr<const Grammar> g = Parse(R"(root ::= "ab" [cd]?)");
  ASSERT_NE(g, nullptr);
  Matcher m(g);
  std::vector<uint8_t> mask(7);
  index.FillMask(m, mask);
  EXPECT_EQ(mask, (std::vector<uint8_t>{1, 1, 1, 0, 0, 1, 1}));
  ASSERT_TRUE(m.Accept("a"));
  index.FillMask(m, mask);
  EXPECT_EQ(mask, (std::vector<uint8_t>{0, 0, 0, 1, 0, 0, 0}));
}

TEST(TokenIndexTest, EndAndEmptyTokens) {
  // 0 and 3 end generation (3 has bytes); 1 is an empty control token.
  const TokenIndex index({"</s>", "", "x", "x", "y"}, {3, 0, 0, 5, -2});
  EXPECT_TRUE(index.IsEnd(0));
  EXPECT_FALSE(index.IsEnd(1));
  EXPECT_TRUE(index.IsEnd(3));
  EXPECT_FALSE(index.IsEnd(5));
  EXPECT_FALSE(index.IsEnd(-2));
  std::shared_ptr<const Grammar> g = Parse(R"(root ::= "x"*)");
  ASSERT_NE(g, nullptr);
  Matcher m(g);
  std::vector<uint8_t> mask(5);
  index.FillMask(m, mask);
  EXPECT_EQ(mask, (std::vector<uint8_t>{1, 0, 1, 1, 0}));
  EXPECT_FALSE(index.Allows(m, 1));
  EXPECT_FALSE(index.Allows(m, -1));
  EXPECT_FALSE(index.Allows(m, 5));
  // An end token leaves the state alone.
  const std::vector<uint32_t> before = m.stacks();
  index.Accept(&m, 0);
  EXPECT_EQ(m.stacks(), before);
  // Where the text cannot end, no end token, whatever its bytes.
  std::shared_ptr<const Grammar> h = Parse(R"(root ::= "x" "y")");
  ASSERT_NE(h, nullptr);
  Matcher n(h);
  index.FillMask(n, mask);
  EXPECT_EQ(mask, (std::vector<uint8_t>{0, 0, 1, 0, 0}));
  index.Accept(&n, 2);
  index.FillMask(n, mask);
  EXPECT_EQ(mask, (std::vector<uint8_t>{0, 0, 0, 0, 1}));
  index.Accept(&n, 4);
  EXPECT_TRUE(n.MustEnd());
  index.FillMask(n, mask);
  EXPECT_EQ(mask, (std::vector<uint8_t>{1, 0, 0, 1, 0}));
}

TEST(TokenIndexTest, GrammarThatReadsNothing) {
  const TokenIndex index({"", "a", "\xc3", "\xed"}, {0});
  std::shared_ptr<const Grammar> g = Parse("root ::= [] | [\\uD800-\\uDFFF]");
  ASSERT_NE(g, nullptr);
  std::vector<uint8_t> mask(4, 1);
  index.FillMask(Matcher(g), mask);
  EXPECT_EQ(mask, (std::vector<uint8_t>{0, 0, 0, 0}));
}

TEST(TokenIndexTest, EmptyVocabulary) {
  const TokenIndex index({}, {0});
  EXPECT_EQ(index.n_vocab(), 0);
  EXPECT_EQ(index.n_nodes(), 0u);
  std::shared_ptr<const Grammar> g = Parse(R"(root ::= "x")");
  ASSERT_NE(g, nullptr);
  std::vector<uint8_t> mask;
  index.FillMask(Matcher(g), mask);
  EXPECT_FALSE(index.Allows(Matcher(g), 0));
}

TEST(TokenIndexTest, PiecesOfCharacters) {
  // é is C3 A9; € is E2 82 AC.
  const std::vector<std::string> pieces = {"\xc3", "\xa9", "\xa9" "a", "\xc3\xa9", "\xe2\x82", "\xac", "\xac\xac",
                                           "a", "\xa9\xc3", "\xe2", "\x82\xac" "a", "\xff"};
  const TokenIndex index(pieces, {});
  std::shared_ptr<const Grammar> g = Parse("root ::= [\xc3\xa9\xe2\x82\xac]* \"a\"");
  ASSERT_NE(g, nullptr);
  Vocab vocab{pieces, {}, {}};
  Matcher m(g);
  std::vector<uint8_t> mask = CheckState(index, vocab, m, "start");
  EXPECT_EQ(mask, (std::vector<uint8_t>{1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0}));
  index.Accept(&m, 0);  // inside é
  mask = CheckState(index, vocab, m, "after C3");
  EXPECT_EQ(mask, (std::vector<uint8_t>{0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0}));
  index.Accept(&m, 1);
  index.Accept(&m, 9);  // inside €
  mask = CheckState(index, vocab, m, "after E2");
  EXPECT_EQ(mask, (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0}));
}

// The loop shortcut accepts a subtree whole only when every byte in it leads
// back to the same state: a quote, a backslash or an excluded character
// deep in a subtree must still be seen.
TEST(TokenIndexTest, LoopShortcutStillSeesBytesThatLeaveTheLoop) {
  const std::vector<std::string> pieces = {"\"",       "ab",        "abc",     "ab\"",         "ab\\",
                                           "abcdefg", "abcdefg\"x", "ab\xc3\xa9", "ab\xc3\xa9\"", "ab\xc3",
                                           "ab\xc3\xa8", "\xc3\xa9", "\xc3\xa8zz", "a\xe2\x82\xac"};
  const TokenIndex index(pieces, {});
  Vocab vocab{pieces, {}, {}};
  // Inside a string that excludes é and the backslash.
  std::shared_ptr<const Grammar> g = Parse(R"(root ::= "\"" [^"\\\u00e9]* "\"")");
  ASSERT_NE(g, nullptr);
  Matcher m(g);
  index.Accept(&m, 0);
  const std::vector<uint8_t> mask = CheckState(index, vocab, m, "inside the string");
  EXPECT_EQ(mask, (std::vector<uint8_t>{1, 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1}));
}

// A walk whose scratch outgrows its budget compacts it mid-walk: every
// prefix of open brackets is a state of its own.
TEST(TokenIndexTest, LargeWalksStayExact) {
  std::vector<std::string> pieces;
  for (int length = 1; length <= 15; ++length) {
    for (uint32_t bits = 0; bits < (1u << length); ++bits) {
      std::string piece;
      for (int k = 0; k < length; ++k) piece += (bits >> k) & 1 ? '[' : '(';
      pieces.push_back(piece);
      if (bits % 7 == 0) pieces.push_back(piece + ")");
      if (bits % 11 == 0) pieces.push_back(piece + "]");
    }
  }
  const TokenIndex index(pieces, {});
  Vocab vocab{pieces, {}, {}};
  std::shared_ptr<const Grammar> g = Parse("root ::= b\nb ::= ( \"(\" b \")\" | \"[\" b \"]\" )*");
  ASSERT_NE(g, nullptr);
  Matcher m(g);
  CheckState(index, vocab, m, "start");
  ASSERT_TRUE(m.Accept("(["));
  const std::vector<uint8_t> mask = CheckState(index, vocab, m, "after ([");
  EXPECT_GT(std::count(mask.begin(), mask.end(), 1), 60'000);
}

TEST(TokenIndexTest, ConcurrentMasksAgree) {
  std::mt19937 rng(7);
  const Vocab vocab = RandomVocab(&rng, 3000);
  const TokenIndex index(vocab.pieces, vocab.end_arg);
  std::shared_ptr<const Grammar> json = Parse(TestGrammars()[0]);
  std::shared_ptr<const Grammar> text = Parse(TestGrammars()[3]);
  ASSERT_NE(json, nullptr);
  ASSERT_NE(text, nullptr);
  Matcher a(json);
  ASSERT_TRUE(a.Accept("{\"key\": [1, \"v"));
  Matcher b(text);
  ASSERT_TRUE(b.Accept("abc\xe2"));
  std::vector<uint8_t> want_a(vocab.pieces.size()), want_b(vocab.pieces.size());
  index.FillMask(a, want_a);
  index.FillMask(b, want_b);
  std::vector<uint8_t> got_a(vocab.pieces.size()), got_b(vocab.pieces.size());
  bool same_a = true, same_b = true;
  std::thread ta([&] {
    for (int i = 0; i < 50; ++i) {
      index.FillMask(a, got_a);
      same_a = same_a && got_a == want_a;
    }
  });
  std::thread tb([&] {
    for (int i = 0; i < 50; ++i) {
      index.FillMask(b, got_b);
      same_b = same_b && got_b == want_b;
    }
  });
  ta.join();
  tb.join();
  EXPECT_TRUE(same_a);
  EXPECT_TRUE(same_b);
  EXPECT_EQ(want_a, BruteMask(vocab, a));
  EXPECT_EQ(want_b, BruteMask(vocab, b));
}

// A real vocabulary, as the runtime indexes it (runtime/constrained_sampler.cpp:
// each token's output bytes, control tokens empty, the end-of-generation ids
// and EOS), checked against the brute force at the states of a JSON document
// and of random walks.
void CheckRealVocabulary(const std::string& file_name) {
  Expected<std::unique_ptr<tokenizer::Tokenizer>> tok =
      tokenizer::Tokenizer::FromGgufPath(testing::SourcePath("tests/data/vocab/" + file_name));
  ASSERT_TRUE(tok.ok()) << tok.status().message();
  const tokenizer::Vocab& v = (*tok)->vocab();
  Vocab vocab;
  for (int32_t id = 0; id < v.size(); ++id) {
    vocab.pieces.push_back((*tok)->TokenToPiece(id, /*render_special=*/false, /*lstrip=*/false));
  }
  vocab.end_arg = v.end_of_generation();
  vocab.end_arg.push_back(v.special().eos);
  for (int32_t id : vocab.end_arg) {
    if (v.Valid(id)) vocab.ends.insert(id);
  }
  ASSERT_FALSE(vocab.ends.empty());
  const TokenIndex index(vocab.pieces, vocab.end_arg);
  std::shared_ptr<const Grammar> g = Parse(TestGrammars()[0]);
  ASSERT_NE(g, nullptr);
  // The tokens of a document, with a state checked every few tokens.
  const std::string doc = "{\"name\": \"Zo\xc3\xab \xe2\x82\xac\xf0\x9f\x98\x80\", \"n\": [-12.5e3, 0, true],\n"
                          " \"x\": {\"y\": null}}";
  const std::vector<tokenizer::TokenId> ids = (*tok)->Encode(doc, {.add_special = false, .parse_special = false});
  Matcher m(g);
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i % 4 == 0 || i + 1 == ids.size()) CheckState(index, vocab, m, file_name + " after '" + Escaped(text) + "'");
    if (::testing::Test::HasFailure()) return;
    ASSERT_TRUE(index.Allows(m, ids[i])) << "token " << ids[i] << " after '" << Escaped(text) << "'";
    index.Accept(&m, ids[i]);
    text += vocab.pieces[static_cast<size_t>(ids[i])];
  }
  CheckState(index, vocab, m, file_name + " at the end");
  EXPECT_TRUE(m.CanEnd()) << Escaped(text);
  std::mt19937 rng(11);
  RandomWalks(g, vocab, &rng, /*n_walks=*/2, /*n_steps=*/5, file_name);
}

TEST(TokenIndexTest, RealVocabularySentencePiece) { CheckRealVocabulary("ggml-vocab-llama-spm.gguf"); }

// Byte-level BPE: many tokens are pieces of UTF-8 characters.
TEST(TokenIndexTest, RealVocabularyByteLevelBpe) { CheckRealVocabulary("ggml-vocab-gpt-2.gguf"); }

}  // namespace
}  // namespace trit::grammar
