// Elementwise activations and arithmetic. Every output element depends only
// on the inputs at the same index; `out` may alias an input.
#pragma once

#include <cstdint>

namespace trit::kernels {

// x * sigmoid(x) = x / (1 + e^-x), e^ by exp_fixed.h's ExpFixed.
float Silu(float x);
// GELU, tanh approximation: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))),
// tanh(u) = 1 - 2 / (1 + e^2u) with ExpFixed.
float Gelu(float x);
// GELU, exact form: 0.5 x (1 + erf(x / sqrt 2)), what Hugging Face's "gelu"
// (BERT) computes. erf by Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7)
// with ExpFixed, not libm: the same bits on every machine, and no libm call
// per element of a feed-forward layer.
float GeluErf(float x);
// Soft-capping (gemma2 attention scores and final logits): cap * tanh(x / cap),
// which keeps |result| < cap and is ~x for |x| << cap. cap > 0.
float SoftCap(float x, float cap);

// out = silu(gate) * up  (the SwiGLU feed-forward's inner product)
void SwiGlu(const float* gate, const float* up, int64_t n, float* out);
// gpt-oss's clamped SwiGLU (llama.cpp's swiglu_oai, alpha 1.702, limit 7):
//   x = min(gate, 7), y = clamp(up, -7, 7), out = x / (1 + e^-(1.702 x)) * (y + 1)
void SwiGluOai(const float* gate, const float* up, int64_t n, float* out);
// out = gelu(gate) * up  (GeGLU)
void GeGlu(const float* gate, const float* up, int64_t n, float* out);
// out = relu(gate)^2 * up  (BitNet b1.58's squared-ReLU feed-forward, Hugging
// Face's "relu2"); one product order, so every kernel set shares it.
void ReluSqGlu(const float* gate, const float* up, int64_t n, float* out);
// x (n) := GeluErf(x) elementwise.
void GeluErfRow(float* x, int64_t n);
void Add(const float* a, const float* b, int64_t n, float* out);
void Mul(const float* a, const float* b, int64_t n, float* out);
// x (n) := x * s  (one scalar for every element: embedding scale, per-tensor weight scale)
void Scale(float* x, int64_t n, float s);
// x (n) := SoftCap(x, cap) elementwise.
void SoftCapRow(float* x, int64_t n, float cap);

}  // namespace trit::kernels
