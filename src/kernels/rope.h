// Rotary position embedding (RoPE).
//
// For pair i (0 <= i < n_rot / 2) the angle is
//   theta_i = pos * freq_scale * freq_base^(-2i / n_rot) / freq_factors[i]
// (freq_factors: optional, llama.cpp's rope_freqs; gemma4's proportional
// rope leaves pairs unrotated with factors of 1e30)
// and the pair (a, b) becomes (a cos - b sin, a sin + b cos).
// YaRN (yarn_ext_factor > 0, gpt-oss), as llama.cpp's rope_yarn: with
// theta_x the angle above without freq_scale (extrapolated) and theta_i =
// freq_scale * theta_x (interpolated), ramp_i = 1 - clamp((i - low) /
// max(0.001, high - low), 0, 1) over the correction dims [low, high],
//   theta_i' = theta_i (1 - ramp_i ext) + theta_x ramp_i ext
// and cos, sin are scaled by mscale (1 + 0.1 ln(1 / freq_scale) for
// llama.cpp's YaRN), which scales every score by mscale^2.
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
  float yarn_ext_factor = 0.0f;         // > 0: YaRN's blend of interpolated and extrapolated angles
  float yarn_low = 0.0f;                // YaRN's correction dims (pair indices)
  float yarn_high = 0.0f;
  float mscale = 1.0f;                  // cos and sin multiplied by this (YaRN's magnitude scaling)
};

// llama.cpp's ggml_rope_yarn_corr_dims: the pair range [low, high] whose
// angles YaRN blends, from the original context length and the beta_fast /
// beta_slow rotation counts: floor and ceil of
// n_rot ln(n_ctx_orig / (beta 2 pi)) / (2 ln base), clamped to [0, n_rot - 1].
void YarnCorrDims(int64_t n_rot, int64_t n_ctx_orig, float freq_base, float beta_fast, float beta_slow, float* low,
                  float* high);

// cos_out, sin_out (n_rot / 2): the angles of position `pos`, computed in double.
void RopeAngles(const RopeParams& p, int64_t pos, float* cos_out, float* sin_out);

// Rotates one head (head_dim >= n_rot floats) in place with angles from RopeAngles.
void RopeApply(const RopeParams& p, const float* cos_in, const float* sin_in, float* head);

}  // namespace trit::kernels
