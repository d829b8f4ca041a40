// The grammar mask of one decoding step (grammar::TokenIndex::FillMask) over
// a 262,144-token vocabulary (Gemma 3's), for the JSON object grammar of
// response_format {"type": "json_object"} and the grammar of a JSON schema,
// at the states a generation passes through: the start, inside a string,
// inside a number, right after a key (a value must come) and where the next
// key may begin. Also the one-token check the greedy path makes instead of a
// mask (Allows) and building the index. And a whole sampling step, as the
// server runs it: runtime::ConstrainedSampler (mask, logits of disallowed
// tokens set to -infinity, draw at temperature 1) against the plain Sampler
// on the same row; their difference is what a grammar adds to a decode step.
//
//   grammar_bench --vocab=MODEL.gguf [benchmark flags]
//   TRIT_BENCH_VOCAB=MODEL.gguf grammar_bench
//
// The vocabulary is the tokenizer of that GGUF, indexed as the runtime
// indexes it (runtime::IndexVocabulary: each token's output bytes, control
// tokens empty, the end-of-generation tokens and EOS). Without one, a
// synthetic vocabulary of the same size stands in, and every benchmark name
// says "synthetic-262144": its numbers are not a real tokenizer's.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/gbnf.h"
#include "grammar/json_schema.h"
#include "grammar/matcher.h"
#include "grammar/token_index.h"
#include "runtime/constrained_sampler.h"
#include "runtime/sampler.h"
#include "tokenizer/tokenizer.h"

namespace trit::grammar {
namespace {

constexpr size_t kSyntheticSize = 262'144;

struct Vocabulary {
  std::string name;  // the file's stem, or "synthetic-262144"
  std::vector<std::string> pieces;
  std::vector<int32_t> end_tokens;
};

// As the server indexes it (runtime::ReadVocabularyBytes).
Expected<Vocabulary> LoadVocabulary(const std::string& path) {
  Expected<std::unique_ptr<tokenizer::Tokenizer>> tok = tokenizer::Tokenizer::FromGgufPath(path);
  if (!tok) return tok.status();
  runtime::VocabularyBytes bytes = runtime::ReadVocabularyBytes(**tok);
  std::string stem = path.substr(path.find_last_of('/') + 1);
  if (stem.ends_with(".gguf")) stem.resize(stem.size() - 5);
  return Vocabulary{stem + "-" + std::to_string(bytes.pieces.size()), std::move(bytes.pieces),
                    std::move(bytes.end_tokens)};
}

// A stand-in shaped roughly like a large multilingual vocabulary: the 256
// bytes, English-like words with and without a leading space, numbers,
// punctuation runs (JSON's among them), words in Cyrillic, Greek and CJK,
// emoji, whitespace runs, and a few empty control tokens.
Vocabulary SyntheticVocabulary() {
  Vocabulary v;
  v.name = "synthetic-262144";
  std::mt19937_64 rng(262144);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  const std::string_view letters = "etaoinshrdlucmfwypvbgkjqxzETAOINSHRDLUCMFWYPVBGKJQXZ";
  const std::vector<std::string_view> punct = {"\"", ":", ",", "{", "}", "[", "]", "\":", "\",", "{\"", "\"}",
                                               ".", "(", ")", "-", "_", "/", "\\", "'", "!", "?", ";", "=", "<",
                                               ">", "*", "#", "\\n", "\\\"", "`", "|"};
  const std::vector<std::string_view> scripts = {"\xd0\xb0", "\xd0\xb5", "\xd0\xbe", "\xd1\x82", "\xce\xb1",
                                                 "\xce\xbf", "\xe4\xb8\x80", "\xe7\x9a\x84", "\xe6\x98\xaf",
                                                 "\xe3\x81\xae", "\xec\x9d\x98", "\xc3\xa9", "\xc3\xbc"};
  for (int b = 0; b < 256; ++b) v.pieces.emplace_back(1, static_cast<char>(b));
  for (int i = 0; i < 8; ++i) v.pieces.emplace_back();
  while (v.pieces.size() < kSyntheticSize) {
    std::string piece;
    const size_t kind = pick(100);
    if (kind < 60) {  // a word
      if (pick(2) == 0) piece += ' ';
      for (size_t n = 2 + pick(9); n > 0; --n) piece += letters[std::min(pick(letters.size()), pick(letters.size()))];
    } else if (kind < 68) {  // a number
      if (pick(3) == 0) piece += ' ';
      for (size_t n = 1 + pick(4); n > 0; --n) piece += static_cast<char>('0' + pick(10));
    } else if (kind < 78) {  // punctuation
      for (size_t n = 1 + pick(3); n > 0; --n) piece += punct[pick(punct.size())];
    } else if (kind < 96) {  // another script
      if (pick(3) == 0) piece += ' ';
      for (size_t n = 1 + pick(4); n > 0; --n) piece += scripts[pick(scripts.size())];
    } else if (kind < 98) {  // emoji
      piece = "\xf0\x9f\x98";
      piece += static_cast<char>(0x80 + pick(64));
    } else {  // whitespace
      piece = std::string(1 + pick(16), pick(4) == 0 ? '\n' : ' ');
    }
    v.pieces.push_back(std::move(piece));
  }
  v.end_tokens = {1};
  return v;
}

struct Case {
  std::string grammar_name;
  std::shared_ptr<const Grammar> grammar;
  std::string state_name;
  std::string prefix;  // the text that leads to the state
};

std::vector<Case> Cases() {
  const char* schema = R"({"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"},
      "email":{"type":"string"},"tags":{"type":"array","items":{"type":"string"}}},"required":["name","age"]})";
  Expected<std::string> schema_gbnf = JsonSchemaToGbnf(schema);
  if (!schema_gbnf) {
    std::fprintf(stderr, "grammar_bench: %s\n", schema_gbnf.status().message().c_str());
    std::exit(1);
  }
  auto parse = [](const std::string& text) {
    Expected<std::shared_ptr<const Grammar>> g = ParseGbnf(text);
    if (!g) {
      std::fprintf(stderr, "grammar_bench: %s\n", g.status().message().c_str());
      std::exit(1);
    }
    return *g;
  };
  std::shared_ptr<const Grammar> json = parse(JsonObjectGbnf());
  std::shared_ptr<const Grammar> object = parse(*schema_gbnf);
  return {
      {"json", json, "start", ""},
      {"json", json, "in_string", "{\"name\":\"Jo"},
      {"json", json, "in_number", "{\"age\":4"},
      {"json", json, "after_key", "{\"name\":"},
      {"json", json, "next_key", "{\"name\":\"Jo\","},
      {"schema", object, "start", ""},
      {"schema", object, "in_string", "{\"name\":\"Jo"},
      {"schema", object, "in_number", "{\"name\":\"Jo\",\"age\":4"},
      {"schema", object, "after_key", "{\"name\":\"Jo\",\"age\":42,\"email\":"},
      {"schema", object, "next_key", "{\"name\":\"Jo\",\"age\":42,"},
  };
}

Matcher At(const Case& c) {
  Matcher m(c.grammar);
  if (!m.Accept(c.prefix)) {
    std::fprintf(stderr, "grammar_bench: %s refuses '%s': %s\n", c.grammar_name.c_str(), c.prefix.c_str(),
                 m.last_rejection().c_str());
    std::exit(1);
  }
  return m;
}

void BM_FillMask(benchmark::State& state, const TokenIndex* index, Case c) {
  const Matcher m = At(c);
  std::vector<uint8_t> mask(static_cast<size_t>(index->n_vocab()));
  for (auto _ : state) {
    index->FillMask(m, mask);
    benchmark::DoNotOptimize(mask.data());
  }
  state.counters["allowed"] = static_cast<double>(std::count(mask.begin(), mask.end(), 1));
}

// One token checked (the greedy path's test of its argmax), right after a
// whole mask has been computed on this thread.
void BM_Allows(benchmark::State& state, const TokenIndex* index, Case c) {
  const Matcher m = At(c);
  std::vector<uint8_t> mask(static_cast<size_t>(index->n_vocab()));
  index->FillMask(m, mask);
  const auto token = static_cast<int32_t>(std::find(mask.begin(), mask.end(), 1) - mask.begin());
  for (auto _ : state) benchmark::DoNotOptimize(index->Allows(m, token));
}

// Logits shaped like a language model's: a broad normal body and a few
// likely tokens well above it.
std::vector<float> Row(size_t n_vocab) {
  std::mt19937_64 rng(n_vocab);
  std::normal_distribution<float> body(0.0f, 2.5f);
  std::vector<float> v(n_vocab);
  for (float& x : v) x = body(rng);
  for (int i = 0; i < 20; ++i) v[rng() % v.size()] = 12.0f + static_cast<float>(i % 8);
  return v;
}

// Token ids that spell `text`, longest piece first (any spelling will do:
// it only has to bring the sampler's grammar to the case's state).
std::vector<int32_t> Spell(const TokenIndex& index, std::string_view text) {
  std::vector<int32_t> ids;
  while (!text.empty()) {
    int32_t best = -1;
    size_t best_len = 0;
    for (int32_t id = 0; id < index.n_vocab(); ++id) {
      const std::string_view p = index.token_bytes(id);
      if (!p.empty() && p.size() > best_len && !index.IsEnd(id) && text.starts_with(p)) best = id, best_len = p.size();
    }
    if (best < 0) {
      std::fprintf(stderr, "grammar_bench: no token spells the start of '%.*s'\n", static_cast<int>(text.size()),
                   text.data());
      std::exit(1);
    }
    ids.push_back(best);
    text.remove_prefix(best_len);
  }
  return ids;
}

// One sampling step at temperature 1 (OpenAI's default), with the case's
// grammar at its state (`constrained`) or without one.
void BM_SampleStep(benchmark::State& state, const TokenIndex* index, Case c, bool constrained) {
  runtime::SamplerOptions options;
  options.temperature = 1.0f;
  options.seed = 7;
  const std::vector<float> row = Row(static_cast<size_t>(index->n_vocab()));
  const std::vector<int32_t> history;
  if (!constrained) {
    runtime::Sampler sampler(options);
    for (auto _ : state) benchmark::DoNotOptimize(sampler.Sample(row, history, static_cast<int64_t>(history.size())));
    return;
  }
  runtime::ConstrainedSampler sampler(options, runtime::Constraints{{}, c.grammar}, index);
  for (int32_t id : Spell(*index, c.prefix)) sampler.Accept(id);
  for (auto _ : state) benchmark::DoNotOptimize(sampler.Sample(row, history, static_cast<int64_t>(history.size())));
}

void BM_BuildIndex(benchmark::State& state, const Vocabulary* vocab) {
  for (auto _ : state) {
    TokenIndex index(vocab->pieces, vocab->end_tokens);
    benchmark::DoNotOptimize(index.n_nodes());
  }
}

}  // namespace
}  // namespace trit::grammar

int main(int argc, char** argv) {
  using namespace trit::grammar;
  std::string path;
  if (const char* env = std::getenv("TRIT_BENCH_VOCAB")) path = env;
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--vocab=", 8) == 0) {
      path = argv[i] + 8;
    } else {
      args.push_back(argv[i]);
    }
  }
  int n_args = static_cast<int>(args.size());
  Vocabulary vocab;
  if (path.empty()) {
    std::fprintf(stderr, "grammar_bench: no --vocab or TRIT_BENCH_VOCAB: using a synthetic vocabulary\n");
    vocab = SyntheticVocabulary();
  } else {
    trit::Expected<Vocabulary> loaded = LoadVocabulary(path);
    if (!loaded) {
      std::fprintf(stderr, "grammar_bench: %s\n", loaded.status().message().c_str());
      return 1;
    }
    vocab = std::move(*loaded);
  }
  const TokenIndex index(vocab.pieces, vocab.end_tokens);
  std::fprintf(stderr, "grammar_bench: %s: %d tokens, %zu trie nodes\n", vocab.name.c_str(), index.n_vocab(),
               index.n_nodes());
  for (const Case& c : Cases()) {
    const std::string suffix = "/" + vocab.name + "/" + c.grammar_name + "/" + c.state_name;
    benchmark::RegisterBenchmark(("BM_FillMask" + suffix).c_str(), BM_FillMask, &index, c)
        ->Unit(benchmark::kMillisecond);
    if (c.state_name == "in_string" || c.state_name == "after_key") {
      benchmark::RegisterBenchmark(("BM_Allows" + suffix).c_str(), BM_Allows, &index, c)
          ->Unit(benchmark::kMicrosecond);
      benchmark::RegisterBenchmark(("BM_SampleStep" + suffix).c_str(), BM_SampleStep, &index, c, true)
          ->Unit(benchmark::kMillisecond);
    }
  }
  benchmark::RegisterBenchmark(("BM_SampleStep/" + vocab.name + "/none").c_str(), BM_SampleStep, &index, Case{}, false)
      ->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark(("BM_BuildIndex/" + vocab.name).c_str(), BM_BuildIndex, &vocab)
      ->Unit(benchmark::kMillisecond);
  benchmark::Initialize(&n_args, args.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
