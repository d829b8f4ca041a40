// The per-token steps of a Gated DeltaNet layer (qwen35's linear attention):
// a causal depthwise convolution with a rolling window, and the delta-rule
// update of one head's state. Each output is computed in one fixed order
// (the lanes of every dot product are this file's, not a SIMD target's), so
// a sequence's state is the same bits however its tokens were batched and on
// whichever thread its head ran: the recurrence keeps contract 2.
#pragma once

#include <cstdint>

namespace trit::kernels {

// One token through channels [c_begin, c_end) of a causal convolution of
// width `width`: out[c] = silu(sum_t window[c][t] * w[c][t] + x[c] * w[c][width-1])
// with the window (channels, width - 1) the channel's previous inputs, oldest
// first, shifted by one to end with x[c] afterwards. w is (channels, width).
void CausalConvSiluStep(const float* w, int64_t width, float* window, int64_t c_begin, int64_t c_end,
                        const float* x, float* out);

// One token through one head's state S (dim_v rows of dim_k floats, row j
// the state's column for output j), as ggml's gated_delta_net defines it:
//   S *= exp(g);  d[j] = (v[j] - S_j . k) * beta;  S_j += d[j] * k;
//   out[j] = (S_j . q) * scale.
// q and k are the head's (dim_k), v and out (dim_v).
void DeltaNetStep(float* state, int64_t dim_k, int64_t dim_v, const float* q, const float* k, const float* v,
                  float g, float beta, float scale, float* out);

// x (n) := x / sqrt(sum x^2 + eps): ggml's rms_norm(x, eps / n) / sqrt(n),
// the L2 norm llama.cpp gives q and k.
void L2NormEps(float* x, int64_t n, float eps);

}  // namespace trit::kernels
