// Architecture 'bert' (the sentence-embedding family: all-MiniLM, bge,
// e5, ...), as Hugging Face's BertModel computes it, from the GGUF that
// llama.cpp's converter (and `trit convert`) writes. A post-norm encoder:
//
//   x = layernorm(token_embd[t] + position_embd[p] + token_types[0])
//   per layer:
//     q, k, v = x Wq^T + bq, x Wk^T + bk, x Wv^T + bv
//     a = attention(q, K, V) over every token of the text (bidirectional)
//     x = layernorm(x + (a Wo^T + bo))                       (attn_output_norm)
//     x = layernorm(x + (gelu(x Wup^T + bup) Wdown^T + bdown)) (layer_output_norm)
//   vector = pool(x rows of the text): mean, first ([CLS]) or last
//
// GELU is the exact (erf) form, Hugging Face's "gelu". Every text is one
// segment (token type 0), positions 0..n-1.
//
// A batch of texts runs as one pass: the matmuls over all rows at once
// (a row's result never depends on the others, kernels/matmul.h), attention
// per text with that text's keys only, in the kernels' fixed key order
// (kernels/attention.h). So a text's vector is the same bits alone or in
// any batch, with any thread count.
#include <fmt/format.h>

#include "base/check.h"
#include "kernels/attention.h"
#include "kernels/cpu_targets.h"
#include "kernels/kernel_set.h"
#include "kernels/norm.h"
#include "model/architecture.h"
#include "model/attend_work.h"
#include "model/repack_weights.h"
#include "model/row_steps.h"
#include "model/tensor_binder.h"

namespace trit::model {
namespace {

struct Norm {
  const float* weight = nullptr;  // (n_embd)
  const float* bias = nullptr;    // (n_embd)
};

struct BertLayer {
  kernels::Matrix wq, wk, wv, wo, up, down;
  const float* bq = nullptr;
  const float* bk = nullptr;
  const float* bv = nullptr;
  const float* bo = nullptr;
  const float* b_up = nullptr;
  const float* b_down = nullptr;
  Norm attn_norm;    // blk.N.attn_output_norm
  Norm output_norm;  // blk.N.layer_output_norm
};

struct BertWeights {
  kernels::Matrix token_embd;     // (n_vocab, n_embd)
  kernels::Matrix position_embd;  // (n_ctx_train, n_embd)
  kernels::Matrix token_types;    // (n_types, n_embd)
  Norm embd_norm;                 // token_embd_norm
  std::vector<BertLayer> layers;
  HugeBuffer repacked;  // row-group copies the layers' matrices point into (optimized kernels)
};

Norm BindNorm(TensorBinder& b, const std::string& name, int64_t n) {
  return {b.Vector(name + ".weight", n), b.Vector(name + ".bias", n)};
}

Expected<BertWeights> BindBertWeights(const gguf::File& file, const HParams& h) {
  TensorBinder b(file, h.architecture);
  BertWeights w;
  w.token_embd = b.Matrix("token_embd.weight", h.n_embd, h.n_vocab);
  w.position_embd = b.Matrix("position_embd.weight", h.n_embd, h.n_ctx_train);
  const gguf::TensorInfo* types = file.FindTensor("token_types.weight");
  const int64_t n_types = types != nullptr && types->shape.size() == 2 ? types->shape[1] : 1;
  w.token_types = b.Matrix("token_types.weight", h.n_embd, n_types);
  w.embd_norm = BindNorm(b, "token_embd_norm", h.n_embd);
  w.layers.resize(static_cast<size_t>(h.n_layer));
  for (int64_t il = 0; il < h.n_layer; ++il) {
    BertLayer& l = w.layers[static_cast<size_t>(il)];
    const std::string p = fmt::format("blk.{}.", il);
    l.wq = b.Matrix(p + "attn_q.weight", h.n_embd, h.q_dim());
    l.bq = b.Vector(p + "attn_q.bias", h.q_dim());
    l.wk = b.Matrix(p + "attn_k.weight", h.n_embd, h.kv_dim());
    l.bk = b.Vector(p + "attn_k.bias", h.kv_dim());
    l.wv = b.Matrix(p + "attn_v.weight", h.n_embd, h.kv_dim());
    l.bv = b.Vector(p + "attn_v.bias", h.kv_dim());
    l.wo = b.Matrix(p + "attn_output.weight", h.q_dim(), h.n_embd);
    l.bo = b.Vector(p + "attn_output.bias", h.n_embd);
    l.attn_norm = BindNorm(b, p + "attn_output_norm", h.n_embd);
    l.up = b.Matrix(p + "ffn_up.weight", h.n_embd, h.n_ff);
    l.b_up = b.Vector(p + "ffn_up.bias", h.n_ff);
    l.down = b.Matrix(p + "ffn_down.weight", h.n_ff, h.n_embd);
    l.b_down = b.Vector(p + "ffn_down.bias", h.n_embd);
    l.output_norm = BindNorm(b, p + "layer_output_norm", h.n_embd);
  }
  if (!b.status().ok()) return b.status();
  if (n_types < 1) return Error(ErrorCode::kCorrupt, "tensor 'token_types.weight' has no rows");
  return w;
}

class BertModel final : public Encoder {
 public:
  BertModel(gguf::File file, HParams hparams, float norm_eps, std::optional<Pooling> pooling, BertWeights weights,
            const kernels::Ops& ops)
      : file_(std::move(file)),
        hparams_(std::move(hparams)),
        norm_eps_(norm_eps),
        pooling_(pooling),
        weights_(std::move(weights)),
        ops_(ops) {}

  const HParams& hparams() const override { return hparams_; }
  std::optional<Pooling> file_pooling() const override { return pooling_; }
  void Embed(std::span<const std::vector<int32_t>> sequences, Pooling pooling, ThreadPool& pool,
             float* out) const override;

 private:
  // The rows of one pass: sequence s is rows [first[s], first[s] + len[s]).
  struct Rows {
    std::vector<int32_t> seq;    // (n) each row's sequence
    std::vector<int64_t> first;  // (n_seqs)
  };
  struct Scratch {
    std::vector<float> q, k, v, attn, out;  // (n, n_embd) each
    std::vector<float> ffn;                 // (n, n_ff)
  };
  void Attention(int64_t il, const Rows& rows, ThreadPool& pool, Scratch& s, std::vector<float>& x) const;
  void FeedForward(int64_t il, int64_t n, ThreadPool& pool, Scratch& s, std::vector<float>& x) const;
  // x (n, n_embd) := layernorm(x + y) row by row.
  void AddNorm(const Norm& norm, int64_t n, const float* y, ThreadPool& pool, std::vector<float>& x) const;

  gguf::File file_;  // owns the mapping the weights point into
  HParams hparams_;
  float norm_eps_;
  std::optional<Pooling> pooling_;
  BertWeights weights_;
  const kernels::Ops& ops_;
};

void BertModel::AddNorm(const Norm& norm, int64_t n, const float* y, ThreadPool& pool, std::vector<float>& x) const {
  const int64_t d = hparams_.n_embd;
  EachRow(pool, n, [&](int64_t r) {
    float* xr = &x[r * d];
    kernels::Add(xr, y + r * d, d, xr);
    kernels::LayerNorm(xr, norm.weight, norm.bias, d, norm_eps_, xr);
  });
}

void BertModel::Attention(int64_t il, const Rows& rows, ThreadPool& pool, Scratch& s, std::vector<float>& x) const {
  const HParams& h = hparams_;
  const BertLayer& l = weights_.layers[static_cast<size_t>(il)];
  const int64_t n = static_cast<int64_t>(rows.seq.size());
  const kernels::MatMulJob qkv[] = {{&l.wq, s.q.data()}, {&l.wk, s.k.data()}, {&l.wv, s.v.data()}};
  ops_.matmul_many(std::span<const kernels::MatMulJob>(qkv), x.data(), n, pool);
  AddBias(l.bq, n, h.q_dim(), s.q.data());
  AddBias(l.bk, n, h.kv_dim(), s.k.data());
  AddBias(l.bv, n, h.kv_dim(), s.v.data());

  // Each text's keys and values are its own rows of k and v, read in place
  // as an f32 cache; every query of the text sees all of them.
  const int64_t n_seqs = static_cast<int64_t>(rows.first.size());
  std::vector<kernels::KvView> views(static_cast<size_t>(n_seqs));
  std::vector<int64_t> n_keys(static_cast<size_t>(n_seqs));
  for (int64_t sq = 0; sq < n_seqs; ++sq) {
    const int64_t first = rows.first[static_cast<size_t>(sq)];
    const int64_t end = sq + 1 < n_seqs ? rows.first[static_cast<size_t>(sq + 1)] : n;
    views[static_cast<size_t>(sq)] = {kernels::KvType::kF32, &s.k[first * h.kv_dim()], &s.v[first * h.kv_dim()],
                                      h.kv_dim()};
    n_keys[static_cast<size_t>(sq)] = end - first;
  }
  kernels::AttendOptions attend;
  attend.scale = h.attn_scale;
  const std::vector<AttendWork> work = PlanAttendWork(rows.seq, h.n_head, h.n_head_kv, pool.n_threads());
  pool.ParallelFor(static_cast<int64_t>(work.size()), [&](int64_t begin, int64_t end) {
    thread_local std::vector<kernels::AttendQuery> queries;
    for (int64_t i = begin; i < end; ++i) {
      const AttendWork& w = work[static_cast<size_t>(i)];
      const size_t sq = static_cast<size_t>(rows.seq[static_cast<size_t>(w.row_begin)]);
      queries.clear();
      for (int64_t r = w.row_begin; r < w.row_end; ++r) {
        for (int64_t hd = w.head_begin; hd < w.head_end; ++hd) {
          const int64_t at = r * h.q_dim() + hd * h.head_dim;
          queries.push_back({&s.q[at], n_keys[sq], &s.attn[at]});
        }
      }
      ops_.attend(views[sq], w.kv_head, h.head_dim, queries, attend);
    }
  });
  ops_.matmul(l.wo, s.attn.data(), n, s.out.data(), pool);
  AddBias(l.bo, n, h.n_embd, s.out.data());
  AddNorm(l.attn_norm, n, s.out.data(), pool, x);
}

void BertModel::FeedForward(int64_t il, int64_t n, ThreadPool& pool, Scratch& s, std::vector<float>& x) const {
  const HParams& h = hparams_;
  const BertLayer& l = weights_.layers[static_cast<size_t>(il)];
  ops_.matmul(l.up, x.data(), n, s.ffn.data(), pool);
  EachRow(pool, n, [&](int64_t r) {
    float* f = &s.ffn[r * h.n_ff];
    kernels::Add(f, l.b_up, h.n_ff, f);
    ops_.gelu_erf(f, h.n_ff);
  });
  ops_.matmul(l.down, s.ffn.data(), n, s.out.data(), pool);
  AddBias(l.b_down, n, h.n_embd, s.out.data());
  AddNorm(l.output_norm, n, s.out.data(), pool, x);
}

void BertModel::Embed(std::span<const std::vector<int32_t>> sequences, Pooling pooling, ThreadPool& pool,
                      float* out) const {
  const HParams& h = hparams_;
  const int64_t d = h.n_embd;
  Rows rows;
  std::vector<int32_t> tokens, positions;
  for (size_t sq = 0; sq < sequences.size(); ++sq) {
    const std::vector<int32_t>& ids = sequences[sq];
    TRIT_CHECK(!ids.empty() && static_cast<int64_t>(ids.size()) <= h.n_ctx_train);
    rows.first.push_back(static_cast<int64_t>(tokens.size()));
    for (size_t i = 0; i < ids.size(); ++i) {
      TRIT_CHECK(ids[i] >= 0 && ids[i] < h.n_vocab);
      tokens.push_back(ids[i]);
      positions.push_back(static_cast<int32_t>(i));
      rows.seq.push_back(static_cast<int32_t>(sq));
    }
  }
  const int64_t n = static_cast<int64_t>(tokens.size());
  if (n == 0) return;
  std::vector<float> x(static_cast<size_t>(n * d));  // (n, n_embd) the hidden states
  std::vector<float> type0(static_cast<size_t>(d));
  kernels::DequantizeRow(weights_.token_types, 0, type0.data());
  EachRow(pool, n, [&](int64_t r) {
    thread_local std::vector<float> position;
    position.resize(static_cast<size_t>(d));
    float* xr = &x[r * d];
    kernels::DequantizeRow(weights_.token_embd, tokens[static_cast<size_t>(r)], xr);
    kernels::DequantizeRow(weights_.position_embd, positions[static_cast<size_t>(r)], position.data());
    kernels::Add(xr, type0.data(), d, xr);  // HF's order: (words + token types) + positions
    kernels::Add(xr, position.data(), d, xr);
    kernels::LayerNorm(xr, weights_.embd_norm.weight, weights_.embd_norm.bias, d, norm_eps_, xr);
  });
  const auto width = [n](int64_t w) { return std::vector<float>(static_cast<size_t>(n * w)); };
  Scratch s{.q = width(h.q_dim()),
            .k = width(h.kv_dim()),
            .v = width(h.kv_dim()),
            .attn = width(h.q_dim()),
            .out = width(d),
            .ffn = width(h.n_ff)};
  for (int64_t il = 0; il < h.n_layer; ++il) {
    Attention(il, rows, pool, s, x);
    FeedForward(il, n, pool, s, x);
  }
  // Pooling, each text alone in a fixed order: the mean sums its rows in
  // order in double, then divides once.
  for (size_t sq = 0; sq < sequences.size(); ++sq) {
    const int64_t first = rows.first[sq];
    const int64_t len = static_cast<int64_t>(sequences[sq].size());
    float* o = out + static_cast<int64_t>(sq) * d;
    switch (pooling) {
      case Pooling::kCls: std::copy_n(&x[first * d], d, o); break;
      case Pooling::kLast: std::copy_n(&x[(first + len - 1) * d], d, o); break;
      case Pooling::kMean: {
        std::vector<double> sum(static_cast<size_t>(d), 0.0);
        for (int64_t r = first; r < first + len; ++r) {
          for (int64_t i = 0; i < d; ++i) sum[static_cast<size_t>(i)] += x[r * d + i];
        }
        for (int64_t i = 0; i < d; ++i) o[i] = static_cast<float>(sum[static_cast<size_t>(i)] / static_cast<double>(len));
        break;
      }
    }
  }
}

Expected<std::unique_ptr<Encoder>> LoadBert(gguf::File file, const LoadOptions& load) {
  Expected<HParams> h = ReadHParams(file, "bert", kernels::RopeMode::kNormal);  // BERT has no rope
  if (!h.ok()) return h.status();
  if (h->n_head_kv != h->n_head) {
    return Error(ErrorCode::kCorrupt, "metadata 'bert.attention.head_count_kv' is {}, BERT has {} (head_count)",
                 h->n_head_kv, h->n_head);
  }
  float norm_eps = 0.0f;
  if (file.Find("bert.attention.layer_norm_epsilon") == nullptr) {
    return Error(ErrorCode::kNotFound, "metadata 'bert.attention.layer_norm_epsilon' is missing");
  }
  if (Status s = ReadPositiveFloatKey(file, "bert.attention.layer_norm_epsilon", &norm_eps); !s.ok()) return s;
  if (file.Find("bert.attention.causal") != nullptr) {
    Expected<bool> causal = file.GetBool("bert.attention.causal");
    if (!causal.ok()) return causal.status();
    if (*causal) return Error(ErrorCode::kUnsupported, "metadata 'bert.attention.causal' is true: BERT is bidirectional");
  }
  std::optional<Pooling> pooling;
  int64_t pooling_type = 0;  // llama.cpp's NONE when absent
  if (Status s = ReadIntKey(file, "bert.pooling_type", 0, 4, &pooling_type, false); !s.ok()) return s;
  if (pooling_type == 4) {
    return Error(ErrorCode::kUnsupported, "metadata 'bert.pooling_type' is 4 (rank, a reranker): not supported");
  }
  if (pooling_type != 0) pooling = static_cast<Pooling>(pooling_type);

  if (load.kernels == kernels::KernelSet::kOptimized) {
    if (Status cpu = kernels::CheckCpuSupport(); !cpu.ok()) return cpu;
  }
  Expected<BertWeights> w = BindBertWeights(file, *h);
  if (!w.ok()) return w.status();
  if (load.kernels == kernels::KernelSet::kOptimized) {
    std::vector<kernels::Matrix*> matrices;
    for (BertLayer& l : w->layers) {
      for (kernels::Matrix* m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.up, &l.down}) matrices.push_back(m);
    }
    RepackMatrices(matrices, &w->repacked);
  }
  return std::unique_ptr<Encoder>(std::make_unique<BertModel>(std::move(file), std::move(*h), norm_eps, pooling,
                                                              std::move(*w), kernels::OpsFor(load.kernels)));
}

}  // namespace

const Architecture& BertArchitecture() {
  static const Architecture kArchitecture{.name = "bert", .load_encoder = &LoadBert};
  return kArchitecture;
}

}  // namespace trit::model
