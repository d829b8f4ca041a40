// Matmul kernels at TinyLlama-1.1B shapes, and the machine's memory-read
// bandwidth they are bounded by (the roofline of decoding).
//
// GEMV (one activation row, decode) and GEMM (64 rows, a prefill chunk) per
// weight type; bytes_per_second counts weight bytes read once per call, so a
// GEMV's figure divided by BM_ReadBandwidth's (same thread count) is its
// fraction of the roofline. Weights cycle through copies totalling >= 256 MiB
// so every call reads them from DRAM, as a decode step does (L3 is smaller).
// Values are random (speed does not depend on them).
//   build/bench/kernels_bench --benchmark_min_time=0.2 --benchmark_filter='Gemv|Read'
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "base/thread_pool.h"
#include "kernels/cpu_targets.h"
#include "kernels/kernel_set.h"
#include "kernels/repack.h"
#include "kernels/matmul.h"
#include "quant/random_blocks.h"  // tests/quant/: blocks of the types without a quantizer
#include "quant/types.h"

namespace trit::kernels {
namespace {

constexpr uint64_t kWorkingSet = 256ull << 20;

// Weights: `copies` matrices of (n_rows, n_cols) `type`, together >= kWorkingSet
// (so every pass reads them from memory, as a decode step does), or one
// matrix when `cached` (read from the caches: the kernel's compute ceiling).
struct BenchWeights {
  std::vector<uint8_t> bytes;
  std::vector<Matrix> copies;
};

BenchWeights MakeWeights(quant::GgmlType type, int64_t n_rows, int64_t n_cols, bool cached) {
  const quant::TypeInfo& t = quant::GetType(type);
  const uint64_t row_bytes = quant::RowBytes(t, n_cols).value();
  const uint64_t matrix_bytes = row_bytes * static_cast<uint64_t>(n_rows);
  const uint64_t n_copies = cached ? 1 : std::max<uint64_t>(1, (kWorkingSet + matrix_bytes - 1) / matrix_bytes);
  BenchWeights w;
  w.bytes.resize(matrix_bytes * n_copies);
  // 64 distinct rows quantized once, repeated: quantizing 65M values per
  // benchmark would dominate the run. Types without a quantizer (q2_K, q3_K)
  // get random blocks instead.
  constexpr int64_t kDistinct = 64;
  std::mt19937 rng(7);
  std::vector<uint8_t> distinct(row_bytes * kDistinct);
  if (t.quantize == nullptr) {
    quant::testing::RandomBlocks(type, kDistinct * n_cols / t.block_size, 1.0f, rng, distinct.data());
  } else {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> values(static_cast<size_t>(kDistinct * n_cols));
    for (float& v : values) v = normal(rng);
    t.quantize(values.data(), distinct.data(), kDistinct * n_cols);
  }
  for (uint64_t r = 0; r < static_cast<uint64_t>(n_rows) * n_copies; ++r) {
    std::memcpy(w.bytes.data() + r * row_bytes, distinct.data() + (r % kDistinct) * row_bytes, row_bytes);
  }
  for (uint64_t c = 0; c < n_copies; ++c) {
    w.copies.push_back(Matrix{&t, w.bytes.data() + c * matrix_bytes, n_cols, n_rows, row_bytes});
  }
  return w;
}

// args: n_rows, n_cols, m (activation rows), threads, kernel set (0 optimized,
// 1 reference, 2 optimized from the row-group layout of repack.h), cached (0:
// weights from memory, 1: from the caches).
void BM_MatMul(benchmark::State& state, quant::GgmlType type) {
  const int64_t n_rows = state.range(0), n_cols = state.range(1), m = state.range(2);
  const int n_threads = static_cast<int>(state.range(3));
  const KernelSet set = state.range(4) == 1 ? KernelSet::kReference : KernelSet::kOptimized;
  const bool repacked = state.range(4) == 2;
  if (repacked && !HasRowGroupLayout(type)) {
    state.SkipWithError("no row-group layout for this type");
    return;
  }
  BenchWeights w = MakeWeights(type, n_rows, n_cols, state.range(5) != 0);
  std::vector<uint8_t> packed;
  if (repacked) {
    packed.resize(w.bytes.size());
    for (Matrix& c : w.copies) c = RepackRowGroups(c, packed.data() + (c.data - w.bytes.data()));
  }
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> x(static_cast<size_t>(m * n_cols));
  for (float& v : x) v = u(rng);
  std::vector<float> y(static_cast<size_t>(m * n_rows));
  ThreadPool pool(n_threads);
  const Ops& ops = OpsFor(set);
  size_t next = 0;
  for (auto _ : state) {
    ops.matmul(w.copies[next], x.data(), m, y.data(), pool);
    next = (next + 1) % w.copies.size();
    benchmark::DoNotOptimize(y.data());
  }
  const int64_t weight_bytes = static_cast<int64_t>(w.copies[0].row_bytes) * n_rows;
  state.SetBytesProcessed(state.iterations() * weight_bytes);
  state.counters["MACs"] = benchmark::Counter(static_cast<double>(state.iterations()) * m * n_rows * n_cols,
                                              benchmark::Counter::kIsRate);
  state.SetLabel(std::string(KernelSetName(set)) + (repacked ? " row-groups " : " ") + ActiveTargetName());
}

// Sums 64-bit words of a 256 MiB buffer, split over `threads` contiguous
// parts like the kernels' work: the read bandwidth the roofline uses.
void BM_ReadBandwidth(benchmark::State& state) {
  const int n_threads = static_cast<int>(state.range(0));
  std::vector<uint64_t> buffer(kWorkingSet / sizeof(uint64_t));
  for (size_t i = 0; i < buffer.size(); ++i) buffer[i] = i * 0x9E3779B97F4A7C15ull;
  ThreadPool pool(n_threads);
  std::vector<uint64_t> sums(static_cast<size_t>(n_threads) * 8);
  for (auto _ : state) {
    pool.ParallelFor(n_threads, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        const size_t lo = buffer.size() * static_cast<size_t>(t) / static_cast<size_t>(n_threads);
        const size_t hi = buffer.size() * static_cast<size_t>(t + 1) / static_cast<size_t>(n_threads);
        uint64_t s[8] = {};
        for (size_t i = lo; i + 8 <= hi; i += 8) {
          for (size_t j = 0; j < 8; ++j) s[j] += buffer[i + j];
        }
        for (size_t j = 0; j < 8; ++j) sums[static_cast<size_t>(t) * 8 + j] = s[j];
      }
    });
    benchmark::DoNotOptimize(sums.data());
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(kWorkingSet));
}
BENCHMARK(BM_ReadBandwidth)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

// One ParallelFor over tiny items: the pool's wake-up and join cost, paid
// by every matmul and attention call (~170 per TinyLlama decode step).
void BM_ParallelForWakeup(benchmark::State& state) {
  ThreadPool pool(static_cast<int>(state.range(0)));
  std::vector<int64_t> out(64);
  for (auto _ : state) {
    pool.ParallelFor(64, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) out[static_cast<size_t>(i)] += i;
    });
  }
  benchmark::DoNotOptimize(out.data());
}
BENCHMARK(BM_ParallelForWakeup)->Arg(1)->Arg(2)->UseRealTime();

// The 8 query heads of one KV head (TinyLlama: 32 heads, 4 KV heads, head
// size 64) over an f16 KV cache, as a decode step runs them: args n_keys,
// kernel set (0 optimized, 1 reference). Both give the same bits. "keys" is
// the rate of (key, query head) pairs.
void BM_Attend(benchmark::State& state) {
  const int64_t n_keys = state.range(0), head_dim = 64, n_q = 8;
  const KernelSet set = state.range(1) == 1 ? KernelSet::kReference : KernelSet::kOptimized;
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<uint16_t> k(static_cast<size_t>(n_keys * head_dim)), v(k.size());
  const KvView view{KvType::kF16, k.data(), v.data(), head_dim};
  std::vector<float> kr(static_cast<size_t>(head_dim)), vr(kr.size());
  std::vector<float> q(static_cast<size_t>(n_q * head_dim)), out(q.size());
  for (int64_t p = 0; p < n_keys; ++p) {
    for (size_t i = 0; i < kr.size(); ++i) kr[i] = normal(rng), vr[i] = normal(rng);
    KvStore(view, p, kr.data(), vr.data());
  }
  for (float& x : q) x = normal(rng);
  AttendOptions options;
  options.scale = 0.125f;
  std::vector<AttendQuery> queries;
  for (int64_t h = 0; h < n_q; ++h) queries.push_back({&q[h * head_dim], n_keys, &out[h * head_dim]});
  const Ops& ops = OpsFor(set);
  for (auto _ : state) {
    ops.attend(view, 0, head_dim, queries, options);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["keys"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * n_keys * n_q, benchmark::Counter::kIsRate);
  state.SetLabel(std::string(KernelSetName(set)) + " " + ActiveTargetName());
}
BENCHMARK(BM_Attend)->ArgsProduct({{64, 512}, {0, 1}})->ArgNames({"keys", "ref"})->Unit(benchmark::kMicrosecond);

// TinyLlama-1.1B: q/o (2048 x 2048), gate/up (5632 rows of 2048), down
// (2048 rows of 5632), logits (32000 rows of 2048). k/v (256 x 2048) are small.
void Shapes(benchmark::internal::Benchmark* b, int64_t m) {
  for (int threads : {1, 2}) {
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{2048, 2048}, {5632, 2048}, {2048, 5632}, {32000, 2048}}) {
      b->Args({rows, cols, m, threads, 0, 0});
    }
  }
  b->ArgNames({"rows", "cols", "m", "threads", "ref", "cached"})->UseRealTime()->Unit(benchmark::kMicrosecond);
}

void GemvShapes(benchmark::internal::Benchmark* b) {
  Shapes(b, 1);
  b->Args({2048, 2048, 1, 1, 1, 0});  // the reference kernel, for the speed-up
  b->Args({1024, 2048, 1, 1, 0, 1});  // from the caches: the compute ceiling of one core
  for (int threads : {1, 2}) b->Args({5632, 2048, 1, threads, 2, 0})->Args({32000, 2048, 1, threads, 2, 0});
  b->Args({1024, 2048, 1, 1, 2, 1});
}
void GemmShapes(benchmark::internal::Benchmark* b) {
  b->Args({2048, 2048, 64, 1, 0, 0})->Args({2048, 2048, 64, 2, 0, 0})->Args({5632, 2048, 64, 2, 0, 0});
  b->Args({5632, 2048, 64, 2, 2, 0});  // row-group layout
  b->Args({1024, 2048, 64, 1, 2, 1});  // row groups from the caches: one core's prefill ceiling
  b->Args({1024, 2048, 64, 1, 0, 1});  // rows from the caches (the float types have no row groups)
  b->Args({5632, 2048, 64, 1, 2, 0});  // row groups from memory, one core: the same kernel beside it
  b->ArgNames({"rows", "cols", "m", "threads", "ref", "cached"})->UseRealTime()->Unit(benchmark::kMillisecond);
}

// Gemma 3 270M (hidden 640, feed-forward 2048): llama-quantize writes its
// 640-wide matrices (q, gate, up) in q5_0 even in a Q4_K_M file (rows not a
// multiple of 256). Decode and a 64-row prefill tile, rows vs row groups.
void Gemma640Shapes(benchmark::internal::Benchmark* b) {
  for (int64_t m : {1, 64}) {
    for (int64_t layout : {0, 2}) b->Args({2048, 640, m, 2, layout, 0})->Args({1024, 640, m, 1, layout, 1});
  }
  b->ArgNames({"rows", "cols", "m", "threads", "ref", "cached"})->UseRealTime()->Unit(benchmark::kMicrosecond);
}
BENCHMARK_CAPTURE(BM_MatMul, Gemma_Q5_0, quant::GgmlType::kQ5_0)->Apply(Gemma640Shapes);
BENCHMARK_CAPTURE(BM_MatMul, Gemma_Q5_1, quant::GgmlType::kQ5_1)->Apply(Gemma640Shapes);
BENCHMARK_CAPTURE(BM_MatMul, Gemma_Q4_1, quant::GgmlType::kQ4_1)->Apply(Gemma640Shapes);
BENCHMARK_CAPTURE(BM_MatMul, Gemma_IQ4_NL, quant::GgmlType::kIQ4_NL)->Apply(Gemma640Shapes);

#define TRIT_MATMUL_BENCH(type)                                                   \
  BENCHMARK_CAPTURE(BM_MatMul, Gemv_##type, quant::GgmlType::k##type)->Apply(GemvShapes); \
  BENCHMARK_CAPTURE(BM_MatMul, Gemm_##type, quant::GgmlType::k##type)->Apply(GemmShapes)

TRIT_MATMUL_BENCH(TQ2_0);
TRIT_MATMUL_BENCH(TQ1_0);
TRIT_MATMUL_BENCH(Q4_0);
TRIT_MATMUL_BENCH(Q8_0);
TRIT_MATMUL_BENCH(Q4_1);
TRIT_MATMUL_BENCH(Q5_0);
TRIT_MATMUL_BENCH(Q5_1);
TRIT_MATMUL_BENCH(Q2_K);
TRIT_MATMUL_BENCH(Q3_K);
TRIT_MATMUL_BENCH(Q4_K);
TRIT_MATMUL_BENCH(Q5_K);
TRIT_MATMUL_BENCH(Q6_K);
TRIT_MATMUL_BENCH(IQ4_NL);
TRIT_MATMUL_BENCH(IQ4_XS);
TRIT_MATMUL_BENCH(MXFP4);
TRIT_MATMUL_BENCH(F16);
TRIT_MATMUL_BENCH(BF16);

}  // namespace
}  // namespace trit::kernels

BENCHMARK_MAIN();
