#include "runtime/kv_cache.h"

#include <algorithm>
#include <cstring>

#include "base/check.h"

namespace trit::runtime {

KvCache::KvCache(int64_t n_seq, const model::HParams& h, int64_t n_ctx, kernels::KvType type)
    : n_seq_(n_seq),
      n_layer_(h.n_layer),
      n_ctx_(n_ctx),
      type_(type),
      element_bytes_(type == kernels::KvType::kF32 ? sizeof(float) : sizeof(uint16_t)),
      width_(static_cast<size_t>(h.n_layer), 0),
      offset_(static_cast<size_t>(h.n_layer), 0),
      recurrent_index_(static_cast<size_t>(h.n_layer), -1) {
  TRIT_CHECK(h.recurrent_layers.empty() || h.recurrent_layers.size() == static_cast<size_t>(h.n_layer));
  TRIT_CHECK(h.layer_kv_dims.empty() || h.layer_kv_dims.size() == static_cast<size_t>(h.n_layer));
  int64_t n_recurrent = 0;
  for (int64_t il = 0; il < n_layer_; ++il) {
    const size_t i = static_cast<size_t>(il);
    if (h.is_recurrent(il)) recurrent_index_[i] = n_recurrent++;
    width_[i] = h.layer_kv_dim(il);
    offset_[i] = seq_elements_;
    seq_elements_ += n_ctx * width_[i];
  }
  recurrent_floats_ = n_recurrent > 0 ? h.recurrent_floats : 0;
  per_seq_state_ = n_recurrent * recurrent_floats_;
  const size_t n = static_cast<size_t>(n_seq * seq_elements_) * element_bytes_;
  k_.assign(n, 0);
  v_.assign(n, 0);
  state_.assign(static_cast<size_t>(n_seq * per_seq_state_), 0.0f);
  snapshot_.assign(state_.size(), 0.0f);
}

kernels::KvView KvCache::View(int32_t seq, int64_t layer) {
  TRIT_CHECK(seq >= 0 && seq < n_seq_ && layer >= 0 && layer < n_layer_);
  const int64_t width = width_[static_cast<size_t>(layer)];
  if (width == 0) return kernels::KvView{type_, nullptr, nullptr, 0};  // the layer keeps no keys
  const size_t offset = static_cast<size_t>(seq * seq_elements_ + offset_[static_cast<size_t>(layer)]) * element_bytes_;
  return kernels::KvView{type_, k_.data() + offset, v_.data() + offset, width};
}

std::span<float> KvCache::RecurrentState(int32_t seq, int64_t layer) {
  TRIT_CHECK(seq >= 0 && seq < n_seq_ && layer >= 0 && layer < n_layer_);
  const int64_t r = recurrent_index_[static_cast<size_t>(layer)];
  if (r < 0 || recurrent_floats_ == 0) return {};
  return SeqState(state_, seq).subspan(static_cast<size_t>(r * recurrent_floats_),
                                       static_cast<size_t>(recurrent_floats_));
}

std::span<float> KvCache::SeqState(std::vector<float>& v, int32_t seq) {
  TRIT_CHECK(seq >= 0 && seq < n_seq_);
  return std::span<float>(v).subspan(static_cast<size_t>(seq * per_seq_state_), static_cast<size_t>(per_seq_state_));
}

void KvCache::CopyPrefix(int32_t from, int32_t to, int64_t n_tokens) {
  TRIT_CHECK(from >= 0 && from < n_seq_ && to >= 0 && to < n_seq_ && from != to);
  TRIT_CHECK(n_tokens >= 0 && n_tokens <= n_ctx_);
  for (int64_t il = 0; il < n_layer_; ++il) {
    const int64_t width = width_[static_cast<size_t>(il)];
    if (width == 0) continue;
    const size_t bytes = static_cast<size_t>(n_tokens * width) * element_bytes_;
    const int64_t at = offset_[static_cast<size_t>(il)];
    const size_t src = static_cast<size_t>(from * seq_elements_ + at) * element_bytes_;
    const size_t dst = static_cast<size_t>(to * seq_elements_ + at) * element_bytes_;
    std::memcpy(k_.data() + dst, k_.data() + src, bytes);
    std::memcpy(v_.data() + dst, v_.data() + src, bytes);
  }
}

void KvCache::SaveState(int32_t seq) {
  std::ranges::copy(SeqState(state_, seq), SeqState(snapshot_, seq).begin());
}

void KvCache::RestoreState(int32_t seq) {
  std::ranges::copy(SeqState(snapshot_, seq), SeqState(state_, seq).begin());
}

void KvCache::ClearState(int32_t seq) { std::ranges::fill(SeqState(state_, seq), 0.0f); }

void KvCache::CopyState(int32_t from, int32_t to) {
  std::ranges::copy(SeqState(state_, from), SeqState(state_, to).begin());
}

void KvCache::CopySnapshot(int32_t from, int32_t to) {
  std::ranges::copy(SeqState(snapshot_, from), SeqState(state_, to).begin());
}

}  // namespace trit::runtime
