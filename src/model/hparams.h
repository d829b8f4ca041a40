// Hyper-parameters of a decoder-only transformer, read only from GGUF
// metadata under the architecture's prefix ("llama.block_count", ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

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
  int64_t n_head_kv = 0;     // {arch}.attention.head_count_kv (default n_head)
  int64_t head_dim = 0;      // {arch}.attention.key_length (default n_embd / n_head)
  int64_t n_ff = 0;          // {arch}.feed_forward_length
  float rms_eps = 1e-5f;     // {arch}.attention.layer_norm_rms_epsilon
  kernels::RopeParams rope;  // n_rot from {arch}.rope.dimension_count (default head_dim)
  std::optional<int32_t> bos_id;  // tokenizer.ggml.bos_token_id
  std::optional<int32_t> eos_id;  // tokenizer.ggml.eos_token_id

  int64_t q_dim() const { return n_head * head_dim; }
  int64_t kv_dim() const { return n_head_kv * head_dim; }
};

// Reads and validates the hyper-parameters of `architecture` from `file`;
// `rope_mode` is the architecture's (not stored in GGUF). n_vocab comes from
// the shape of token_embd.weight. Errors name the key and the bad value.
Expected<HParams> ReadHParams(const gguf::File& file, const std::string& architecture,
                              kernels::RopeMode rope_mode);

}  // namespace trit::model
