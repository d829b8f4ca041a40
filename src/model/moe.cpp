#include "model/moe.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "base/check.h"
#include "kernels/activation.h"
#include "kernels/softmax.h"
#include "model/row_steps.h"

namespace trit::model {

Status ReadMoeHParams(const gguf::File& file, HParams& h) {
  const std::string p = h.architecture + ".";
  constexpr int64_t kMaxExperts = 1 << 12;
  TRIT_RETURN_IF_ERROR(ReadIntKey(file, p + "expert_count", 1, kMaxExperts, &h.n_expert, true));
  TRIT_RETURN_IF_ERROR(ReadIntKey(file, p + "expert_used_count", 1, h.n_expert, &h.n_expert_used, true));
  h.n_ff_exp = h.n_ff / h.n_expert_used;
  TRIT_RETURN_IF_ERROR(ReadIntKey(file, p + "expert_feed_forward_length", 1, int64_t{1} << 20, &h.n_ff_exp, false));
  if (h.n_ff_exp < 1) {
    return Error(ErrorCode::kCorrupt, "metadata '{}expert_feed_forward_length' is missing and feed_forward_length ({}) "
                 "is smaller than expert_used_count ({})", p, h.n_ff, h.n_expert_used);
  }
  return Status::Ok();
}

MoeWeights BindMoeWeights(TensorBinder& b, const HParams& h, int64_t il, const MoeOptions& options) {
  const std::string p = fmt::format("blk.{}.", il);
  MoeWeights w;
  w.router = b.Matrix(p + "ffn_gate_inp.weight", h.n_embd, h.n_expert);
  w.gate = b.Experts(p + "ffn_gate_exps.weight", h.n_embd, h.n_ff_exp, h.n_expert);
  w.up = b.Experts(p + "ffn_up_exps.weight", h.n_embd, h.n_ff_exp, h.n_expert);
  w.down = b.Experts(p + "ffn_down_exps.weight", h.n_ff_exp, h.n_embd, h.n_expert);
  if (options.biases) {
    w.router_bias = b.Vector(p + "ffn_gate_inp.bias", h.n_expert);
    w.gate_bias = b.FloatMatrix(p + "ffn_gate_exps.bias", h.n_ff_exp, h.n_expert);
    w.up_bias = b.FloatMatrix(p + "ffn_up_exps.bias", h.n_ff_exp, h.n_expert);
    w.down_bias = b.FloatMatrix(p + "ffn_down_exps.bias", h.n_embd, h.n_expert);
  }
  return w;
}

void AppendExpertMatrices(MoeWeights& w, std::vector<kernels::Matrix*>& out) {
  for (std::vector<kernels::Matrix>* set : {&w.gate, &w.up, &w.down}) {
    for (kernels::Matrix& m : *set) out.push_back(&m);
  }
}

uint64_t ExpertBytes(const MoeWeights& w) {
  uint64_t bytes = 0;
  for (const std::vector<kernels::Matrix>* set : {&w.gate, &w.up, &w.down}) {
    for (const kernels::Matrix& m : *set) bytes += m.row_bytes * static_cast<uint64_t>(m.n_rows);
  }
  return bytes;
}

bool RepackExperts(uint64_t expert_bytes, std::optional<uint64_t> available_bytes) {
  constexpr uint64_t kSpare = uint64_t{1} << 30;
  return !available_bytes || expert_bytes + kSpare <= *available_bytes;
}

void RouteRow(const float* logits, int64_t n_expert, int64_t n_used, const MoeOptions& options, int32_t* chosen,
              float* weights) {
  thread_local std::vector<float> p;
  p.assign(logits, logits + n_expert);
  if (options.gating == MoeGating::kSoftmax) kernels::Softmax(p.data(), n_expert);
  // The n_used largest, largest first; a tie goes to the lower expert. A
  // selection by repeated scans: n_used is a few and n_expert at most a few
  // hundred.
  for (int64_t s = 0; s < n_used; ++s) {
    int32_t best = -1;
    for (int32_t e = 0; e < n_expert; ++e) {
      if (std::find(chosen, chosen + s, e) != chosen + s) continue;
      if (best < 0 || p[static_cast<size_t>(e)] > p[static_cast<size_t>(best)]) best = e;
    }
    chosen[s] = best;
    weights[s] = p[static_cast<size_t>(best)];
  }
  if (options.gating == MoeGating::kSoftmaxWeight) kernels::Softmax(weights, n_used);
  if (options.normalize_weights) {
    float sum = 0.0f;
    for (int64_t s = 0; s < n_used; ++s) sum += weights[s];
    sum = std::max(sum, 6.103515625e-5f);  // llama.cpp's clamp: the smallest normal f16
    for (int64_t s = 0; s < n_used; ++s) weights[s] /= sum;
  }
}

namespace {

template <class T>
T* Sized(std::vector<T>& v, int64_t n) {
  if (static_cast<int64_t>(v.size()) < n) v.resize(static_cast<size_t>(n));
  return v.data();
}

}  // namespace

void MoeFeedForward(const kernels::Ops& ops, const MoeWeights& w, const HParams& hp, const MoeOptions& options,
                    const float* h, int64_t n, ThreadPool& pool, MoeScratch& s, float* out) {
  const int64_t n_embd = hp.n_embd, n_ff = hp.n_ff_exp, k = hp.n_expert_used, n_expert = hp.n_expert;
  float* logits = Sized(s.logits, n * n_expert);
  int32_t* chosen = Sized(s.chosen, n * k);
  float* weights = Sized(s.weights, n * k);
  float* slots = Sized(s.slots, n * k * n_embd);
  ops.matmul(w.router, h, n, logits, pool);
  AddBias(w.router_bias, n, n_expert, logits);
  EachRow(pool, n, [&](int64_t r) {
    RouteRow(logits + r * n_expert, n_expert, k, options, chosen + r * k, weights + r * k);
  });

  // slots[r, slot] := weight * down_e(swiglu(gate_e x_r, up_e x_r)) for the
  // m rows of `xs` whose slot indices are `idx`, all routed to expert e.
  const auto run_expert = [&](int64_t e, const int32_t* idx, int64_t m, const float* xs) {
    float* gate = Sized(s.gate, m * n_ff);
    float* up = Sized(s.up, m * n_ff);
    const kernels::MatMulJob jobs[] = {{&w.gate[static_cast<size_t>(e)], gate}, {&w.up[static_cast<size_t>(e)], up}};
    ops.matmul_many(std::span<const kernels::MatMulJob>(jobs), xs, m, pool);
    if (w.gate_bias != nullptr) {
      AddBias(w.gate_bias + e * n_ff, m, n_ff, gate);
      AddBias(w.up_bias + e * n_ff, m, n_ff, up);
    }
    const auto act = options.activation == MoeActivation::kSwiGluOai ? ops.swiglu_oai : ops.swiglu;
    EachRow(pool, m, [&](int64_t i) { act(gate + i * n_ff, up + i * n_ff, n_ff, gate + i * n_ff); });
    float* down = Sized(s.down, m * n_embd);
    ops.matmul(w.down[static_cast<size_t>(e)], gate, m, down, pool);
    if (w.down_bias != nullptr) AddBias(w.down_bias + e * n_embd, m, n_embd, down);
    for (int64_t i = 0; i < m; ++i) {
      const int32_t slot = idx[i];
      float* dst = slots + static_cast<int64_t>(slot) * n_embd;
      const float wt = weights[slot];
      const float* src = down + i * n_embd;
      for (int64_t c = 0; c < n_embd; ++c) dst[c] = src[c] * wt;
    }
  };

  // Group the slots by expert (a counting sort: rows stay in order within
  // an expert), then run each expert once over its rows.
  int32_t* offsets = Sized(s.offsets, n_expert + 1);
  int32_t* order = Sized(s.order, n * k);
  std::fill(offsets, offsets + n_expert + 1, 0);
  for (int64_t i = 0; i < n * k; ++i) ++offsets[chosen[i] + 1];
  for (int64_t e = 0; e < n_expert; ++e) offsets[e + 1] += offsets[e];
  int32_t* next = Sized(s.next, n_expert);
  std::copy(offsets, offsets + n_expert, next);
  for (int32_t i = 0; i < n * k; ++i) order[next[chosen[i]]++] = i;
  for (int64_t e = 0; e < n_expert; ++e) {
    const int64_t m = offsets[e + 1] - offsets[e];
    if (m == 0) continue;
    const int32_t* idx = order + offsets[e];
    float* xs = Sized(s.xs, m * n_embd);
    for (int64_t i = 0; i < m; ++i) std::memcpy(xs + i * n_embd, h + (idx[i] / k) * n_embd, n_embd * sizeof(float));
    run_expert(e, idx, m, xs);
  }
  // Each row's slots summed in slot order (largest weight first), as llama.cpp adds them.
  EachRow(pool, n, [&](int64_t r) {
    float* o = out + r * n_embd;
    const float* first = slots + r * k * n_embd;
    std::copy(first, first + n_embd, o);
    for (int64_t slot = 1; slot < k; ++slot) kernels::Add(o, first + slot * n_embd, n_embd, o);
  });
}

}  // namespace trit::model
