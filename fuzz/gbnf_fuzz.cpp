// GBNF grammars as the `grammar` field of a trit serve request brings them:
// any text must parse or give an error (never a crash, a throw, unbounded
// recursion or a runaway size), and a grammar that parses must run with its
// promises kept. Checked on each grammar that parses, over a small
// vocabulary (every single byte, whole and partial UTF-8 characters, common
// JSON pieces, the input's own quoted literals, an end token and an empty
// control token), at the states of a walk by allowed tokens chosen from the
// input's bytes (shorter where the grammar is very ambiguous):
//   - TokenIndex::FillMask, Allows and a brute force (a copy of the matcher
//     fed the token's bytes) agree on every token; end tokens exactly when
//     the matcher can end;
//   - TokenIndex::Accept moves the matcher as Matcher::Accept does;
//   - MustEnd implies CanEnd, and MustEnd exactly when the text can end and
//     no single byte is allowed, but where every byte was refused and one of
//     them only for the stack cap (a grammar too ambiguous to go on): then
//     the end token alone is allowed, and MustEnd may be false;
//   - a refused Accept leaves the state unchanged and says why; feeding a
//     text byte by byte is accepted exactly when feeding it at once is, and
//     ends in the same state; Matches agrees with both.
// A broken promise aborts, printing the grammar and what was seen.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/gbnf.h"
#include "grammar/grammar.h"
#include "grammar/matcher.h"
#include "grammar/token_index.h"

namespace {

using trit::grammar::Grammar;
using trit::grammar::Matcher;
using trit::grammar::TokenIndex;

constexpr int32_t kEndToken = 256;      // "" that ends generation
constexpr int32_t kControlToken = 257;  // "" that is never allowed
constexpr int kMaxSteps = 12;

[[noreturn]] void Fail(std::string_view grammar_text, const std::string& what) {
  std::fprintf(stderr, "gbnf_fuzz: %s\ngrammar:\n%.*s\n", what.c_str(), static_cast<int>(grammar_text.size()),
               grammar_text.data());
  std::abort();
}

std::string Hex(std::string_view bytes) {
  std::string out;
  char buf[4];
  for (char c : bytes) {
    std::snprintf(buf, sizeof(buf), "%02x ", static_cast<unsigned char>(c));
    out += buf;
  }
  return out;
}

std::vector<std::string> Vocabulary(std::string_view text) {
  std::vector<std::string> pieces;
  for (int b = 0; b < 256; ++b) pieces.emplace_back(1, static_cast<char>(b));  // ids 0..255: each byte
  pieces.emplace_back();                                                        // kEndToken
  pieces.emplace_back();                                                        // kControlToken
  for (const char* p : {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xc3", "\xa9", "\xe2\x82", "\x82\xac",
                        "\xf0\x9f", "\x98\x80", "\xed\x9f\xbf", "\xee\x80\x80", "\xf4\x8f\xbf\xbf", "true", "null",
                        "{\"", "\":", "\",\"", "\"}", "ab", "abc", "  ", "\n", "\\n", "12", "-0.5e3", "aa", "aaaa"}) {
    pieces.emplace_back(p);
  }
  // Short runs that mix ASCII, whole and cut-off characters and invalid
  // bytes, so that trie subtrees hold both, some of them only characters a
  // loop like [a-z]* or [0-9]+ takes and some also others (what the walk's
  // loop shortcut must tell apart).
  for (const char* p : {"x\xc3\xa9", "x\xe2\x82\xac", "xx", "xx\xc3\xa9", "x\xf0\x9f", "ab\xc3\xa9", "ab\xc3",
                        "ab\xff", "\xc3\xa9\xc3\xa9", "\xc3\xa9" "a", "\xc3\xa9\xe2\x82", "\xc3\xa9\xc3", "1\xc3\xa9",
                        "11", "1\xff", " \xf0\x9f\x98\x80", "  \xc3\xa9", "\"\xc3\xa9\"", "\xc3\xa9\"", "a\\n",
                        "\xe2\x82\xac\xe2\x82\xac"}) {
    pieces.emplace_back(p);
  }
  // The contents of the input's first quoted literals, and their first halves.
  size_t pos = 0;
  for (int n = 0; n < 24; ++n) {
    const size_t open = text.find('"', pos);
    if (open == std::string_view::npos) break;
    const size_t close = text.find('"', open + 1);
    if (close == std::string_view::npos) break;
    const std::string_view literal = text.substr(open + 1, std::min<size_t>(close - open - 1, 16));
    if (!literal.empty()) {
      pieces.emplace_back(literal);
      if (literal.size() > 1) pieces.emplace_back(literal.substr(0, literal.size() / 2));
    }
    pos = close + 1;
  }
  return pieces;
}

// Matcher::Accept of `bytes` at once and byte by byte agree, and a refusal
// leaves the state as it was. Returns whether the bytes were accepted.
bool CheckAccept(std::string_view grammar_text, const Matcher& from, std::string_view bytes, Matcher* after) {
  Matcher whole = from;
  const bool ok = whole.Accept(bytes);
  if (!ok && (!(whole == from) || whole.last_rejection().empty())) {
    Fail(grammar_text, "a refused Accept changed the state or gave no reason: " + Hex(bytes));
  }
  Matcher split = from;
  bool split_ok = true;
  for (size_t i = 0; i < bytes.size() && split_ok; ++i) split_ok = split.Accept(bytes.substr(i, 1));
  if (split_ok != ok || (ok && !(split == whole))) {
    Fail(grammar_text, "Accept at once and byte by byte disagree on " + Hex(bytes));
  }
  if (after != nullptr) *after = whole;
  return ok;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  trit::Expected<std::shared_ptr<const Grammar>> parsed = trit::grammar::ParseGbnf(text);
  if (!parsed) {
    if (parsed.status().message().empty()) Fail(text, "an error without a message");
    return 0;
  }
  const std::shared_ptr<const Grammar> grammar = *parsed;
  if (grammar->ToString().empty()) Fail(text, "ToString is empty");

  const std::vector<std::string> pieces = Vocabulary(text);
  const TokenIndex index(pieces, {kEndToken});
  std::vector<uint8_t> mask(pieces.size());
  Matcher matcher(grammar);
  std::string walked;
  // Each check costs about (stacks x tokens): an ambiguous grammar's walk
  // stops early so that the fuzzer keeps its pace.
  size_t budget = 200'000;
  for (int step = 0;; ++step) {
    const size_t cost = std::max<size_t>(matcher.n_stacks(), 1) * pieces.size();
    // The mask against Allows and the brute force.
    index.FillMask(matcher, mask);
    bool any_byte = false;
    std::vector<int32_t> next;
    for (size_t id = 0; id < pieces.size(); ++id) {
      const auto token = static_cast<int32_t>(id);
      bool expected = false;
      if (token == kEndToken) {
        expected = matcher.CanEnd();
      } else if (token != kControlToken) {
        Matcher copy = matcher;
        expected = copy.Accept(pieces[id]);
      }
      if ((mask[id] == 1) != expected || index.Allows(matcher, token) != expected) {
        Fail(text, "after " + Hex(walked) + ": token " + std::to_string(id) + " (" + Hex(pieces[id]) +
                       "): FillMask " + std::to_string(mask[id]) + ", Allows " +
                       std::to_string(index.Allows(matcher, token)) + ", the matcher " + std::to_string(expected));
      }
      if (expected && id < 256) any_byte = true;
      if (expected && token != kEndToken) next.push_back(token);
    }
    if (matcher.MustEnd() && !matcher.CanEnd()) Fail(text, "MustEnd without CanEnd after " + Hex(walked));
    bool capped = false;  // some byte refused for the stack cap alone
    if (!any_byte && matcher.CanEnd() && !matcher.MustEnd()) {
      for (int b = 0; b < 256 && !capped; ++b) {
        Matcher copy = matcher;
        capped = !copy.Accept(std::string(1, static_cast<char>(b))) &&
                 copy.last_rejection().find("too ambiguous") != std::string::npos;
      }
    }
    if (matcher.MustEnd() != (matcher.CanEnd() && !any_byte) && !capped) {
      Fail(text, "after " + Hex(walked) + ": MustEnd " + std::to_string(matcher.MustEnd()) + " but CanEnd " +
                     std::to_string(matcher.CanEnd()) + " and a single byte allowed: " + std::to_string(any_byte));
    }
    if (next.empty() || step == kMaxSteps || cost >= budget) break;
    budget -= cost;
    // The next token, chosen by the input's bytes; TokenIndex::Accept against Matcher::Accept.
    const int32_t token = next[(data[static_cast<size_t>(step) % size] * 131u + static_cast<uint32_t>(step)) %
                               next.size()];
    Matcher reference = matcher;
    if (!CheckAccept(text, matcher, pieces[static_cast<size_t>(token)], &reference)) {
      Fail(text, "an allowed token is refused: " + Hex(pieces[static_cast<size_t>(token)]));
    }
    index.Accept(&matcher, token);
    if (!(matcher == reference)) Fail(text, "TokenIndex::Accept and Matcher::Accept disagree");
    walked += pieces[static_cast<size_t>(token)];
  }
  // The walked text from the start, and a few derived texts.
  const Matcher start(grammar);
  Matcher end = start;
  if (!CheckAccept(text, start, walked, &end)) Fail(text, "the walked text is refused from the start: " + Hex(walked));
  if (trit::grammar::Matches(grammar, walked) != end.CanEnd()) Fail(text, "Matches disagrees with CanEnd");
  for (std::string_view derived : {std::string_view(walked).substr(0, walked.size() / 2), text.substr(0, 64),
                                   std::string_view("\xc3\xa9\xed\xa0\x80"), std::string_view("\xf4\x90\x80\x80")}) {
    Matcher after = start;
    const bool ok = CheckAccept(text, start, derived, &after);
    if (trit::grammar::Matches(grammar, derived) != (ok && after.CanEnd())) {
      Fail(text, "Matches disagrees with Accept and CanEnd on " + Hex(derived));
    }
  }
  return 0;
}
