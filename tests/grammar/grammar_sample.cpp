// Random documents from the grammar of a JSON schema, for checking them
// with a real validator (tests/python/json_schema_grammar_test.py).
//
//   grammar_sample SCHEMA_FILE SEED COUNT
//
// Converts the schema (grammar/json_schema.h), parses the grammar, and walks
// it COUNT times: at each step it tries every candidate character (printable
// ASCII and a few multi-byte ones) on a copy of the matcher and picks one of
// those accepted at random; where the text may end it ends with probability
// 1/2, and it ends where it must. Closing characters (" ] }) get extra
// weight so that strings and nesting stay short; past kFinishAfter bytes the
// walk ends along a shortest completion. Prints each document as a
// JSON string on its own line. Exits 1 on a conversion error, a walk that
// reaches a state where no candidate is accepted and the text cannot end (a
// dead end the grammar should not have), or one that runs past 100,000
// bytes.
#include <fmt/format.h>

#include <cstdio>
#include <deque>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "grammar/gbnf.h"
#include "grammar/json_schema.h"
#include "grammar/matcher.h"

namespace {

constexpr size_t kMaxBytes = 100'000;
// Past this many bytes a walk finishes along a shortest completion, so that
// patterns a random walk rarely completes ("ab+c" amid 99 candidates) end.
constexpr size_t kFinishAfter = 2'000;
constexpr size_t kMaxSearchStates = 50'000;

std::vector<std::string> Candidates() {
  std::vector<std::string> out;
  for (char c = 0x20; c < 0x7F; ++c) out.emplace_back(1, c);
  // é (2 bytes), € and U+2028 (3), 😀 (4): non-ASCII text and a line separator.
  for (const char* s : {"\xc3\xa9", "\xe2\x82\xac", "\xe2\x80\xa8", "\xf0\x9f\x98\x80"}) out.emplace_back(s);
  return out;
}

// A matcher state as a key: its stacks and pending UTF-8 character.
std::string StateKey(const trit::grammar::Matcher& m) {
  std::string key(reinterpret_cast<const char*>(m.stacks().data()), m.stacks().size() * sizeof(uint32_t));
  const trit::grammar::PartialUtf8& p = m.partial();
  for (uint32_t v : {p.value, p.n_pending, p.min, p.max}) key.append(reinterpret_cast<const char*>(&v), sizeof v);
  return key;
}

// The shortest text of candidates after which `start` can end, searched
// breadth first over distinct states; nullopt when none is found within
// kMaxSearchStates states.
std::optional<std::string> ShortestCompletion(const trit::grammar::Matcher& start,
                                              const std::vector<std::string>& candidates) {
  std::deque<std::pair<trit::grammar::Matcher, std::string>> queue{{start, ""}};
  std::unordered_set<std::string> seen{StateKey(start)};
  while (!queue.empty() && seen.size() < kMaxSearchStates) {
    auto [m, text] = std::move(queue.front());
    queue.pop_front();
    if (m.CanEnd()) return text;
    for (const std::string& c : candidates) {
      trit::grammar::Matcher next = m;
      if (next.Accept(c) && seen.insert(StateKey(next)).second) queue.emplace_back(std::move(next), text + c);
    }
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: grammar_sample SCHEMA_FILE SEED COUNT\n");
    return 2;
  }
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "grammar_sample: cannot read %s\n", argv[1]);
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  const uint64_t seed = std::stoull(argv[2]);
  const long count = std::stol(argv[3]);

  trit::Expected<std::string> gbnf = trit::grammar::JsonSchemaToGbnf(text.str());
  if (!gbnf) {
    std::fprintf(stderr, "grammar_sample: %s: %s\n", argv[1], gbnf.status().message().c_str());
    return 1;
  }
  auto grammar = trit::grammar::ParseGbnf(*gbnf);
  if (!grammar) {
    std::fprintf(stderr, "grammar_sample: %s: the grammar does not parse: %s\n%s", argv[1],
                 grammar.status().message().c_str(), gbnf->c_str());
    return 1;
  }
  const std::vector<std::string> candidates = Candidates();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (long n = 0; n < count; ++n) {
    trit::grammar::Matcher matcher(*grammar);
    std::string doc;
    while (true) {
      if (doc.size() > kFinishAfter) {
        if (std::optional<std::string> rest = ShortestCompletion(matcher, candidates)) {
          if (!matcher.Accept(*rest) || !matcher.CanEnd()) {
            std::fprintf(stderr, "grammar_sample: the matcher refused a completion a copy of it accepted\n");
            return 1;
          }
          doc += *rest;
          break;
        }
      }
      if (matcher.MustEnd() || (matcher.CanEnd() && unit(rng) < 0.5)) break;
      std::vector<size_t> accepted, closers;
      for (size_t i = 0; i < candidates.size(); ++i) {
        trit::grammar::Matcher next = matcher;
        if (!next.Accept(candidates[i])) continue;
        accepted.push_back(i);
        if (candidates[i] == "\"" || candidates[i] == "]" || candidates[i] == "}") closers.push_back(i);
      }
      if (accepted.empty()) {
        if (matcher.CanEnd()) break;
        std::fprintf(stderr, "grammar_sample: %s: dead end after %s\n", argv[1], doc.c_str());
        return 1;
      }
      const std::vector<size_t>& pool = !closers.empty() && unit(rng) < 0.25 ? closers : accepted;
      const std::string& pick = candidates[pool[std::uniform_int_distribution<size_t>(0, pool.size() - 1)(rng)]];
      if (!matcher.Accept(pick)) {
        std::fprintf(stderr, "grammar_sample: the matcher refused what a copy of it accepted\n");
        return 1;
      }
      doc += pick;
      if (doc.size() > kMaxBytes) {
        std::fprintf(stderr, "grammar_sample: %s: a walk ran past %zu bytes\n", argv[1], kMaxBytes);
        return 1;
      }
    }
    std::puts(nlohmann::json(doc).dump().c_str());
  }
  return 0;
}
