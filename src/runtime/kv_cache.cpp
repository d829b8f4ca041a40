#include "runtime/kv_cache.h"

#include <cstring>

#include "base/check.h"

namespace trit::runtime {

KvCache::KvCache(int64_t n_seq, int64_t n_layer, int64_t n_ctx, int64_t kv_dim, kernels::KvType type)
    : n_seq_(n_seq),
      n_layer_(n_layer),
      n_ctx_(n_ctx),
      kv_dim_(kv_dim),
      type_(type),
      element_bytes_(type == kernels::KvType::kF32 ? sizeof(float) : sizeof(uint16_t)) {
  const size_t n = static_cast<size_t>(n_seq * n_layer * n_ctx * kv_dim) * element_bytes_;
  k_.assign(n, 0);
  v_.assign(n, 0);
}

kernels::KvView KvCache::View(int32_t seq, int64_t layer) {
  TRIT_CHECK(seq >= 0 && seq < n_seq_ && layer >= 0 && layer < n_layer_);
  const size_t offset = static_cast<size_t>((seq * n_layer_ + layer) * n_ctx_ * kv_dim_) * element_bytes_;
  return kernels::KvView{type_, k_.data() + offset, v_.data() + offset, kv_dim_};
}

void KvCache::CopyPrefix(int32_t from, int32_t to, int64_t n_tokens) {
  TRIT_CHECK(from >= 0 && from < n_seq_ && to >= 0 && to < n_seq_ && from != to);
  TRIT_CHECK(n_tokens >= 0 && n_tokens <= n_ctx_);
  const size_t bytes = static_cast<size_t>(n_tokens * kv_dim_) * element_bytes_;
  for (int64_t layer = 0; layer < n_layer_; ++layer) {
    const size_t src = static_cast<size_t>((from * n_layer_ + layer) * n_ctx_ * kv_dim_) * element_bytes_;
    const size_t dst = static_cast<size_t>((to * n_layer_ + layer) * n_ctx_ * kv_dim_) * element_bytes_;
    std::memcpy(k_.data() + dst, k_.data() + src, bytes);
    std::memcpy(v_.data() + dst, v_.data() + src, bytes);
  }
}

}  // namespace trit::runtime
