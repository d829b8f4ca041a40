// The pre-norm decoder-only transformer shared by llama-family
// architectures (llama, qwen2, qwen3): RMSNorm, GQA attention with RoPE,
// SwiGLU feed-forward. An architecture file chooses the variant (biases on
// q/k/v, RMS norms on q and k per head, rope mode) and this file binds the
// weights by their GGUF names and runs the forward pass.
#pragma once

#include <cstdint>
#include <vector>

#include "formats/gguf/reader.h"
#include "kernels/matmul.h"
#include "model/hparams.h"
#include "model/model.h"
#include "model/tensor_binder.h"

namespace trit::model {

struct DecoderOptions {
  bool qkv_bias = false;  // blk.N.attn_{q,k,v}.bias (qwen2)
  bool qk_norm = false;   // blk.N.attn_{q,k}_norm.weight, RMS-normed per head before rope (qwen3)
};

struct LayerWeights {
  const float* attn_norm = nullptr;  // (n_embd)
  kernels::Matrix wq;                // (n_embd) -> (n_head * head_dim)
  kernels::Matrix wk;                // (n_embd) -> (n_head_kv * head_dim)
  kernels::Matrix wv;                // (n_embd) -> (n_head_kv * head_dim)
  const float* bq = nullptr;         // (n_head * head_dim), optional
  const float* bk = nullptr;         // (n_head_kv * head_dim), optional
  const float* bv = nullptr;         // (n_head_kv * head_dim), optional
  const float* q_norm = nullptr;     // (head_dim), optional
  const float* k_norm = nullptr;     // (head_dim), optional
  kernels::Matrix wo;                // (n_head * head_dim) -> (n_embd)
  const float* ffn_norm = nullptr;   // (n_embd)
  kernels::Matrix gate;              // (n_embd) -> (n_ff)
  kernels::Matrix up;                // (n_embd) -> (n_ff)
  kernels::Matrix down;              // (n_ff) -> (n_embd)
};

struct DecoderWeights {
  kernels::Matrix token_embd;          // (n_vocab, n_embd): row = a token's embedding
  const float* output_norm = nullptr;  // (n_embd)
  kernels::Matrix output;              // (n_embd) -> (n_vocab); token_embd when tied (no output.weight)
  std::vector<LayerWeights> layers;    // (n_layer)
};

// Binds every weight; errors name the tensor and expected vs actual shape.
Expected<DecoderWeights> BindDecoderWeights(const gguf::File& file, const HParams& h, const DecoderOptions& options);

class DecoderModel final : public Model {
 public:
  DecoderModel(gguf::File file, HParams hparams, DecoderWeights weights)
      : file_(std::move(file)), hparams_(std::move(hparams)), weights_(std::move(weights)) {}

  const HParams& hparams() const override { return hparams_; }
  void Forward(const ForwardBatch& batch, KvProvider& kv, ThreadPool& pool, float* logits) const override;

 private:
  // x (n_rows, n_embd) += attention block of layer `il`.
  void Attention(const ForwardBatch& batch, int64_t il, std::span<const kernels::KvView> views, ThreadPool& pool,
                 std::vector<float>& x) const;
  // x (n_rows, n_embd) += feed-forward block of layer `il`.
  void FeedForward(int64_t il, int64_t n_rows, ThreadPool& pool, std::vector<float>& x) const;

  gguf::File file_;  // owns the mapping the weights point into
  HParams hparams_;
  DecoderWeights weights_;
};

// Reads hyper-parameters, binds weights and builds the model: the body of an
// architecture's `load`.
Expected<std::unique_ptr<Model>> LoadDecoder(gguf::File file, const std::string& architecture,
                                             kernels::RopeMode rope_mode, const DecoderOptions& options);

}  // namespace trit::model
