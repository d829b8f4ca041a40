// Writes small decoder GGUF models (llama, qwen2, qwen3, gemma, gemma2,
// gemma3, bitnet, bitnet-b1.58) with random weights (gguf::Writer), for forward-pass
// tests, malformed-model tests and the numpy cross-check.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "base/status.h"
#include "quant/types.h"

namespace trit::testing {

struct RandomModelSpec {
  std::string architecture = "llama";  // written as general.architecture
  int64_t n_vocab = 48;
  int64_t n_embd = 64;
  int64_t n_layer = 2;
  int64_t n_head = 4;
  int64_t n_head_kv = 2;
  int64_t n_ff = 96;
  int64_t head_dim = 0;    // > 0: written as attention.key_length / value_length; 0: n_embd / n_head
  int64_t n_rot = 16;      // <= head_dim
  int64_t n_ctx = 256;
  bool tied = false;       // no output.weight
  bool qkv_bias = false;   // qwen2-style biases
  bool qk_norm = false;    // qwen3/gemma3-style q/k norms
  bool post_norms = false;     // gemma2/gemma3 post_attention_norm, post_ffw_norm
  bool sub_norms = false;      // bitnet attn_sub_norm, ffn_sub_norm
  bool weight_scales = false;  // bitnet blk.N.<matrix>.scale tensors (1)
  float rope_freq_base = 10000.0f;
  float rope_scale_linear = 0.0f;  // > 0: rope.scaling.type linear with this factor
  float attn_softcap = 0.0f;       // > 0: written as {arch}.attn_logit_softcapping
  float final_softcap = 0.0f;      // > 0: written as {arch}.final_logit_softcapping
  int64_t sliding_window = 0;      // > 0: written as {arch}.attention.sliding_window
  float embd_std = 1.0f;  // standard deviation of token_embd's values
  quant::GgmlType matrix_type = quant::GgmlType::kF32;
  // Every layer matrix ternary with one scale per tensor (values in {-s, 0,
  // s}: what an I2_S tensor holds); the embeddings stay f32 (bitnet-b1.58).
  // With matrix_type I2_S they are written as I2_S, otherwise as f32.
  bool ternary_matrices = false;
  std::string skip_tensor;   // not written (a missing-tensor model)
  std::string wrong_tensor;  // written with its last dimension halved
  uint64_t seed = 1;

  int64_t head_size() const { return head_dim > 0 ? head_dim : n_embd / n_head; }
};

// The spec of a small model of `architecture` with the tensors and metadata
// that architecture needs (tied for the gemma family and bitnet, post-norms,
// soft-capping, sliding windows short enough to matter over ~45 tokens, ...).
RandomModelSpec ArchitecturePreset(const std::string& architecture);

Status WriteRandomModel(const RandomModelSpec& spec, const std::string& path);

// n values offset + scale * normal(rng), as `type`'s bytes (quantized; for
// types without a quantizer, q2_K and q3_K, random blocks of about `scale`).
// n is a multiple of the block size. Shared by the random model writers.
std::vector<uint8_t> RandomTensorBytes(quant::GgmlType type, int64_t n, float scale, float offset,
                                       std::mt19937_64& rng, std::normal_distribution<float>& normal);

// Writes the model at tied_path (no output.weight) again to untied_path with
// output.weight = a copy of token_embd.weight: the same logits by another
// path (the output matrix apart from the embedding).
Status WriteUntiedCopy(const std::string& tied_path, const std::string& untied_path);

}  // namespace trit::testing
