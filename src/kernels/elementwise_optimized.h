// RMS norm and the gated feed-forward activations (SwiGLU, GeGLU) with SIMD,
// compiled per Highway target and dispatched at run time: the optimized
// set's versions of norm.h's RmsNorm and activation.h's SwiGlu / GeGlu, with
// the same signatures.
//
// They are not the reference's bits (libm's exp and tanh, and a serial
// double sum, do not vectorise), but each is one fixed sequence of IEEE
// operations per element, with no fused multiply-add (-ffp-contract=off, and
// every multiply and add written separately), so they return the same bits
// on every target, and an element's result depends only on its own row:
//   exp: exp_fixed.h's ExpFixed, lane by lane;
//   silu(g) = g / (1 + exp(-g)); gelu(g) = (0.5 g) (1 + tanh(u)) with
//     u = (sqrt(2/pi) g) (1 + (0.044715 g) g) and tanh(u) = 1 - 2 / (1 +
//     exp(2u));
//   RmsNorm: the squares x_k * x_k (float) summed in double, element k into
//     lane k % 8 in increasing k, the lanes in dot.h's tree; then the
//     reference's scale and products.
// Non-finite inputs give unspecified (never undefined) results.
#pragma once

#include <cstdint>

namespace trit::kernels {

void RmsNormOptimized(const float* x, const float* weight, int64_t n, float eps, float* out);
void SwiGluOptimized(const float* gate, const float* up, int64_t n, float* out);
void GeGluOptimized(const float* gate, const float* up, int64_t n, float* out);

}  // namespace trit::kernels
