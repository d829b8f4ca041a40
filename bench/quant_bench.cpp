// Throughput of the scalar reference (de)quantizers, per type, on a 4096 x 64
// float buffer. Bytes processed are float bytes (4 per element) for both
// directions, so numbers compare across types.
//   build-*/bench/quant_bench --benchmark_min_time=0.1
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "quant/types.h"

namespace trit::quant {
namespace {

constexpr int64_t kElements = 4096 * 64;

std::vector<float> BenchData() {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(kElements);
  for (float& v : x) v = dist(rng);
  return x;
}

void BM_Dequantize(benchmark::State& state, GgmlType type) {
  const TypeInfo& t = GetType(type);
  const auto x = BenchData();
  std::vector<uint8_t> bytes(RowBytes(t, kElements).value());
  t.quantize(x.data(), bytes.data(), kElements);
  std::vector<float> y(kElements);
  for (auto _ : state) {
    t.dequantize(bytes.data(), y.data(), kElements);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kElements * static_cast<int64_t>(sizeof(float)));
}

void BM_Quantize(benchmark::State& state, GgmlType type) {
  const TypeInfo& t = GetType(type);
  const auto x = BenchData();
  std::vector<uint8_t> bytes(RowBytes(t, kElements).value());
  for (auto _ : state) {
    t.quantize(x.data(), bytes.data(), kElements);
    benchmark::DoNotOptimize(bytes.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kElements * static_cast<int64_t>(sizeof(float)));
}

// One benchmark per direction for every type the table can (de)quantize.
const bool kRegistered = [] {
  for (const TypeInfo& t : AllTypes()) {
    if (t.quantize == nullptr) continue;  // every quantizable type is dequantizable
    const std::string name(t.name);
    benchmark::RegisterBenchmark(("dequantize/" + name).c_str(), BM_Dequantize, t.type);
    benchmark::RegisterBenchmark(("quantize/" + name).c_str(), BM_Quantize, t.type);
  }
  return true;
}();

}  // namespace
}  // namespace trit::quant

BENCHMARK_MAIN();
