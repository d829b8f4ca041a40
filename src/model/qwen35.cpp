// Architecture 'qwen35' (Qwen3.5 dense): a hybrid stack of Gated DeltaNet
// layers (linear attention with a recurrent state) and, every
// {arch}.full_attention_interval-th layer (or as {arch}.attention.recurrent_layers
// lists), gated full attention. Names, keys and the math follow llama.cpp
// (src/models/qwen35.cpp, delta-net-base.cpp); the GGUF is what its
// convert_hf_to_gguf.py writes (V heads tiled over K heads, A stored as
// -exp(A_log), norms with the +1 folded in).
//
// One layer (x the residual stream, one row):
//   h = rmsnorm(x) * attn_norm
//   recurrent:  qkv = conv1d_causal(h Wqkv) then silu; q, k L2-normed per head;
//               g = ssm_a * softplus(h Walpha + dt_bias); beta = sigmoid(h Wbeta);
//               per V head (its K head = head % n_k_heads): the delta rule
//               (kernels/delta_net.h); o = rmsnorm(o) * ssm_norm * silu(h Wz); a = o Wout
//   attention:  [q | gate] per head = h Wq; q, k RMS-normed per head; rope
//               (neox on rope.dimension_count dims: for text every MRoPE
//               section has the same position); a = (attn(q, K, V) * sigmoid(gate)) Wo
//   x = x + a;  h = rmsnorm(x) * post_attention_norm;  x = x + SwiGLU(h)
//
// The recurrence runs token by token in batch order, each V head on one
// thread, so a row's state and logits are the same bits however the rows
// were chunked (contract 2); the projections around it stay batched matmuls,
// which is where a prompt's time goes (docs/ARCHITECTURE.md).
//
// The cache keeps per sequence and recurrent layer: the conv window
// ((conv_kernel - 1) x conv channels) then the V heads' states
// (n_v_heads x head_v x head_k). The NextN (MTP) block
// ({arch}.nextn_predict_layers layers after the trunk) is not run.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/check.h"
#include "kernels/cpu_targets.h"
#include "kernels/delta_net.h"
#include "model/architecture.h"
#include "model/decoder.h"
#include "model/repack_weights.h"
#include "model/row_steps.h"

namespace trit::model {
namespace {

struct DeltaNetDims {
  int64_t conv_width = 0;  // {arch}.ssm.conv_kernel
  int64_t head_k = 0;      // {arch}.ssm.state_size
  int64_t head_v = 0;      // {arch}.ssm.inner_size / n_v_heads
  int64_t n_k_heads = 0;   // {arch}.ssm.group_count
  int64_t n_v_heads = 0;   // {arch}.ssm.time_step_rank
  int64_t key_dim() const { return head_k * n_k_heads; }
  int64_t value_dim() const { return head_v * n_v_heads; }
  int64_t conv_dim() const { return 2 * key_dim() + value_dim(); }
  int64_t window_floats() const { return (conv_width - 1) * conv_dim(); }
  int64_t state_floats() const { return n_v_heads * head_v * head_k; }
};

struct Qwen35Layer {
  const float* attn_norm = nullptr;       // (n_embd)
  const float* post_norm = nullptr;       // (n_embd) post_attention_norm: the feed-forward's input norm
  kernels::Matrix gate, up, down;         // SwiGLU
  // Full attention.
  kernels::Matrix wq;                     // (n_embd) -> n_head x [q (head_dim) | gate (head_dim)]
  kernels::Matrix wk, wv, wo;
  const float* q_norm = nullptr;          // (head_dim)
  const float* k_norm = nullptr;          // (head_dim)
  // Gated DeltaNet.
  kernels::Matrix wqkv;                   // (n_embd) -> (conv_dim) [q heads | k heads | v heads]
  kernels::Matrix wz;                     // attn_gate: (n_embd) -> (value_dim)
  kernels::Matrix walpha, wbeta;          // (n_embd) -> (n_v_heads)
  const float* conv = nullptr;            // (conv_dim, conv_width)
  const float* dt_bias = nullptr;         // (n_v_heads)
  const float* ssm_a = nullptr;           // (n_v_heads) -exp(A_log)
  const float* ssm_norm = nullptr;        // (head_v)
  kernels::Matrix ssm_out;                // (value_dim) -> (n_embd)
};

struct Qwen35Weights {
  kernels::Matrix token_embd;
  const float* output_norm = nullptr;
  kernels::Matrix output;
  std::vector<Qwen35Layer> layers;
  HugeBuffer repacked;
};

Expected<Qwen35Weights> BindWeights(const gguf::File& file, const HParams& h, const DeltaNetDims& d) {
  TensorBinder b(file, h.architecture);
  Qwen35Weights w;
  w.token_embd = b.Matrix("token_embd.weight", h.n_embd, h.n_vocab);
  w.output_norm = b.Vector("output_norm.weight", h.n_embd);
  w.output = b.Has("output.weight") ? b.Matrix("output.weight", h.n_embd, h.n_vocab) : w.token_embd;
  w.layers.resize(static_cast<size_t>(h.n_layer));
  for (int64_t il = 0; il < h.n_layer; ++il) {
    Qwen35Layer& l = w.layers[static_cast<size_t>(il)];
    const std::string p = fmt::format("blk.{}.", il);
    l.attn_norm = b.Vector(p + "attn_norm.weight", h.n_embd);
    l.post_norm = b.Vector(p + "post_attention_norm.weight", h.n_embd);
    if (h.is_recurrent(il)) {
      l.wqkv = b.Matrix(p + "attn_qkv.weight", h.n_embd, d.conv_dim());
      l.wz = b.Matrix(p + "attn_gate.weight", h.n_embd, d.value_dim());
      l.conv = b.FloatMatrix(p + "ssm_conv1d.weight", d.conv_width, d.conv_dim());
      l.dt_bias = b.Vector(p + "ssm_dt.bias", d.n_v_heads);
      l.ssm_a = b.Vector(p + "ssm_a", d.n_v_heads);
      l.wbeta = b.Matrix(p + "ssm_beta.weight", h.n_embd, d.n_v_heads);
      l.walpha = b.Matrix(p + "ssm_alpha.weight", h.n_embd, d.n_v_heads);
      l.ssm_norm = b.Vector(p + "ssm_norm.weight", d.head_v);
      l.ssm_out = b.Matrix(p + "ssm_out.weight", d.value_dim(), h.n_embd);
    } else {
      l.wq = b.Matrix(p + "attn_q.weight", h.n_embd, 2 * h.q_dim());
      l.wk = b.Matrix(p + "attn_k.weight", h.n_embd, h.kv_dim());
      l.wv = b.Matrix(p + "attn_v.weight", h.n_embd, h.kv_dim());
      l.wo = b.Matrix(p + "attn_output.weight", h.q_dim(), h.n_embd);
      l.q_norm = b.Vector(p + "attn_q_norm.weight", h.head_dim);
      l.k_norm = b.Vector(p + "attn_k_norm.weight", h.head_dim);
    }
    l.gate = b.Matrix(p + "ffn_gate.weight", h.n_embd, h.n_ff);
    l.up = b.Matrix(p + "ffn_up.weight", h.n_embd, h.n_ff);
    l.down = b.Matrix(p + "ffn_down.weight", h.n_ff, h.n_embd);
  }
  TRIT_RETURN_IF_ERROR(b.status());
  return w;
}

void Repack(Qwen35Weights& w) {
  std::vector<kernels::Matrix*> matrices;
  for (Qwen35Layer& l : w.layers) {
    for (kernels::Matrix* m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.wqkv, &l.wz, &l.walpha, &l.wbeta, &l.ssm_out, &l.gate,
                               &l.up, &l.down}) {
      if (m->data != nullptr) matrices.push_back(m);
    }
  }
  // As the decoder's (decoder.h): a tied embedding moves with the output.
  const bool tied = w.output.data == w.token_embd.data;
  matrices.push_back(&w.output);
  RepackMatrices(matrices, &w.repacked);
  if (tied) w.token_embd = w.output;
}

// ggml's softplus (ggml_softplus): log(1 + e^x), x itself above 20.
float Softplus(float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); }
float Sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

class Qwen35Model final : public Model {
 public:
  Qwen35Model(gguf::File file, HParams hparams, DeltaNetDims dims, Qwen35Weights weights, const kernels::Ops& ops)
      : file_(std::move(file)), h_(std::move(hparams)), d_(dims), w_(std::move(weights)), ops_(ops) {}

  const HParams& hparams() const override { return h_; }
  void Forward(const ForwardBatch& batch, KvProvider& kv, ThreadPool& pool, float* logits) const override;

 private:
  // A pass's rows, allocated once per Forward (see DecoderModel::Scratch).
  struct Scratch {
    std::vector<float> hn, out;            // (n, n_embd)
    std::vector<float> q_gate, q, gate;    // (n, 2 q_dim), (n, q_dim), (n, q_dim)
    std::vector<float> k, v;               // (n, kv_dim)
    std::vector<float> attn;               // (n, q_dim)
    std::vector<float> qkv, conv;          // (n, conv_dim)
    std::vector<float> z, o;               // (n, value_dim)
    std::vector<float> alpha, beta;        // (n, n_v_heads)
    std::vector<float> ffn_gate, ffn_up;   // (n, n_ff)
  };
  // s.out := the layer's mixer over s.hn.
  void GatedAttention(const ForwardBatch& batch, int64_t il, std::span<const kernels::KvView> views, ThreadPool& pool,
                      Scratch& s) const;
  void DeltaNet(const ForwardBatch& batch, int64_t il, KvProvider& kv, ThreadPool& pool, Scratch& s) const;
  // x += SwiGLU(rmsnorm(x) * post_norm).
  void FeedForward(int64_t il, int64_t n, ThreadPool& pool, Scratch& s, std::vector<float>& x) const;

  gguf::File file_;
  HParams h_;
  DeltaNetDims d_;
  Qwen35Weights w_;
  const kernels::Ops& ops_;
};

void Qwen35Model::GatedAttention(const ForwardBatch& batch, int64_t il, std::span<const kernels::KvView> views,
                                 ThreadPool& pool, Scratch& s) const {
  const Qwen35Layer& l = w_.layers[static_cast<size_t>(il)];
  const int64_t n = static_cast<int64_t>(batch.tokens.size());
  const int64_t hd = h_.head_dim;
  const kernels::MatMulJob qkv[] = {{&l.wq, s.q_gate.data()}, {&l.wk, s.k.data()}, {&l.wv, s.v.data()}};
  ops_.matmul_many(std::span<const kernels::MatMulJob>(qkv), s.hn.data(), n, pool);
  EachRow(pool, n, [&](int64_t r) {  // [q | gate] per head apart
    for (int64_t head = 0; head < h_.n_head; ++head) {
      const float* src = &s.q_gate[(r * h_.n_head + head) * 2 * hd];
      std::copy(src, src + hd, &s.q[(r * h_.n_head + head) * hd]);
      std::copy(src + hd, src + 2 * hd, &s.gate[(r * h_.n_head + head) * hd]);
    }
  });
  NormRopeStore(ops_, h_, il, l.q_norm, l.k_norm, batch, views, s.q.data(), s.k.data(), s.v.data(), pool);
  AttendRows(ops_, h_, il, batch, views, s.q.data(), s.attn.data(), pool);
  EachRow(pool, n, [&](int64_t r) {
    float* a = &s.attn[r * h_.q_dim()];
    const float* g = &s.gate[r * h_.q_dim()];
    for (int64_t i = 0; i < h_.q_dim(); ++i) a[i] *= Sigmoid(g[i]);
  });
  ops_.matmul(l.wo, s.attn.data(), n, s.out.data(), pool);
}

void Qwen35Model::DeltaNet(const ForwardBatch& batch, int64_t il, KvProvider& kv, ThreadPool& pool,
                           Scratch& s) const {
  const Qwen35Layer& l = w_.layers[static_cast<size_t>(il)];
  const int64_t n = static_cast<int64_t>(batch.tokens.size());
  const int64_t cd = d_.conv_dim();
  const kernels::MatMulJob in[] = {
      {&l.wqkv, s.qkv.data()}, {&l.wz, s.z.data()}, {&l.walpha, s.alpha.data()}, {&l.wbeta, s.beta.data()}};
  ops_.matmul_many(std::span<const kernels::MatMulJob>(in), s.hn.data(), n, pool);

  std::vector<float*> state(static_cast<size_t>(n));  // (n) each row's sequence's state of this layer
  for (int64_t r = 0; r < n; ++r) {
    const std::span<float> st = kv.RecurrentState(batch.seqs[r], il);
    TRIT_CHECK(static_cast<int64_t>(st.size()) == h_.recurrent_floats);
    state[static_cast<size_t>(r)] = st.data();
  }
  // The convolution: channels split over threads, rows in batch order (a
  // sequence's window moves one token per row).
  constexpr int64_t kChannelsPerItem = 64;
  pool.ParallelFor((cd + kChannelsPerItem - 1) / kChannelsPerItem, [&](int64_t begin, int64_t end) {
    const int64_t c0 = begin * kChannelsPerItem, c1 = std::min(cd, end * kChannelsPerItem);
    for (int64_t r = 0; r < n; ++r) {
      kernels::CausalConvSiluStep(l.conv, d_.conv_width, state[static_cast<size_t>(r)], c0, c1, &s.qkv[r * cd],
                                  &s.conv[r * cd]);
    }
  });
  EachRow(pool, n, [&](int64_t r) {
    float* row = &s.conv[r * cd];
    for (int64_t head = 0; head < 2 * d_.n_k_heads; ++head) {  // q heads then k heads
      kernels::L2NormEps(row + head * d_.head_k, d_.head_k, h_.rms_eps);
    }
    for (int64_t head = 0; head < d_.n_v_heads; ++head) {
      float& a = s.alpha[r * d_.n_v_heads + head];
      a = l.ssm_a[head] * Softplus(a + l.dt_bias[head]);
      float& b = s.beta[r * d_.n_v_heads + head];
      b = Sigmoid(b);
    }
  });
  // The delta rule: each V head on one thread, its rows in batch order.
  const float scale = 1.0f / std::sqrt(static_cast<float>(d_.head_k));
  const int64_t head_state = d_.head_v * d_.head_k;
  pool.ParallelFor(d_.n_v_heads, [&](int64_t begin, int64_t end) {
    for (int64_t head = begin; head < end; ++head) {
      const int64_t kh = head % d_.n_k_heads;  // V heads tile the K heads (the converter's order)
      for (int64_t r = 0; r < n; ++r) {
        const float* row = &s.conv[r * cd];
        kernels::DeltaNetStep(state[static_cast<size_t>(r)] + d_.window_floats() + head * head_state, d_.head_k,
                              d_.head_v, row + kh * d_.head_k, row + d_.key_dim() + kh * d_.head_k,
                              row + 2 * d_.key_dim() + head * d_.head_v, s.alpha[r * d_.n_v_heads + head],
                              s.beta[r * d_.n_v_heads + head], scale, &s.o[r * d_.value_dim() + head * d_.head_v]);
      }
    }
  });
  EachRow(pool, n, [&](int64_t r) {  // o := rmsnorm(o) * ssm_norm * silu(z), per head
    for (int64_t head = 0; head < d_.n_v_heads; ++head) {
      float* o = &s.o[r * d_.value_dim() + head * d_.head_v];
      ops_.rms_norm(o, l.ssm_norm, d_.head_v, h_.rms_eps, o);
      ops_.swiglu(&s.z[r * d_.value_dim() + head * d_.head_v], o, d_.head_v, o);
    }
  });
  ops_.matmul(l.ssm_out, s.o.data(), n, s.out.data(), pool);
}

void Qwen35Model::FeedForward(int64_t il, int64_t n, ThreadPool& pool, Scratch& s, std::vector<float>& x) const {
  const Qwen35Layer& l = w_.layers[static_cast<size_t>(il)];
  EachRow(pool, n, [&](int64_t r) {
    ops_.rms_norm(&x[r * h_.n_embd], l.post_norm, h_.n_embd, h_.rms_eps, &s.hn[r * h_.n_embd]);
  });
  const kernels::MatMulJob gate_up[] = {{&l.gate, s.ffn_gate.data()}, {&l.up, s.ffn_up.data()}};
  ops_.matmul_many(std::span<const kernels::MatMulJob>(gate_up), s.hn.data(), n, pool);
  EachRow(pool, n, [&](int64_t r) {
    float* g = &s.ffn_gate[r * h_.n_ff];
    ops_.swiglu(g, &s.ffn_up[r * h_.n_ff], h_.n_ff, g);
  });
  ops_.matmul(l.down, s.ffn_gate.data(), n, s.out.data(), pool);
  kernels::Add(x.data(), s.out.data(), n * h_.n_embd, x.data());
}

void Qwen35Model::Forward(const ForwardBatch& batch, KvProvider& kv, ThreadPool& pool, float* logits) const {
  const int64_t n = static_cast<int64_t>(batch.tokens.size());
  TRIT_CHECK(batch.positions.size() == batch.tokens.size() && batch.seqs.size() == batch.tokens.size());
  std::vector<float> x(static_cast<size_t>(n * h_.n_embd));
  for (int64_t r = 0; r < n; ++r) {
    TRIT_CHECK(batch.tokens[r] >= 0 && batch.tokens[r] < h_.n_vocab && batch.positions[r] >= 0);
    kernels::DequantizeRow(w_.token_embd, batch.tokens[r], &x[r * h_.n_embd]);
  }
  const auto rows = [n](int64_t width) { return std::vector<float>(static_cast<size_t>(n * width)); };
  Scratch s{.hn = rows(h_.n_embd), .out = rows(h_.n_embd),
            .q_gate = rows(2 * h_.q_dim()), .q = rows(h_.q_dim()), .gate = rows(h_.q_dim()),
            .k = rows(h_.kv_dim()), .v = rows(h_.kv_dim()), .attn = rows(h_.q_dim()),
            .qkv = rows(d_.conv_dim()), .conv = rows(d_.conv_dim()),
            .z = rows(d_.value_dim()), .o = rows(d_.value_dim()),
            .alpha = rows(d_.n_v_heads), .beta = rows(d_.n_v_heads),
            .ffn_gate = rows(h_.n_ff), .ffn_up = rows(h_.n_ff)};
  std::vector<kernels::KvView> views(static_cast<size_t>(n));
  for (int64_t il = 0; il < h_.n_layer; ++il) {
    const Qwen35Layer& l = w_.layers[static_cast<size_t>(il)];
    EachRow(pool, n, [&](int64_t r) {
      ops_.rms_norm(&x[r * h_.n_embd], l.attn_norm, h_.n_embd, h_.rms_eps, &s.hn[r * h_.n_embd]);
    });
    if (h_.is_recurrent(il)) {
      DeltaNet(batch, il, kv, pool, s);
    } else {
      for (int64_t r = 0; r < n; ++r) views[static_cast<size_t>(r)] = kv.View(batch.seqs[r], il);
      GatedAttention(batch, il, views, pool, s);
    }
    kernels::Add(x.data(), s.out.data(), n * h_.n_embd, x.data());
    FeedForward(il, n, pool, s, x);
  }
  const int64_t n_out = static_cast<int64_t>(batch.logit_rows.size());
  if (n_out == 0) return;  // a replay (Session) or a prefix: the cache is all it wanted
  std::vector<float> hn(static_cast<size_t>(n_out * h_.n_embd));
  for (int64_t i = 0; i < n_out; ++i) {
    const int32_t r = batch.logit_rows[i];
    TRIT_CHECK(r >= 0 && r < n);
    ops_.rms_norm(&x[r * h_.n_embd], w_.output_norm, h_.n_embd, h_.rms_eps, &hn[i * h_.n_embd]);
  }
  ops_.matmul(w_.output, hn.data(), n_out, logits, pool);
}

// The trunk's layer count and which of its layers are recurrent.
Status ReadLayers(const gguf::File& file, HParams& h) {
  const std::string p = h.architecture + ".";
  const int64_t n_all = h.n_layer;
  int64_t nextn = 0;
  TRIT_RETURN_IF_ERROR(ReadIntKey(file, p + "nextn_predict_layers", 0, n_all - 1, &nextn, false));
  h.n_layer = n_all - nextn;
  h.recurrent_layers.assign(static_cast<size_t>(h.n_layer), 0);
  const std::string key = p + "attention.recurrent_layers";
  if (file.Find(key) != nullptr) {
    TRIT_ASSIGN_OR_RETURN(const gguf::Array* flags, file.GetArray(key));
    if (flags->element_type != gguf::ValueType::kBool) {
      return Error(ErrorCode::kCorrupt, "metadata '{}' is not an array of booleans", key);
    }
    if (static_cast<int64_t>(flags->size()) != n_all && static_cast<int64_t>(flags->size()) != h.n_layer) {
      return Error(ErrorCode::kCorrupt, "metadata '{}' has {} entries, expected {}", key, flags->size(), n_all);
    }
    for (int64_t il = 0; il < h.n_layer; ++il) {
      h.recurrent_layers[static_cast<size_t>(il)] = flags->At<bool>(static_cast<size_t>(il)) ? 1 : 0;
    }
  } else {
    int64_t interval = 4;
    TRIT_RETURN_IF_ERROR(ReadIntKey(file, p + "full_attention_interval", 1, n_all, &interval, false));
    for (int64_t il = 0; il < h.n_layer; ++il) {
      h.recurrent_layers[static_cast<size_t>(il)] = (il + 1) % interval != 0;
    }
  }
  return Status::Ok();
}

Expected<DeltaNetDims> ReadDeltaNetDims(const gguf::File& file, const HParams& h) {
  const std::string p = h.architecture + ".";
  DeltaNetDims d;
  int64_t inner = 0;
  constexpr int64_t kMax = int64_t{1} << 16;
  TRIT_RETURN_IF_ERROR(ReadIntKey(file, p + "ssm.conv_kernel", 1, 64, &d.conv_width, true));
  TRIT_RETURN_IF_ERROR(ReadIntKey(file, p + "ssm.state_size", 1, kMax, &d.head_k, true));
  TRIT_RETURN_IF_ERROR(ReadIntKey(file, p + "ssm.group_count", 1, kMax, &d.n_k_heads, true));
  TRIT_RETURN_IF_ERROR(ReadIntKey(file, p + "ssm.time_step_rank", 1, kMax, &d.n_v_heads, true));
  TRIT_RETURN_IF_ERROR(ReadIntKey(file, p + "ssm.inner_size", 1, int64_t{1} << 24, &inner, true));
  if (d.n_v_heads % d.n_k_heads != 0 || inner % d.n_v_heads != 0) {
    return Error(ErrorCode::kCorrupt,
                 "metadata '{}ssm.time_step_rank' ({}) must be a multiple of ssm.group_count ({}) and divide "
                 "ssm.inner_size ({})", p, d.n_v_heads, d.n_k_heads, inner);
  }
  d.head_v = inner / d.n_v_heads;
  if (d.head_v != d.head_k) {
    return Error(ErrorCode::kUnsupported, "metadata '{}ssm.inner_size' gives value heads of {}, expected state_size {}",
                 p, d.head_v, d.head_k);
  }
  return d;
}

Expected<std::unique_ptr<Model>> LoadQwen35(gguf::File file, const LoadOptions& load) {
  TRIT_ASSIGN_OR_RETURN(HParams h, ReadHParams(file, "qwen35", kernels::RopeMode::kNeox));
  TRIT_RETURN_IF_ERROR(ReadLayers(file, h));
  h.swa_layers.assign(static_cast<size_t>(h.n_layer), 0);
  TRIT_ASSIGN_OR_RETURN(const DeltaNetDims d, ReadDeltaNetDims(file, h));
  h.recurrent_floats = d.window_floats() + d.state_floats();
  if (load.kernels == kernels::KernelSet::kOptimized) TRIT_RETURN_IF_ERROR(kernels::CheckCpuSupport());
  TRIT_ASSIGN_OR_RETURN(Qwen35Weights w, BindWeights(file, h, d));
  if (load.kernels == kernels::KernelSet::kOptimized) Repack(w);
  return std::unique_ptr<Model>(
      std::make_unique<Qwen35Model>(std::move(file), std::move(h), d, std::move(w), kernels::OpsFor(load.kernels)));
}

}  // namespace

const Architecture& Qwen35Architecture() {
  static const Architecture kArchitecture{"qwen35", &LoadQwen35};
  return kArchitecture;
}

}  // namespace trit::model
