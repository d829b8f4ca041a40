// Architecture 'gemma4' (Gemma 4 dense text: E2B, E4B, 31B), as llama.cpp
// runs it (src/models/gemma4.cpp) from what its convert_hf_to_gguf.py writes
// (conversion/gemma.py, Gemma4Model: norms stored as they are, no +1).
//
// Layers differ from each other, which is what sets this file apart:
//   - sliding-window or full attention per layer
//     ({arch}.attention.sliding_window_pattern, true = sliding), with their
//     own head sizes (key_length_swa / key_length), KV head counts
//     (head_count_kv, one per layer), rope (dimension_count_swa and
//     freq_base_swa / dimension_count and freq_base) and feed-forward widths
//     (feed_forward_length, one per layer: the E models' double-wide MLP);
//   - full-attention layers rotate only the pairs that rope_freqs.weight
//     leaves at factor 1 (the converter's "proportional" rope: 1e30 elsewhere);
//   - the last {arch}.attention.shared_kv_layers layers keep no keys: each
//     reads the cache of the last earlier layer of its own kind (transformers'
//     kv_sharing "store"/"reuse"; llama.cpp's reuse rule gives the same layers
//     for every released shape);
//   - a layer without attn_v.weight uses its K projection as V (the 31B's
//     attention_k_eq_v on full-attention layers).
//
// One layer (x the residual stream, one row):
//   h = rmsnorm(x) * attn_norm
//   q = rmsnorm_per_head(h Wq) * q_norm, rope
//   own KV:  k = h Wk;  v = h Wv (or k);  k = rmsnorm_per_head(k) * k_norm, rope;
//            v = rmsnorm_per_head(v) (no weight);  stored
//   a = attention(q, K, V) with scale 1 (the norms do the scaling), window on sliding layers
//   x = x + rmsnorm(a Wo) * post_attention_norm
//   x = x + rmsnorm(GeGLU(rmsnorm(x) * ffn_norm)) * post_ffw_norm
//   per-layer embeddings (E2B/E4B):  x = x + rmsnorm((gelu(x Wgate) * ple[il]) Wproj) * post_norm
//   x = x * layer_output_scale (when present)
// with, per token, ple = (rmsnorm(x0 Wple / sqrt(n_embd)) * per_layer_proj_norm
// + per_layer_token_embd[token] * sqrt(n_ple)) / sqrt(2), x0 the scaled embedding.
// Logits from the tied embedding, soft-capped by final_logit_softcapping.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/check.h"
#include "kernels/activation.h"
#include "kernels/cpu_targets.h"
#include "model/architecture.h"
#include "model/decoder.h"
#include "model/repack_weights.h"
#include "model/row_steps.h"

namespace trit::model {
namespace {

struct Gemma4Layer {
  int64_t head_dim = 0;
  int64_t n_head_kv = 0;
  int64_t n_ff = 0;
  int64_t kv_source = 0;  // the layer whose cache this one reads (itself when it keeps its own)
  HParams shape;          // the model's hyper-parameters with this layer's head size and KV heads
  const float* attn_norm = nullptr;       // (n_embd)
  kernels::Matrix wq, wk, wv, wo;         // wk, wv absent on shared-KV layers; wv absent when V = K
  const float* q_norm = nullptr;          // (head_dim)
  const float* k_norm = nullptr;          // (head_dim), own-KV layers
  const float* attn_post_norm = nullptr;  // (n_embd)
  const float* ffn_norm = nullptr;        // (n_embd)
  kernels::Matrix gate, up, down;         // GeGLU, n_ff wide
  const float* ffn_post_norm = nullptr;   // (n_embd)
  kernels::Matrix ple_gate;               // inp_gate: (n_embd) -> (n_ple)
  kernels::Matrix ple_proj;               // proj: (n_ple) -> (n_embd)
  const float* ple_post_norm = nullptr;   // post_norm (n_embd)
  const float* out_scale = nullptr;       // layer_output_scale (1), optional
  int64_t q_dim() const { return shape.n_head * head_dim; }
  int64_t kv_dim() const { return n_head_kv * head_dim; }
};

struct Gemma4Weights {
  kernels::Matrix token_embd;
  const float* output_norm = nullptr;
  kernels::Matrix output;
  kernels::Matrix ple_token_embd;        // per_layer_token_embd: rows of (n_layer * n_ple)
  kernels::Matrix ple_model_proj;        // per_layer_model_proj: (n_embd) -> (n_layer * n_ple)
  const float* ple_proj_norm = nullptr;  // per_layer_proj_norm (n_ple)
  const float* rope_freqs = nullptr;     // (n_rot / 2) of the full-attention layers
  std::vector<Gemma4Layer> layers;
  HugeBuffer repacked;
};

// What the file says about its layers, before any tensor is bound.
struct Gemma4Dims {
  int64_t head_dim_swa = 0;
  int64_t n_ple = 0;  // {arch}.embedding_length_per_layer_input; 0 = no per-layer embeddings
  int64_t first_shared = 0;  // the first layer that reads another layer's cache (n_layer: none)
};

Status ReadSwaPattern(const gguf::File& file, HParams& h) {
  const std::string key = h.architecture + ".attention.sliding_window_pattern";
  TRIT_ASSIGN_OR_RETURN(const gguf::Array* flags, file.GetArray(key));
  if (flags->element_type != gguf::ValueType::kBool) {
    return Error(ErrorCode::kCorrupt, "metadata '{}' is not an array of booleans", key);
  }
  if (static_cast<int64_t>(flags->size()) != h.n_layer) {
    return Error(ErrorCode::kCorrupt, "metadata '{}' has {} entries, expected one per layer ({})", key, flags->size(),
                 h.n_layer);
  }
  h.swa_layers.assign(static_cast<size_t>(h.n_layer), 0);
  for (int64_t il = 0; il < h.n_layer; ++il) {
    h.swa_layers[static_cast<size_t>(il)] = flags->At<bool>(static_cast<size_t>(il)) ? 1 : 0;
  }
  return Status::Ok();
}

Expected<Gemma4Dims> ReadGemma4HParams(const gguf::File& file, HParams& h) {
  const std::string p = h.architecture + ".";
  constexpr int64_t kMaxDim = int64_t{1} << 16;
  Gemma4Dims d;
  TRIT_RETURN_IF_ERROR(ReadSwaPattern(file, h));
  TRIT_RETURN_IF_ERROR(ReadIntKey(file, p + "attention.sliding_window", 1, int64_t{1} << 24, &h.n_swa, true));
  TRIT_RETURN_IF_ERROR(ReadIntKey(file, p + "attention.key_length_swa", 1, kMaxDim, &d.head_dim_swa, true));
  int64_t value_swa = d.head_dim_swa;
  TRIT_RETURN_IF_ERROR(ReadIntKey(file, p + "attention.value_length_swa", 1, kMaxDim, &value_swa, false));
  if (value_swa != d.head_dim_swa) {
    return Error(ErrorCode::kUnsupported, "metadata '{}attention.value_length_swa' is {}, expected key_length_swa {}",
                 p, value_swa, d.head_dim_swa);
  }
  h.rope_swa = h.rope;
  h.rope_swa.n_rot = d.head_dim_swa;
  h.rope_swa.freq_scale = 1.0f;
  h.rope_swa.freq_base = 10000.0f;
  TRIT_RETURN_IF_ERROR(ReadIntKey(file, p + "rope.dimension_count_swa", 2, d.head_dim_swa, &h.rope_swa.n_rot, false));
  if (h.rope_swa.n_rot % 2 != 0) {
    return Error(ErrorCode::kCorrupt, "metadata '{}rope.dimension_count_swa' is {}, expected an even number", p,
                 h.rope_swa.n_rot);
  }
  TRIT_RETURN_IF_ERROR(ReadPositiveFloatKey(file, p + "rope.freq_base_swa", &h.rope_swa.freq_base));
  TRIT_RETURN_IF_ERROR(ReadIntKey(file, p + "embedding_length_per_layer_input", 0, kMaxDim, &d.n_ple, false));
  int64_t n_shared = 0;
  TRIT_RETURN_IF_ERROR(ReadIntKey(file, p + "attention.shared_kv_layers", 0, h.n_layer - 1, &n_shared, false));
  d.first_shared = h.n_layer - n_shared;
  TRIT_RETURN_IF_ERROR(ReadPositiveFloatKey(file, p + "final_logit_softcapping", &h.final_softcap));
  h.embd_scale = std::sqrt(static_cast<float>(h.n_embd));
  h.attn_scale = 1.0f;  // q and k are RMS-normed; transformers' scaling = 1.0
  return d;
}

// Each layer's shape, and which cache it reads.
Status PlanLayers(const HParams& h, const Gemma4Dims& d, std::vector<Gemma4Layer>* layers) {
  layers->resize(static_cast<size_t>(h.n_layer));
  for (int64_t il = 0; il < h.n_layer; ++il) {
    Gemma4Layer& l = (*layers)[static_cast<size_t>(il)];
    l.head_dim = h.is_swa(il) ? d.head_dim_swa : h.head_dim;
    l.n_head_kv = h.layer_n_head_kv[static_cast<size_t>(il)];
    l.n_ff = h.layer_n_ff[static_cast<size_t>(il)];
    l.kv_source = il;
    if (il >= d.first_shared) {
      // The last layer before the shared ones that is of the same kind.
      l.kv_source = -1;
      for (int64_t src = d.first_shared - 1; src >= 0; --src) {
        if (h.is_swa(src) == h.is_swa(il)) {
          l.kv_source = src;
          break;
        }
      }
      if (l.kv_source < 0) {
        return Error(ErrorCode::kCorrupt,
                     "layer {} shares the KV cache of an earlier {} layer, but the first {} layers have none", il,
                     h.is_swa(il) ? "sliding-window" : "full-attention", d.first_shared);
      }
      const Gemma4Layer& src = (*layers)[static_cast<size_t>(l.kv_source)];
      if (src.head_dim != l.head_dim || src.n_head_kv != l.n_head_kv) {
        return Error(ErrorCode::kCorrupt, "layer {} reads layer {}'s cache, whose heads differ ({} x {} vs {} x {})",
                     il, l.kv_source, src.n_head_kv, src.head_dim, l.n_head_kv, l.head_dim);
      }
    }
    l.shape = h;
    l.shape.head_dim = l.head_dim;
    l.shape.n_head_kv = l.n_head_kv;
    l.shape.n_ff = l.n_ff;
  }
  return Status::Ok();
}

Status BindWeights(const gguf::File& file, const HParams& h, const Gemma4Dims& d, Gemma4Weights& w) {
  TensorBinder b(file, h.architecture);
  w.token_embd = b.Matrix("token_embd.weight", h.n_embd, h.n_vocab);
  w.output_norm = b.Vector("output_norm.weight", h.n_embd);
  w.output = b.Has("output.weight") ? b.Matrix("output.weight", h.n_embd, h.n_vocab) : w.token_embd;
  if (d.n_ple > 0) {
    w.ple_token_embd = b.Matrix("per_layer_token_embd.weight", h.n_layer * d.n_ple, h.n_vocab);
    w.ple_model_proj = b.Matrix("per_layer_model_proj.weight", h.n_embd, h.n_layer * d.n_ple);
    w.ple_proj_norm = b.Vector("per_layer_proj_norm.weight", d.n_ple);
  }
  const bool any_full = std::ranges::any_of(h.swa_layers, [](uint8_t s) { return s == 0; });
  if (any_full) w.rope_freqs = b.Vector("rope_freqs.weight", h.rope.n_rot / 2);
  for (int64_t il = 0; il < h.n_layer; ++il) {
    Gemma4Layer& l = w.layers[static_cast<size_t>(il)];
    const std::string p = fmt::format("blk.{}.", il);
    l.attn_norm = b.Vector(p + "attn_norm.weight", h.n_embd);
    l.wq = b.Matrix(p + "attn_q.weight", h.n_embd, l.q_dim());
    l.q_norm = b.Vector(p + "attn_q_norm.weight", l.head_dim);
    if (l.kv_source == il) {
      l.wk = b.Matrix(p + "attn_k.weight", h.n_embd, l.kv_dim());
      if (b.Has(p + "attn_v.weight")) l.wv = b.Matrix(p + "attn_v.weight", h.n_embd, l.kv_dim());
      l.k_norm = b.Vector(p + "attn_k_norm.weight", l.head_dim);
    }
    l.wo = b.Matrix(p + "attn_output.weight", l.q_dim(), h.n_embd);
    l.attn_post_norm = b.Vector(p + "post_attention_norm.weight", h.n_embd);
    l.ffn_norm = b.Vector(p + "ffn_norm.weight", h.n_embd);
    l.gate = b.Matrix(p + "ffn_gate.weight", h.n_embd, l.n_ff);
    l.up = b.Matrix(p + "ffn_up.weight", h.n_embd, l.n_ff);
    l.down = b.Matrix(p + "ffn_down.weight", l.n_ff, h.n_embd);
    l.ffn_post_norm = b.Vector(p + "post_ffw_norm.weight", h.n_embd);
    if (d.n_ple > 0) {
      l.ple_gate = b.Matrix(p + "inp_gate.weight", h.n_embd, d.n_ple);
      l.ple_proj = b.Matrix(p + "proj.weight", d.n_ple, h.n_embd);
      l.ple_post_norm = b.Vector(p + "post_norm.weight", h.n_embd);
    }
    if (b.Has(p + "layer_output_scale.weight")) l.out_scale = b.Vector(p + "layer_output_scale.weight", 1);
  }
  return b.status();
}

void Repack(Gemma4Weights& w) {
  std::vector<kernels::Matrix*> matrices;
  for (Gemma4Layer& l : w.layers) {
    for (kernels::Matrix* m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.gate, &l.up, &l.down, &l.ple_gate, &l.ple_proj}) {
      if (m->data != nullptr) matrices.push_back(m);
    }
  }
  if (w.ple_model_proj.data != nullptr) matrices.push_back(&w.ple_model_proj);
  // As the decoder's (decoder.h): a tied embedding moves with the output;
  // the per-layer token embedding is only looked up by rows and stays.
  const bool tied = w.output.data == w.token_embd.data;
  matrices.push_back(&w.output);
  RepackMatrices(matrices, &w.repacked);
  if (tied) w.token_embd = w.output;
}

class Gemma4Model final : public Model {
 public:
  Gemma4Model(gguf::File file, HParams hparams, Gemma4Dims dims, Gemma4Weights weights, const kernels::Ops& ops)
      : file_(std::move(file)), h_(std::move(hparams)), d_(dims), w_(std::move(weights)), ops_(ops) {
    for (const Gemma4Layer& l : w_.layers) {
      max_q_ = std::max(max_q_, l.q_dim());
      max_kv_ = std::max(max_kv_, l.kv_dim());
      max_head_ = std::max(max_head_, l.head_dim);
    }
    ones_.assign(static_cast<size_t>(max_head_), 1.0f);
  }

  const HParams& hparams() const override { return h_; }
  void Forward(const ForwardBatch& batch, KvProvider& kv, ThreadPool& pool, float* logits) const override;

 private:
  struct Scratch {
    std::vector<float> hn, out;          // (n, n_embd)
    std::vector<float> q, attn;          // (n, largest q_dim)
    std::vector<float> k, v;             // (n, largest kv_dim)
    std::vector<float> gate, up;         // (n, n_ff)
    std::vector<float> ple;              // (n, n_layer * n_ple) each row's per-layer inputs
    std::vector<float> ple_gate;         // (n, n_ple)
  };
  // s.ple := every row's per-layer inputs from its token and scaled embedding x.
  void PerLayerInputs(const ForwardBatch& batch, const std::vector<float>& x, ThreadPool& pool, Scratch& s) const;
  // x += the attention block of layer il.
  void Attention(const ForwardBatch& batch, int64_t il, KvProvider& kv, ThreadPool& pool, Scratch& s,
                 std::vector<float>& x) const;
  // x += the feed-forward block, then the per-layer embedding, then the layer's scale.
  void FeedForward(int64_t il, int64_t n, ThreadPool& pool, Scratch& s, std::vector<float>& x) const;

  gguf::File file_;
  HParams h_;
  Gemma4Dims d_;
  Gemma4Weights w_;
  const kernels::Ops& ops_;
  int64_t max_q_ = 0, max_kv_ = 0, max_head_ = 0;
  std::vector<float> ones_;  // (largest head_dim) the weight of V's norm, which has none
};

void Gemma4Model::PerLayerInputs(const ForwardBatch& batch, const std::vector<float>& x, ThreadPool& pool,
                                 Scratch& s) const {
  const int64_t n = static_cast<int64_t>(batch.tokens.size());
  const int64_t width = h_.n_layer * d_.n_ple;
  ops_.matmul(w_.ple_model_proj, x.data(), n, s.ple.data(), pool);
  const float proj_scale = 1.0f / std::sqrt(static_cast<float>(h_.n_embd));
  const float token_scale = std::sqrt(static_cast<float>(d_.n_ple));
  const float input_scale = 1.0f / std::sqrt(2.0f);
  EachRow(pool, n, [&](int64_t r) {
    thread_local std::vector<float> token_row;
    token_row.resize(static_cast<size_t>(width));
    kernels::DequantizeRow(w_.ple_token_embd, batch.tokens[r], token_row.data());
    float* row = &s.ple[r * width];
    for (int64_t il = 0; il < h_.n_layer; ++il) {
      float* slice = row + il * d_.n_ple;
      for (int64_t i = 0; i < d_.n_ple; ++i) slice[i] *= proj_scale;
      ops_.rms_norm(slice, w_.ple_proj_norm, d_.n_ple, h_.rms_eps, slice);
      const float* tok = token_row.data() + il * d_.n_ple;
      for (int64_t i = 0; i < d_.n_ple; ++i) slice[i] = (slice[i] + tok[i] * token_scale) * input_scale;
    }
  });
}

void Gemma4Model::Attention(const ForwardBatch& batch, int64_t il, KvProvider& kv, ThreadPool& pool, Scratch& s,
                            std::vector<float>& x) const {
  const Gemma4Layer& l = w_.layers[static_cast<size_t>(il)];
  const HParams& shape = l.shape;
  const int64_t n = static_cast<int64_t>(batch.tokens.size());
  const bool own = l.kv_source == il;
  EachRow(pool, n, [&](int64_t r) {
    ops_.rms_norm(&x[r * h_.n_embd], l.attn_norm, h_.n_embd, h_.rms_eps, &s.hn[r * h_.n_embd]);
  });
  std::vector<kernels::MatMulJob> jobs = {{&l.wq, s.q.data()}};
  if (own) {
    jobs.push_back({&l.wk, s.k.data()});
    if (l.wv.data != nullptr) jobs.push_back({&l.wv, s.v.data()});
  }
  ops_.matmul_many(std::span<const kernels::MatMulJob>(jobs), s.hn.data(), n, pool);
  if (own && l.wv.data == nullptr) std::copy_n(s.k.begin(), n * l.kv_dim(), s.v.begin());  // V = K, before K's norm

  std::vector<kernels::KvView> views(static_cast<size_t>(n));
  for (int64_t r = 0; r < n; ++r) views[static_cast<size_t>(r)] = kv.View(batch.seqs[r], l.kv_source);
  const kernels::RopeParams& rope = shape.layer_rope(il);
  const int64_t hd = l.head_dim;
  EachRow(pool, n, [&](int64_t r) {
    thread_local std::vector<float> cos_row, sin_row;
    cos_row.resize(static_cast<size_t>(rope.n_rot / 2));
    sin_row.resize(static_cast<size_t>(rope.n_rot / 2));
    kernels::RopeAngles(rope, batch.positions[r], cos_row.data(), sin_row.data());
    float* qr = &s.q[r * l.q_dim()];
    for (int64_t head = 0; head < shape.n_head; ++head) {
      ops_.rms_norm(qr + head * hd, l.q_norm, hd, h_.rms_eps, qr + head * hd);
      ops_.rope(rope, cos_row.data(), sin_row.data(), qr + head * hd);
    }
    if (!own) return;  // this layer's keys are another layer's, already stored
    float* kr = &s.k[r * l.kv_dim()];
    float* vr = &s.v[r * l.kv_dim()];
    for (int64_t head = 0; head < l.n_head_kv; ++head) {
      ops_.rms_norm(kr + head * hd, l.k_norm, hd, h_.rms_eps, kr + head * hd);
      ops_.rope(rope, cos_row.data(), sin_row.data(), kr + head * hd);
      ops_.rms_norm(vr + head * hd, ones_.data(), hd, h_.rms_eps, vr + head * hd);
    }
    kernels::KvStore(views[static_cast<size_t>(r)], batch.positions[r], kr, vr);
  });
  AttendRows(ops_, shape, il, batch, views, s.q.data(), s.attn.data(), pool);
  ops_.matmul(l.wo, s.attn.data(), n, s.out.data(), pool);
  EachRow(pool, n, [&](int64_t r) {
    float* o = &s.out[r * h_.n_embd];
    ops_.rms_norm(o, l.attn_post_norm, h_.n_embd, h_.rms_eps, o);
  });
  kernels::Add(x.data(), s.out.data(), n * h_.n_embd, x.data());
}

void Gemma4Model::FeedForward(int64_t il, int64_t n, ThreadPool& pool, Scratch& s, std::vector<float>& x) const {
  const Gemma4Layer& l = w_.layers[static_cast<size_t>(il)];
  EachRow(pool, n, [&](int64_t r) {
    ops_.rms_norm(&x[r * h_.n_embd], l.ffn_norm, h_.n_embd, h_.rms_eps, &s.hn[r * h_.n_embd]);
  });
  const kernels::MatMulJob gate_up[] = {{&l.gate, s.gate.data()}, {&l.up, s.up.data()}};
  ops_.matmul_many(std::span<const kernels::MatMulJob>(gate_up), s.hn.data(), n, pool);
  EachRow(pool, n, [&](int64_t r) {
    float* g = &s.gate[r * l.n_ff];
    ops_.geglu(g, &s.up[r * l.n_ff], l.n_ff, g);
  });
  ops_.matmul(l.down, s.gate.data(), n, s.out.data(), pool);
  EachRow(pool, n, [&](int64_t r) {
    float* o = &s.out[r * h_.n_embd];
    ops_.rms_norm(o, l.ffn_post_norm, h_.n_embd, h_.rms_eps, o);
  });
  kernels::Add(x.data(), s.out.data(), n * h_.n_embd, x.data());

  if (d_.n_ple > 0) {
    ops_.matmul(l.ple_gate, x.data(), n, s.ple_gate.data(), pool);
    const int64_t width = h_.n_layer * d_.n_ple;
    EachRow(pool, n, [&](int64_t r) {  // gelu(gate) * this layer's input
      float* g = &s.ple_gate[r * d_.n_ple];
      ops_.geglu(g, &s.ple[r * width + il * d_.n_ple], d_.n_ple, g);
    });
    ops_.matmul(l.ple_proj, s.ple_gate.data(), n, s.out.data(), pool);
    EachRow(pool, n, [&](int64_t r) {
      float* o = &s.out[r * h_.n_embd];
      ops_.rms_norm(o, l.ple_post_norm, h_.n_embd, h_.rms_eps, o);
    });
    kernels::Add(x.data(), s.out.data(), n * h_.n_embd, x.data());
  }
  if (l.out_scale != nullptr) kernels::Scale(x.data(), n * h_.n_embd, l.out_scale[0]);
}

void Gemma4Model::Forward(const ForwardBatch& batch, KvProvider& kv, ThreadPool& pool, float* logits) const {
  const int64_t n = static_cast<int64_t>(batch.tokens.size());
  TRIT_CHECK(batch.positions.size() == batch.tokens.size() && batch.seqs.size() == batch.tokens.size());
  std::vector<float> x(static_cast<size_t>(n * h_.n_embd));
  for (int64_t r = 0; r < n; ++r) {
    TRIT_CHECK(batch.tokens[r] >= 0 && batch.tokens[r] < h_.n_vocab && batch.positions[r] >= 0);
    kernels::DequantizeRow(w_.token_embd, batch.tokens[r], &x[r * h_.n_embd]);
    kernels::Scale(&x[r * h_.n_embd], h_.n_embd, h_.embd_scale);
  }
  const auto rows = [n](int64_t width) { return std::vector<float>(static_cast<size_t>(n * width)); };
  Scratch s{.hn = rows(h_.n_embd), .out = rows(h_.n_embd),
            .q = rows(max_q_), .attn = rows(max_q_),
            .k = rows(max_kv_), .v = rows(max_kv_),
            .gate = rows(h_.n_ff), .up = rows(h_.n_ff),
            .ple = rows(h_.n_layer * d_.n_ple), .ple_gate = rows(d_.n_ple)};
  if (d_.n_ple > 0) PerLayerInputs(batch, x, pool, s);
  for (int64_t il = 0; il < h_.n_layer; ++il) {
    Attention(batch, il, kv, pool, s, x);
    FeedForward(il, n, pool, s, x);
  }
  const int64_t n_out = static_cast<int64_t>(batch.logit_rows.size());
  if (n_out == 0) return;
  std::vector<float> hn(static_cast<size_t>(n_out * h_.n_embd));
  for (int64_t i = 0; i < n_out; ++i) {
    const int32_t r = batch.logit_rows[i];
    TRIT_CHECK(r >= 0 && r < n);
    ops_.rms_norm(&x[r * h_.n_embd], w_.output_norm, h_.n_embd, h_.rms_eps, &hn[i * h_.n_embd]);
  }
  ops_.matmul(w_.output, hn.data(), n_out, logits, pool);
  if (h_.final_softcap > 0.0f) kernels::SoftCapRow(logits, n_out * h_.n_vocab, h_.final_softcap);
}

Expected<std::unique_ptr<Model>> LoadGemma4(gguf::File file, const LoadOptions& load) {
  TRIT_ASSIGN_OR_RETURN(HParams h, ReadHParams(file, "gemma4", kernels::RopeMode::kNeox));
  TRIT_ASSIGN_OR_RETURN(const Gemma4Dims d, ReadGemma4HParams(file, h));
  if (load.kernels == kernels::KernelSet::kOptimized) TRIT_RETURN_IF_ERROR(kernels::CheckCpuSupport());
  Gemma4Weights w;
  TRIT_RETURN_IF_ERROR(PlanLayers(h, d, &w.layers));
  TRIT_RETURN_IF_ERROR(BindWeights(file, h, d, w));
  // The full-attention layers' rope reads the file's factors.
  h.rope.freq_factors = w.rope_freqs;
  h.layer_kv_dims.assign(static_cast<size_t>(h.n_layer), 0);
  for (int64_t il = 0; il < h.n_layer; ++il) {
    Gemma4Layer& l = w.layers[static_cast<size_t>(il)];
    l.shape.rope.freq_factors = w.rope_freqs;
    if (l.kv_source == il) h.layer_kv_dims[static_cast<size_t>(il)] = l.kv_dim();
  }
  if (load.kernels == kernels::KernelSet::kOptimized) Repack(w);
  return std::unique_ptr<Model>(
      std::make_unique<Gemma4Model>(std::move(file), std::move(h), d, std::move(w), kernels::OpsFor(load.kernels)));
}

}  // namespace

const Architecture& Gemma4Architecture() {
  static const Architecture kArchitecture{"gemma4", &LoadGemma4};
  return kArchitecture;
}

}  // namespace trit::model
