// Tokenizer throughput on ~1 MB of mixed text: the reference cases of
// tests/data/vocab (prose, whitespace runs, digits, Cyrillic, Khmer, CJK,
// emoji) interleaved with English prose and C++ code, repeated. Bytes
// processed are input text bytes, so MB/s compare across vocabularies.
//   build-*/bench/tokenizer_bench --benchmark_min_time=1
// Add a vocabulary with one more BENCHMARK_CAPTURE line per benchmark.
#include <benchmark/benchmark.h>

#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/gguf/reader.h"
#include "tokenizer/tokenizer.h"

namespace trit::tokenizer {
namespace {

constexpr size_t kTextBytes = 1 << 20;

std::string VocabPath(const std::string& file_name) {
  return std::string(TRIT_SOURCE_DIR) + "/tests/data/vocab/" + file_name;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Deterministic: the .inp cases (separators removed) between prose and code.
const std::string& BenchText() {
  static const std::string text = [] {
    const std::string inp = ReadFile(VocabPath("ggml-vocab-llama-spm.gguf.inp"));
    const std::string_view separator = "\n__ggml_vocab_test__\n";
    std::string cases;
    for (size_t start = 0, end; (end = inp.find(separator, start)) != std::string::npos;
         start = end + separator.size()) {
      cases.append(inp, start, end - start);
      cases.push_back('\n');
    }
    const std::string prose =
        "Once upon a time, there was a little girl named Lily. She loved to play outside in the sunshine. "
        "One day, she saw a big, red ball in the park; she asked her mom, \"Can I play with it?\"\n";
    const std::string code =
        "for (size_t i = 0; i < n; ++i) {\n    out[i] = std::max(0.0f, x[i] * scale + bias[i]);\n}\n"
        "def tokenize(text: str) -> list[int]:\n    return [vocab[w] for w in text.split()]\n";
    std::string t;
    t.reserve(kTextBytes + cases.size());
    while (t.size() < kTextBytes) {
      t += prose;
      t += cases;
      t += code;
    }
    t.resize(kTextBytes);  // may cut a character: the tokenizers must cope
    return t;
  }();
  return text;
}

std::unique_ptr<Tokenizer> Load(benchmark::State& state, const std::string& file_name) {
  Expected<gguf::File> file = gguf::File::Open(VocabPath(file_name));
  if (!file.ok()) {
    state.SkipWithError(file.status().message().c_str());
    return nullptr;
  }
  Expected<std::unique_ptr<Tokenizer>> tok = Tokenizer::FromGguf(*file);
  if (!tok.ok()) {
    state.SkipWithError(tok.status().message().c_str());
    return nullptr;
  }
  return std::move(tok).value();
}

void BM_Encode(benchmark::State& state, const std::string& file_name) {
  std::unique_ptr<Tokenizer> tok = Load(state, file_name);
  if (tok == nullptr) return;
  const std::string& text = BenchText();
  size_t n_tokens = 0;
  for (auto _ : state) {
    std::vector<TokenId> ids = tok->Encode(text, {.add_special = false});
    n_tokens = ids.size();
    benchmark::DoNotOptimize(ids.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
  state.counters["tokens"] = static_cast<double>(n_tokens);
}

// Decoding the same text's ids one at a time, as generation does.
void BM_StreamingDecode(benchmark::State& state, const std::string& file_name) {
  std::unique_ptr<Tokenizer> tok = Load(state, file_name);
  if (tok == nullptr) return;
  const std::string& text = BenchText();
  const std::vector<TokenId> ids = tok->Encode(text, {.add_special = false});
  for (auto _ : state) {
    StreamingDecoder decoder(*tok, {});
    size_t bytes = 0;
    for (TokenId id : ids) bytes += decoder.Push(id).size();
    bytes += decoder.Flush().size();
    benchmark::DoNotOptimize(bytes);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}

BENCHMARK_CAPTURE(BM_Encode, llama_spm, std::string("ggml-vocab-llama-spm.gguf"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Encode, bert_bge, std::string("ggml-vocab-bert-bge.gguf"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Encode, gpt_2, std::string("ggml-vocab-gpt-2.gguf"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Encode, deepseek_llm, std::string("ggml-vocab-deepseek-llm.gguf"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_StreamingDecode, llama_spm, std::string("ggml-vocab-llama-spm.gguf"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_StreamingDecode, bert_bge, std::string("ggml-vocab-bert-bge.gguf"))
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_StreamingDecode, gpt_2, std::string("ggml-vocab-gpt-2.gguf"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_StreamingDecode, deepseek_llm, std::string("ggml-vocab-deepseek-llm.gguf"))
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace trit::tokenizer

BENCHMARK_MAIN();
