// The pre-norm decoder-only transformer shared by llama-family
// architectures (llama, qwen2, qwen3, qwen3moe, gemma, gemma2, gemma3, bitnet,
// gpt-oss):
// RMSNorm, GQA attention with RoPE, gated feed-forward. An architecture file
// chooses the variant (biases on q/k/v, RMS norms on q and k per head, post-
// and sub-norms, per-tensor weight scales, FFN activation, rope mode) and
// sets its hyper-parameters (embedding scale, soft-capping, sliding window);
// this file binds the weights by their GGUF names and runs the forward pass.
//
// One layer, every option shown (x is the residual stream, one row):
//   h = rmsnorm(x) * attn_norm
//   q, k, v = h Wq^T * sq (+ bq), h Wk^T * sk (+ bk), h Wv^T * sv (+ bv)
//   q, k = rmsnorm_per_head(q) * q_norm, ... * k_norm;  rope(q), rope(k)
//   a = attention(q, K, V)  (score = cap * tanh(q.k * attn_scale / cap), window, sink)
//   a = rmsnorm(a) * attn_sub_norm;  a = a Wo^T * so (+ bo);  a = rmsnorm(a) * post_attention_norm
//   x = x + a
//   h = rmsnorm(x) * ffn_norm;  f = act(h Wg^T * sg) * (h Wu^T * su)
//   f = rmsnorm(f) * ffn_sub_norm;  f = f Wd^T * sd;  f = rmsnorm(f) * post_ffw_norm
//     (or, with experts, f = the mixture of experts over h: model/moe.h)
//   x = x + f
// where the s* are the optional per-tensor scales `blk.N.<name>.scale`.
#pragma once

#include <cstdint>
#include <vector>

#include "base/huge_buffer.h"
#include "formats/gguf/reader.h"
#include "kernels/kernel_set.h"
#include "kernels/matmul.h"
#include "model/hparams.h"
#include "model/model.h"
#include "model/moe.h"
#include "model/tensor_binder.h"

namespace trit::model {

enum class FfnActivation {
  kSilu,  // silu(gate) * up (SwiGLU)
  kGelu,  // gelu_tanh(gate) * up (GeGLU)
  kReluSquared,  // relu(gate)^2 * up (bitnet-b1.58)
};

struct DecoderOptions {
  bool qkv_bias = false;    // blk.N.attn_{q,k,v}.bias (qwen2)
  bool qk_norm = false;     // blk.N.attn_{q,k}_norm.weight, RMS-normed per head before rope (qwen3, gemma3)
  bool post_norms = false;  // blk.N.post_attention_norm / post_ffw_norm after each block (gemma2, gemma3)
  bool sub_norms = false;   // blk.N.attn_sub_norm before Wo, ffn_sub_norm before Wd (bitnet)
  // Optional per-tensor scales blk.N.{attn_q,attn_k,attn_v,attn_output,ffn_gate,ffn_up,ffn_down}.scale (bitnet).
  bool weight_scales = false;
  bool embd_output = false;    // logits always from token_embd; output.weight is not read (gemma*, bitnet)
  FfnActivation ffn_activation = FfnActivation::kSilu;
  // Mixture-of-experts feed-forward (model/moe.h) in place of gate/up/down:
  // blk.N.ffn_gate_inp and ffn_{gate,up,down}_exps (qwen3moe).
  bool moe = false;
  MoeOptions moe_options;
  bool out_bias = false;    // blk.N.attn_output.bias (gpt-oss)
  bool attn_sinks = false;  // blk.N.attn_sinks.weight, one logit per query head (gpt-oss, kernels/attention.h)
  // The name of the feed-forward block's input norm: gpt-oss's files call
  // it post_attention_norm (llama.cpp's LLM_TENSOR_ATTN_POST_NORM).
  const char* ffn_norm_name = "ffn_norm.weight";
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
  const float* attn_sub_norm = nullptr;   // (n_embd), optional
  kernels::Matrix wo;                     // (n_head * head_dim) -> (n_embd)
  const float* bo = nullptr;              // (n_embd), optional
  const float* attn_sinks = nullptr;      // (n_head), optional
  const float* attn_post_norm = nullptr;  // (n_embd), optional
  const float* ffn_norm = nullptr;        // (n_embd)
  kernels::Matrix gate;                   // (n_embd) -> (n_ff)
  kernels::Matrix up;                     // (n_embd) -> (n_ff)
  const float* ffn_sub_norm = nullptr;    // (n_ff), optional
  kernels::Matrix down;                   // (n_ff) -> (n_embd)
  const float* ffn_post_norm = nullptr;   // (n_embd), optional
  MoeWeights moe;                         // the experts, in place of gate/up/down (DecoderOptions::moe)
  // Per-tensor output scales (1), each optional: y = (x W^T) * s.
  const float* wq_scale = nullptr;
  const float* wk_scale = nullptr;
  const float* wv_scale = nullptr;
  const float* wo_scale = nullptr;
  const float* gate_scale = nullptr;
  const float* up_scale = nullptr;
  const float* down_scale = nullptr;
};

struct DecoderWeights {
  kernels::Matrix token_embd;          // (n_vocab, n_embd): row = a token's embedding
  const float* output_norm = nullptr;  // (n_embd)
  kernels::Matrix output;              // (n_embd) -> (n_vocab); token_embd when tied (no output.weight)
  std::vector<LayerWeights> layers;    // (n_layer)
  // Copies in the row-group layout (kernels/repack.h) that matrices above
  // point into instead of the file, when the optimized kernels read them so.
  HugeBuffer repacked;
  // Matrices rewritten at load (I2_S as TQ2_0) and their per-tensor scales.
  ConvertedWeights converted;
};

// Moves every matrix the optimized kernels read faster in the row-group
// layout (kernels/repack.h) into a copy in that layout and drops the file's
// pages of the original from memory slice by slice (the peak stays about
// one 4 MiB slice above the model). A tied token embedding moves with the
// output matrix it is (lookups read rows out of the groups, bit for bit); an
// untied one is left in place. Returns the bytes repacked.
// Experts (model/moe.h) move only when `experts` is true.
uint64_t RepackForOptimizedKernels(DecoderWeights& w, bool experts = true);

// Binds every weight; errors name the tensor and expected vs actual shape.
Expected<DecoderWeights> BindDecoderWeights(const gguf::File& file, const HParams& h, const DecoderOptions& options);

class DecoderModel final : public Model {
 public:
  DecoderModel(gguf::File file, HParams hparams, DecoderWeights weights, const DecoderOptions& options,
               const kernels::Ops& ops)
      : file_(std::move(file)),
        hparams_(std::move(hparams)),
        weights_(std::move(weights)),
        options_(options),
        ops_(ops) {}

  const HParams& hparams() const override { return hparams_; }
  void Forward(const ForwardBatch& batch, KvProvider& kv, ThreadPool& pool, float* logits) const override;

 private:
  // One pass's intermediate rows, allocated once per Forward and reused by
  // every layer: a prompt's buffers are megabytes, and allocated per layer
  // glibc maps and unmaps them each time (its trim threshold), so every
  // layer paid fresh page faults and zeroing (a third of Qwen3-0.6B's
  // pp128). Every element is written before it is read.
  struct Scratch {
    std::vector<float> hn;    // (n, n_embd) normed input, then the block's output
    std::vector<float> q;     // (n, n_head * head_dim)
    std::vector<float> k;     // (n, n_head_kv * head_dim)
    std::vector<float> v;     // (n, n_head_kv * head_dim)
    std::vector<float> attn;  // (n, n_head * head_dim)
    std::vector<float> gate;  // (n, n_ff); empty with experts
    std::vector<float> up;    // (n, n_ff); empty with experts
    MoeScratch moe;
  };
  // x (n_rows, n_embd) += attention block of layer `il`.
  void Attention(const ForwardBatch& batch, int64_t il, std::span<const kernels::KvView> views, ThreadPool& pool,
                 Scratch& s, std::vector<float>& x) const;
  // x (n_rows, n_embd) += feed-forward block of layer `il`.
  void FeedForward(int64_t il, int64_t n_rows, ThreadPool& pool, Scratch& s, std::vector<float>& x) const;

  gguf::File file_;  // owns the mapping the weights point into
  HParams hparams_;
  DecoderWeights weights_;
  DecoderOptions options_;
  const kernels::Ops& ops_;  // the kernel set chosen at load
};

// Steps of an attention block over a batch, shared with qwen35's gated
// attention. Per row of q (n, q_dim), k and v (n, kv_dim): RMS norms of q and
// k per head (when q_norm and k_norm are given), rope at the row's position,
// and k, v stored in the row's cache view.
void NormRopeStore(const kernels::Ops& ops, const HParams& h, int64_t il, const float* q_norm, const float* k_norm,
                   const ForwardBatch& batch, std::span<const kernels::KvView> views, float* q, float* k,
                   const float* v, ThreadPool& pool);
// attn (n, q_dim) := every query of q over its sequence's cached keys (layer
// il's scale, soft cap and window).
// sinks (n_head, optional): each query head's attention sink.
void AttendRows(const kernels::Ops& ops, const HParams& h, int64_t il, const ForwardBatch& batch,
                std::span<const kernels::KvView> views, const float* q, float* attn, ThreadPool& pool,
                const float* sinks = nullptr);

// Reads hyper-parameters, binds weights and builds the model: the body of an
// architecture's `load`.
Expected<std::unique_ptr<Model>> LoadDecoder(gguf::File file, const std::string& architecture,
                                             kernels::RopeMode rope_mode, const DecoderOptions& options,
                                             const LoadOptions& load);
// The same from hyper-parameters the architecture has read and completed.
Expected<std::unique_ptr<Model>> BuildDecoder(gguf::File file, HParams hparams, const DecoderOptions& options,
                                              const LoadOptions& load);

}  // namespace trit::model
