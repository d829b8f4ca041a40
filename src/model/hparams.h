// Hyper-parameters of a decoder-only transformer, read only from GGUF
// metadata under the architecture's prefix ("llama.block_count", ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "formats/gguf/reader.h"
#include "kernels/rope.h"

namespace trit::model {

struct HParams {
  std::string architecture;  // "llama", "qwen2", ...
  int64_t n_vocab = 0;       // rows of token_embd.weight
  int64_t n_ctx_train = 0;   // {arch}.context_length
  int64_t n_embd = 0;        // {arch}.embedding_length
  int64_t n_layer = 0;       // {arch}.block_count
  int64_t n_head = 0;        // {arch}.attention.head_count
  int64_t n_head_kv = 0;     // {arch}.attention.head_count_kv (default n_head); the largest when per layer
  int64_t head_dim = 0;      // {arch}.attention.key_length (default n_embd / n_head)
  int64_t n_ff = 0;          // {arch}.feed_forward_length; the largest when per layer
  // The same keys per layer (n_layer entries): llama.cpp writes either one
  // number or an array (gemma4). An architecture with uniform layers binds
  // its weights with the scalars above, so a file whose layers differ fails
  // there, naming the first tensor of the wrong shape.
  std::vector<int64_t> layer_n_head_kv;
  std::vector<int64_t> layer_n_ff;
  // Mixture of experts ({arch}.expert_count, expert_used_count,
  // expert_feed_forward_length; model/moe.h): 0 experts = dense.
  int64_t n_expert = 0;
  int64_t n_expert_used = 0;
  int64_t n_ff_exp = 0;
  float rms_eps = 1e-5f;     // {arch}.attention.layer_norm_rms_epsilon
  kernels::RopeParams rope;  // n_rot from {arch}.rope.dimension_count (default head_dim)
  std::optional<int32_t> bos_id;  // tokenizer.ggml.bos_token_id
  std::optional<int32_t> eos_id;  // tokenizer.ggml.eos_token_id

  // Set by the architecture after ReadHParams (defaults = llama's behaviour).
  float embd_scale = 1.0f;     // token embeddings are multiplied by this (gemma: sqrt(n_embd))
  float attn_scale = 0.0f;     // score = q.k * attn_scale; ReadHParams sets 1/sqrt(head_dim)
  float attn_softcap = 0.0f;   // > 0: scores soft-capped (gemma2 {arch}.attn_logit_softcapping)
  float final_softcap = 0.0f;  // > 0: logits soft-capped (gemma2 {arch}.final_logit_softcapping)
  int64_t n_swa = 0;           // sliding window in keys ({arch}.attention.sliding_window), 0 = none
  std::vector<uint8_t> swa_layers;  // (n_layer) 1 = the layer uses the window and rope_swa
  kernels::RopeParams rope_swa;     // rope of sliding-window layers (gemma3: base 10000, no scaling)
  // Recurrent layers (qwen35's Gated DeltaNet) keep no keys and values but
  // recurrent_floats floats of state per sequence (conv + delta state).
  std::vector<uint8_t> recurrent_layers;  // (n_layer) 1 = recurrent; empty = none
  int64_t recurrent_floats = 0;
  // Width of each layer's cached keys (and as many values) per position,
  // when layers differ (gemma4: per-layer head sizes and KV head counts);
  // 0 = the layer keeps none (a recurrent layer, or one that reads another
  // layer's cache). Empty = kv_dim() for every attention layer.
  std::vector<int64_t> layer_kv_dims;

  int64_t q_dim() const { return n_head * head_dim; }
  int64_t kv_dim() const { return n_head_kv * head_dim; }
  bool is_swa(int64_t il) const { return n_swa > 0 && swa_layers[static_cast<size_t>(il)] != 0; }
  bool is_recurrent(int64_t il) const {
    return !recurrent_layers.empty() && recurrent_layers[static_cast<size_t>(il)] != 0;
  }
  const kernels::RopeParams& layer_rope(int64_t il) const { return is_swa(il) ? rope_swa : rope; }
  int64_t layer_kv_dim(int64_t il) const {
    if (is_recurrent(il)) return 0;
    return layer_kv_dims.empty() ? kv_dim() : layer_kv_dims[static_cast<size_t>(il)];
  }
};

// llama.cpp's layer pattern (llama_hparams::set_swa_pattern, not dense-first):
// layer il uses the sliding window when il % period < period - 1, i.e. all but
// the last layer of every `period` (gemma2: 2, even layers; gemma3: 6).
std::vector<uint8_t> SwaLayerPattern(int64_t n_layer, int64_t period);

// Reads and validates the hyper-parameters of `architecture` from `file`;
// `rope_mode` is the architecture's (not stored in GGUF). n_vocab comes from
// the shape of token_embd.weight. Errors name the key and the bad value.
Expected<HParams> ReadHParams(const gguf::File& file, const std::string& architecture,
                              kernels::RopeMode rope_mode);

// Optional metadata reads for the architecture-specific part; errors name the
// key and the bad value. An absent key leaves *out (the default) as it is and
// is an error only when `required`.
Status ReadIntKey(const gguf::File& file, const std::string& key, int64_t lo, int64_t hi, int64_t* out,
                  bool required);
// One integer per layer from `key`: a scalar (the same for every layer) or
// an array of n_layer integers, each in lo..hi. An absent key leaves *out
// as it is and is an error only when `required`.
Status ReadLayerInts(const gguf::File& file, const std::string& key, int64_t n_layer, int64_t lo, int64_t hi,
                     std::vector<int64_t>* out, bool required);
// A float that must be > 0 when present.
Status ReadPositiveFloatKey(const gguf::File& file, const std::string& key, float* out);

}  // namespace trit::model
