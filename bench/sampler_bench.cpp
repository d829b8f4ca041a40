// One sampled token over a vocabulary row of a real size (Gemma 3's 262,144,
// Qwen3's 151,936, Llama 3's 128,256, llama's 32,000) with the option sets
// people run: trit run's defaults (temp 0.8, top-k 40, top-p 0.95, min-p
// 0.05), OpenAI's (temp 0.8 or 1, no top-k, top-p 1: trit serve's default),
// top-p alone, min-p alone; and greedy. BM_SortingSampler is the sampler
// before it became O(vocab) (a full sort of the row per token), kept here
// only as the baseline of docs/PERFORMANCE.md.
//   build/bench/sampler_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "runtime/sampler.h"

namespace trit::runtime {
namespace {

// Logits shaped like a language model's: a broad normal body and a handful
// of likely tokens several units above it.
std::vector<float> Row(int64_t n_vocab) {
  std::mt19937_64 rng(n_vocab);
  std::normal_distribution<float> body(0.0f, 2.5f);
  std::vector<float> v(static_cast<size_t>(n_vocab));
  for (float& x : v) x = body(rng);
  for (int i = 0; i < 20; ++i) v[rng() % v.size()] = 12.0f + static_cast<float>(i % 8);
  return v;
}

SamplerOptions Options(int64_t set) {
  SamplerOptions o;
  o.seed = 1;
  switch (set) {
    case 0: o.temperature = 0.8f, o.top_k = 40, o.top_p = 0.95f, o.min_p = 0.05f; break;  // trit run
    case 1: o.temperature = 0.8f; break;                                                 // OpenAI, temp 0.8
    case 2: o.temperature = 1.0f, o.top_p = 0.95f; break;                                // top-p alone
    case 3: o.temperature = 1.0f, o.min_p = 0.05f; break;                                // min-p alone
    default: o.temperature = 0.0f; break;                                                // greedy
  }
  return o;
}

void SetLabel(benchmark::State& state) {
  static const char* kNames[] = {"run-defaults", "openai-t0.8", "top-p-0.95", "min-p-0.05", "greedy"};
  state.SetLabel(kNames[state.range(1)]);
}

void BM_Sampler(benchmark::State& state) {
  const std::vector<float> row = Row(state.range(0));
  Sampler s(Options(state.range(1)));
  for (auto _ : state) benchmark::DoNotOptimize(s.Sample(row, {}, 0));
  SetLabel(state);
}

// The previous sampler's candidate step: every id sorted by logit.
void BM_SortingSampler(benchmark::State& state) {
  const std::vector<float> row = Row(state.range(0));
  const SamplerOptions o = Options(state.range(1));
  std::mt19937_64 rng(o.seed);
  for (auto _ : state) {
    std::vector<int32_t> ids(row.size());
    std::iota(ids.begin(), ids.end(), 0);
    std::sort(ids.begin(), ids.end(), [&](int32_t a, int32_t b) {
      const float la = row[static_cast<size_t>(a)], lb = row[static_cast<size_t>(b)];
      return la != lb ? la > lb : a < b;
    });
    if (o.top_k > 0) ids.resize(static_cast<size_t>(o.top_k));
    double sum = 0.0;
    for (int32_t id : ids) sum += std::exp((row[static_cast<size_t>(id)] - row[static_cast<size_t>(ids[0])]) / o.temperature);
    benchmark::DoNotOptimize(sum);
    benchmark::DoNotOptimize(rng());
  }
  SetLabel(state);
}

void Sizes(benchmark::internal::Benchmark* b) {
  for (int64_t n : {262144, 151936, 128256, 32000}) {
    for (int64_t set = 0; set < 5; ++set) b->Args({n, set});
  }
}

BENCHMARK(BM_Sampler)->Apply(Sizes)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_SortingSampler)->Args({262144, 0})->Args({262144, 1})->Args({32000, 1})->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace trit::runtime

BENCHMARK_MAIN();
