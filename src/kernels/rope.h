// Rotary position embedding (RoPE).
//
// For pair i (0 <= i < n_rot / 2) the angle is
//   theta_i = pos * freq_scale * freq_base^(-2i / n_rot) / freq_factors[i]
// (freq_factors: optional, llama.cpp's rope_freqs; gemma4's proportional
// rope leaves pairs unrotated with factors of 1e30)
// and the pair (a, b) becomes (a cos - b sin, a sin + b cos).
// kNormal (llama): pairs are (x[2i], x[2i+1]).
// kNeox (qwen2, qwen3, ...): pairs are (x[i], x[i + n_rot/2]).
// Elements at index >= n_rot are left unchanged.
#pragma once

#include <cstdint>

namespace trit::kernels {

enum class RopeMode { kNormal, kNeox };

struct RopeParams {
  int64_t n_rot = 0;  // rotated dimensions per head (even, <= head_dim)
  float freq_base = 10000.0f;
  float freq_scale = 1.0f;
  RopeMode mode = RopeMode::kNormal;
  const float* freq_factors = nullptr;  // (n_rot / 2) optional divisors of the angles
};

// cos_out, sin_out (n_rot / 2): the angles of position `pos`, computed in double.
void RopeAngles(const RopeParams& p, int64_t pos, float* cos_out, float* sin_out);

// Rotates one head (head_dim >= n_rot floats) in place with angles from RopeAngles.
void RopeApply(const RopeParams& p, const float* cos_in, const float* sin_in, float* head);

}  // namespace trit::kernels
