// The optimized matmul (the `matmul` of KernelSet::kOptimized): SIMD kernels
// for the weight types listed by HasOptimizedMatMul, the reference MatMul
// (matmul.h) for every other type.
//
// Same contract as MatMul: y (m, w.n_rows) = x (m, w.n_cols) * w^T, work
// split over weight rows only, and each y[r][o] computed by one fixed
// arithmetic sequence (matmul_simd.h) whatever m, the tile of rows it is
// computed with, the thread count or the SIMD target, so a batched row is
// bit-identical to the same row computed alone.
//   - q4_0, q8_0: activations quantized per row to int8 blocks of 32
//     (activation_quant.h), exact integer block dot products;
//   - tq1_0, tq2_0: the same with blocks of 256, trits as unsigned 0..2 and
//     the activation block sum subtracted (integer, no float dequantization);
//   - q4_K, q5_K: blocks of 256 (sub-block sums of 32 for the mins), the
//     six-bit scales applied to exact integer sub-block sums; q2_K, q3_K,
//     q6_K the same with sub-blocks of 16;
//   - f32, f16, bf16: float, in dot.h's order: identical to the reference.
// The results of the quantized types differ from the reference MatMul by the
// activation rounding only (at most sum |w| * d_a / 2 per output).
#pragma once

#include <cstdint>

#include "base/thread_pool.h"
#include "kernels/matmul.h"

namespace trit::kernels {

void MatMulOptimized(const Matrix& w, const float* x, int64_t m, float* y, ThreadPool& pool);

// MatMulMany of the optimized set: matrices with quantized kernels of one
// activation block size (q, k, v; gate, up) share one quantization of x and
// one ParallelFor; anything else runs MatMulOptimized per matrix.
void MatMulOptimizedMany(std::span<const MatMulJob> jobs, const float* x, int64_t m, ThreadPool& pool);

// True when MatMulOptimized has a SIMD kernel for `type` (else it runs MatMul).
bool HasOptimizedMatMul(quant::GgmlType type);

// Elements per activation block the kernel of `type` quantizes to (0: float activations).
int64_t ActivationBlock(quant::GgmlType type);

}  // namespace trit::kernels
