// RMS norm, the gated feed-forward activations (SwiGLU, GeGLU), BERT's GELU and RoPE with
// SIMD, compiled per Highway target and dispatched at run time: the
// optimized set's versions of norm.h's RmsNorm, activation.h's SwiGlu /
// GeGlu and rope.h's RopeApply, with the same signatures and the same bits.
//
// The reference functions are written in an order that vectorises (no libm
// exp or tanh, no serial sum), and these repeat it lane by lane with no
// fused multiply-add (-ffp-contract=off, every multiply and add written
// separately), so every target returns the reference's bits, and an
// element's result depends only on its own row:
//   exp: exp_fixed.h's ExpFixed, lane by lane;
//   silu(g) = g / (1 + exp(-g)); gelu(g) = (0.5 g) (1 + tanh(u)) with
//     u = (sqrt(2/pi) g) (1 + (0.044715 g) g) and tanh(u) = 1 - 2 / (1 +
//     exp(2u));
//   RmsNorm: the squares x_k * x_k (float) summed in double, element k into
//     lane k % 8 in increasing k, the lanes in dot.h's tree; then the scale
//     1 / sqrt(mean + eps) and the products;
//   swiglu_oai: min(g, 7) / (1 + exp(-(1.702 min(g, 7)))) * (clamp(u, -7, 7) + 1);
//   RopeApply: per pair a cos - b sin and a sin + b cos, as rope.cpp;
//   GeluErf (activation.h): the erf polynomial in Horner steps, exp by
//     ExpFixed, the sign by a lane select.
// Non-finite inputs give unspecified (never undefined) results.
#pragma once

#include <cstdint>

#include "kernels/rope.h"

namespace trit::kernels {

void RmsNormOptimized(const float* x, const float* weight, int64_t n, float eps, float* out);
void SwiGluOptimized(const float* gate, const float* up, int64_t n, float* out);
void GeGluOptimized(const float* gate, const float* up, int64_t n, float* out);
void SwiGluOaiOptimized(const float* gate, const float* up, int64_t n, float* out);
void RopeApplyOptimized(const RopeParams& p, const float* cos_in, const float* sin_in, float* head);
void GeluErfRowOptimized(float* x, int64_t n);

}  // namespace trit::kernels
