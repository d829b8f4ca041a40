#include "runtime/kv_cache.h"

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

}  // namespace trit::runtime
