#include "model/decoder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "base/check.h"
#include "kernels/activation.h"
#include "kernels/cpu_targets.h"
#include "kernels/norm.h"
#include "kernels/rope.h"
#include "model/attend_work.h"
#include "model/repack_weights.h"
#include "model/row_steps.h"
#include "system/system_info.h"

namespace trit::model {

Expected<DecoderWeights> BindDecoderWeights(const gguf::File& file, const HParams& h, const DecoderOptions& options) {
  DecoderWeights w;
  // I2_S matrices are read where their per-tensor scale has a place: the
  // architectures with per-tensor output scales (bitnet).
  TensorBinder b(file, h.architecture, options.weight_scales ? &w.converted : nullptr);
  w.token_embd = b.Matrix("token_embd.weight", h.n_embd, h.n_vocab);
  w.output_norm = b.Vector("output_norm.weight", h.n_embd);
  // Tied embeddings: without output.weight the logits reuse token_embd.
  const bool untied = !options.embd_output && b.Has("output.weight");
  w.output = untied ? b.Matrix("output.weight", h.n_embd, h.n_vocab) : w.token_embd;
  w.layers.resize(static_cast<size_t>(h.n_layer));
  for (int64_t il = 0; il < h.n_layer; ++il) {
    LayerWeights& l = w.layers[static_cast<size_t>(il)];
    const std::string p = fmt::format("blk.{}.", il);
    l.attn_norm = b.Vector(p + "attn_norm.weight", h.n_embd);
    l.wq = b.Matrix(p + "attn_q.weight", h.n_embd, h.q_dim());
    l.wk = b.Matrix(p + "attn_k.weight", h.n_embd, h.kv_dim());
    l.wv = b.Matrix(p + "attn_v.weight", h.n_embd, h.kv_dim());
    if (options.qkv_bias) {
      l.bq = b.Vector(p + "attn_q.bias", h.q_dim());
      l.bk = b.Vector(p + "attn_k.bias", h.kv_dim());
      l.bv = b.Vector(p + "attn_v.bias", h.kv_dim());
    }
    if (options.qk_norm) {
      l.q_norm = b.Vector(p + "attn_q_norm.weight", h.head_dim);
      l.k_norm = b.Vector(p + "attn_k_norm.weight", h.head_dim);
    }
    if (options.sub_norms) l.attn_sub_norm = b.Vector(p + "attn_sub_norm.weight", h.q_dim());
    l.wo = b.Matrix(p + "attn_output.weight", h.q_dim(), h.n_embd);
    if (options.out_bias) l.bo = b.Vector(p + "attn_output.bias", h.n_embd);
    if (options.attn_sinks) l.attn_sinks = b.Vector(p + "attn_sinks.weight", h.n_head);
    if (options.post_norms) l.attn_post_norm = b.Vector(p + "post_attention_norm.weight", h.n_embd);
    l.ffn_norm = b.Vector(p + options.ffn_norm_name, h.n_embd);
    if (options.moe) {
      l.moe = BindMoeWeights(b, h, il, options.moe_options);
    } else {
      l.gate = b.Matrix(p + "ffn_gate.weight", h.n_embd, h.n_ff);
      l.up = b.Matrix(p + "ffn_up.weight", h.n_embd, h.n_ff);
      if (options.sub_norms) l.ffn_sub_norm = b.Vector(p + "ffn_sub_norm.weight", h.n_ff);
      l.down = b.Matrix(p + "ffn_down.weight", h.n_ff, h.n_embd);
    }
    if (options.post_norms) l.ffn_post_norm = b.Vector(p + "post_ffw_norm.weight", h.n_embd);
    if (options.weight_scales) {
      // Optional, as in llama.cpp: a missing scale means 1; a present one must have shape [1].
      // An I2_S weight's own scale is one too (multiplied in when both exist).
      auto scale = [&](const char* name) { return b.OutputScale(p + name + ".weight", p + name + ".scale"); };
      l.wq_scale = scale("attn_q");
      l.wk_scale = scale("attn_k");
      l.wv_scale = scale("attn_v");
      l.wo_scale = scale("attn_output");
      l.gate_scale = scale("ffn_gate");
      l.up_scale = scale("ffn_up");
      l.down_scale = scale("ffn_down");
    }
  }
  if (Status s = b.CheckScalesClaimed(); !s.ok()) return s;
  return w;
}

uint64_t RepackForOptimizedKernels(DecoderWeights& w, bool experts) {
  std::vector<kernels::Matrix*> matrices;
  for (LayerWeights& l : w.layers) {
    for (kernels::Matrix* m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.gate, &l.up, &l.down}) {
      if (m->data != nullptr) matrices.push_back(m);
    }
    if (experts) AppendExpertMatrices(l.moe, matrices);
  }
  // A tied token embedding is the output matrix: repacked once with it, and
  // the lookups then read rows out of the groups (kernels::DequantizeRow, the
  // same floats). An untied one stays in the file: only rows are read there.
  const bool tied = w.output.data == w.token_embd.data;
  matrices.push_back(&w.output);
  const uint64_t bytes = RepackMatrices(matrices, &w.repacked);
  if (tied) w.token_embd = w.output;
  w.converted.ReleaseUnused(matrices);  // the I2_S conversions now copied into row groups
  return bytes;
}

Expected<std::unique_ptr<Model>> LoadDecoder(gguf::File file, const std::string& architecture,
                                             kernels::RopeMode rope_mode, const DecoderOptions& options,
                                             const LoadOptions& load) {
  Expected<HParams> h = ReadHParams(file, architecture, rope_mode);
  if (!h.ok()) return h.status();
  return BuildDecoder(std::move(file), std::move(*h), options, load);
}

Expected<std::unique_ptr<Model>> BuildDecoder(gguf::File file, HParams hparams, const DecoderOptions& options,
                                              const LoadOptions& load) {
  TRIT_CHECK(hparams.swa_layers.size() == static_cast<size_t>(hparams.n_layer));
  // The optimized kernels refuse a CPU that runs none of their targets
  // rather than run code it lacks (kernels/cpu_targets.h).
  if (load.kernels == kernels::KernelSet::kOptimized) {
    if (Status cpu = kernels::CheckCpuSupport(); !cpu.ok()) return cpu;
  }
  Expected<DecoderWeights> w = BindDecoderWeights(file, hparams, options);
  if (!w.ok()) return w.status();
  if (load.kernels == kernels::KernelSet::kOptimized) {
    uint64_t expert_bytes = 0;
    for (const LayerWeights& l : w->layers) expert_bytes += ExpertBytes(l.moe);
    RepackForOptimizedKernels(*w, expert_bytes == 0 ||
                                      RepackExperts(expert_bytes, load.available_memory
                                                                      ? load.available_memory
                                                                      : system::ReadMemoryInfo().available_bytes));
  }
  return std::unique_ptr<Model>(
      std::make_unique<DecoderModel>(std::move(file), std::move(hparams), std::move(*w), options,
                                     kernels::OpsFor(load.kernels)));
}

namespace {

// y (n) *= scale[0] when the per-tensor scale is present.
void ApplyScale(const float* scale, int64_t n, float* y) {
  if (scale != nullptr) kernels::Scale(y, n, scale[0]);
}

// Each of the n_rows rows of x (n_rows, n) := rmsnorm(row) * weight, when weight is present.
void NormRows(const kernels::Ops& ops, const float* weight, int64_t n_rows, int64_t n, float eps, float* x,
              ThreadPool& pool) {
  if (weight == nullptr) return;
  EachRow(pool, n_rows, [&](int64_t r) { ops.rms_norm(x + r * n, weight, n, eps, x + r * n); });
}

}  // namespace

void NormRopeStore(const kernels::Ops& ops, const HParams& h, int64_t il, const float* q_norm, const float* k_norm,
                   const ForwardBatch& batch, std::span<const kernels::KvView> views, float* q, float* k,
                   const float* v, ThreadPool& pool) {
  const int64_t n = static_cast<int64_t>(batch.tokens.size());
  const kernels::RopeParams& rope = h.layer_rope(il);
  // Per row: q/k norms, rope, the KV cache store (each row its own position).
  EachRow(pool, n, [&](int64_t r) {
    thread_local std::vector<float> cos_row, sin_row;  // (n_rot / 2) this thread's angles
    cos_row.resize(static_cast<size_t>(rope.n_rot / 2));
    sin_row.resize(static_cast<size_t>(rope.n_rot / 2));
    float* cos = cos_row.data();
    float* sin = sin_row.data();
    float* qr = &q[r * h.q_dim()];
    float* kr = &k[r * h.kv_dim()];
    if (q_norm != nullptr) {
      for (int64_t hd = 0; hd < h.n_head; ++hd) {
        ops.rms_norm(qr + hd * h.head_dim, q_norm, h.head_dim, h.rms_eps, qr + hd * h.head_dim);
      }
      for (int64_t hd = 0; hd < h.n_head_kv; ++hd) {
        ops.rms_norm(kr + hd * h.head_dim, k_norm, h.head_dim, h.rms_eps, kr + hd * h.head_dim);
      }
    }
    kernels::RopeAngles(rope, batch.positions[r], cos, sin);
    for (int64_t hd = 0; hd < h.n_head; ++hd) ops.rope(rope, cos, sin, qr + hd * h.head_dim);
    for (int64_t hd = 0; hd < h.n_head_kv; ++hd) ops.rope(rope, cos, sin, kr + hd * h.head_dim);
    kernels::KvStore(views[r], batch.positions[r], kr, &v[r * h.kv_dim()]);
  });
}

void AttendRows(const kernels::Ops& ops, const HParams& h, int64_t il, const ForwardBatch& batch,
                std::span<const kernels::KvView> views, const float* q, float* attn, ThreadPool& pool,
                const float* sinks) {
  // Every query (row, head) is independent: split over them, never over
  // keys (attend_work.h).
  kernels::AttendOptions attend;
  attend.scale = h.attn_scale;
  attend.softcap = h.attn_softcap;
  attend.window = h.is_swa(il) ? h.n_swa : 0;
  const std::vector<AttendWork> work = PlanAttendWork(batch.seqs, h.n_head, h.n_head_kv, pool.n_threads());
  pool.ParallelFor(static_cast<int64_t>(work.size()), [&](int64_t begin, int64_t end) {
    thread_local std::vector<kernels::AttendQuery> queries;
    for (int64_t i = begin; i < end; ++i) {
      const AttendWork& w = work[static_cast<size_t>(i)];
      queries.clear();
      for (int64_t r = w.row_begin; r < w.row_end; ++r) {  // row by row: neighbours have about the same keys
        for (int64_t hd = w.head_begin; hd < w.head_end; ++hd) {
          const int64_t at = r * h.q_dim() + hd * h.head_dim;
          queries.push_back({&q[at], batch.positions[r] + 1, &attn[at], sinks == nullptr ? nullptr : &sinks[hd]});
        }
      }
      ops.attend(views[w.row_begin], w.kv_head, h.head_dim, queries, attend);
    }
  });
}

void DecoderModel::Attention(const ForwardBatch& batch, int64_t il, std::span<const kernels::KvView> views,
                             ThreadPool& pool, Scratch& s, std::vector<float>& x) const {
  const HParams& h = hparams_;
  const LayerWeights& l = weights_.layers[static_cast<size_t>(il)];
  const int64_t n = static_cast<int64_t>(batch.tokens.size());
  std::vector<float>& hn = s.hn;
  std::vector<float>& q = s.q;
  std::vector<float>& k = s.k;
  std::vector<float>& v = s.v;
  EachRow(pool, n, [&](int64_t r) { ops_.rms_norm(&x[r * h.n_embd], l.attn_norm, h.n_embd, h.rms_eps, &hn[r * h.n_embd]); });
  const kernels::MatMulJob qkv[] = {{&l.wq, q.data()}, {&l.wk, k.data()}, {&l.wv, v.data()}};
  ops_.matmul_many(std::span<const kernels::MatMulJob>(qkv), hn.data(), n, pool);
  ApplyScale(l.wq_scale, n * h.q_dim(), q.data());
  ApplyScale(l.wk_scale, n * h.kv_dim(), k.data());
  ApplyScale(l.wv_scale, n * h.kv_dim(), v.data());
  AddBias(l.bq, n, h.q_dim(), q.data());
  AddBias(l.bk, n, h.kv_dim(), k.data());
  AddBias(l.bv, n, h.kv_dim(), v.data());

  NormRopeStore(ops_, h, il, l.q_norm, l.k_norm, batch, views, q.data(), k.data(), v.data(), pool);
  std::vector<float>& attn = s.attn;
  AttendRows(ops_, h, il, batch, views, q.data(), attn.data(), pool, l.attn_sinks);
  NormRows(ops_, l.attn_sub_norm, n, h.q_dim(), h.rms_eps, attn.data(), pool);
  std::vector<float>& out = s.hn;  // the normed input is used up
  ops_.matmul(l.wo, attn.data(), n, out.data(), pool);
  ApplyScale(l.wo_scale, n * h.n_embd, out.data());
  AddBias(l.bo, n, h.n_embd, out.data());
  NormRows(ops_, l.attn_post_norm, n, h.n_embd, h.rms_eps, out.data(), pool);
  kernels::Add(x.data(), out.data(), n * h.n_embd, x.data());
}

void DecoderModel::FeedForward(int64_t il, int64_t n, ThreadPool& pool, Scratch& s, std::vector<float>& x) const {
  const HParams& h = hparams_;
  const LayerWeights& l = weights_.layers[static_cast<size_t>(il)];
  std::vector<float>& hn = s.hn;
  std::vector<float>& gate = s.gate;
  std::vector<float>& up = s.up;
  EachRow(pool, n, [&](int64_t r) { ops_.rms_norm(&x[r * h.n_embd], l.ffn_norm, h.n_embd, h.rms_eps, &hn[r * h.n_embd]); });
  if (options_.moe) {
    MoeFeedForward(ops_, l.moe, h, options_.moe_options, hn.data(), n, pool, s.moe, hn.data());
    kernels::Add(x.data(), hn.data(), n * h.n_embd, x.data());
    return;
  }
  const kernels::MatMulJob gate_up[] = {{&l.gate, gate.data()}, {&l.up, up.data()}};
  ops_.matmul_many(std::span<const kernels::MatMulJob>(gate_up), hn.data(), n, pool);
  ApplyScale(l.gate_scale, n * h.n_ff, gate.data());
  ApplyScale(l.up_scale, n * h.n_ff, up.data());
  EachRow(pool, n, [&](int64_t r) {  // element-wise: by rows, the same bits
    float* g = &gate[r * h.n_ff];
    switch (options_.ffn_activation) {
      case FfnActivation::kSilu: ops_.swiglu(g, &up[r * h.n_ff], h.n_ff, g); break;
      case FfnActivation::kGelu: ops_.geglu(g, &up[r * h.n_ff], h.n_ff, g); break;
      case FfnActivation::kReluSquared: kernels::ReluSqGlu(g, &up[r * h.n_ff], h.n_ff, g); break;
    }
  });
  NormRows(ops_, l.ffn_sub_norm, n, h.n_ff, h.rms_eps, gate.data(), pool);
  ops_.matmul(l.down, gate.data(), n, hn.data(), pool);
  ApplyScale(l.down_scale, n * h.n_embd, hn.data());
  NormRows(ops_, l.ffn_post_norm, n, h.n_embd, h.rms_eps, hn.data(), pool);
  kernels::Add(x.data(), hn.data(), n * h.n_embd, x.data());
}

void DecoderModel::Forward(const ForwardBatch& batch, KvProvider& kv, ThreadPool& pool, float* logits) const {
  const HParams& h = hparams_;
  const int64_t n = static_cast<int64_t>(batch.tokens.size());
  TRIT_CHECK(batch.positions.size() == batch.tokens.size() && batch.seqs.size() == batch.tokens.size());
  std::vector<float> x(static_cast<size_t>(n * h.n_embd));  // (n, n_embd) the residual stream
  for (int64_t r = 0; r < n; ++r) {
    TRIT_CHECK(batch.tokens[r] >= 0 && batch.tokens[r] < h.n_vocab && batch.positions[r] >= 0);
    kernels::DequantizeRow(weights_.token_embd, batch.tokens[r], &x[r * h.n_embd]);
    if (h.embd_scale != 1.0f) kernels::Scale(&x[r * h.n_embd], h.n_embd, h.embd_scale);
  }
  std::vector<kernels::KvView> views(static_cast<size_t>(n));  // (n) this layer's cache of each row's sequence
  const auto rows = [n](int64_t width) { return static_cast<size_t>(n * width); };
  Scratch s{.hn = std::vector<float>(rows(h.n_embd)),
            .q = std::vector<float>(rows(h.q_dim())),
            .k = std::vector<float>(rows(h.kv_dim())),
            .v = std::vector<float>(rows(h.kv_dim())),
            .attn = std::vector<float>(rows(h.q_dim())),
            .gate = std::vector<float>(options_.moe ? 0 : rows(h.n_ff)),
            .up = std::vector<float>(options_.moe ? 0 : rows(h.n_ff)),
            .moe = {}};
  for (int64_t il = 0; il < h.n_layer; ++il) {
    for (int64_t r = 0; r < n; ++r) views[r] = kv.View(batch.seqs[r], il);
    Attention(batch, il, views, pool, s, x);
    FeedForward(il, n, pool, s, x);
  }
  const int64_t n_out = static_cast<int64_t>(batch.logit_rows.size());
  std::vector<float> hn(static_cast<size_t>(n_out * h.n_embd));  // (n_out, n_embd)
  for (int64_t i = 0; i < n_out; ++i) {
    const int32_t r = batch.logit_rows[i];
    TRIT_CHECK(r >= 0 && r < n);
    ops_.rms_norm(&x[r * h.n_embd], weights_.output_norm, h.n_embd, h.rms_eps, &hn[i * h.n_embd]);
  }
  ops_.matmul(weights_.output, hn.data(), n_out, logits, pool);
  if (h.final_softcap > 0.0f) kernels::SoftCapRow(logits, n_out * h.n_vocab, h.final_softcap);
}

}  // namespace trit::model
