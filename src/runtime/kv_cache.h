// The key/value cache of a session: for every sequence and layer, n_ctx
// rows of n_head_kv * head_dim keys and as many values, in f16 (default) or
// f32. Owned by Session; the forward pass reaches it through KvProvider.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/attention.h"
#include "model/model.h"

namespace trit::runtime {

class KvCache final : public model::KvProvider {
 public:
  KvCache(int64_t n_seq, int64_t n_layer, int64_t n_ctx, int64_t kv_dim, kernels::KvType type);

  kernels::KvView View(int32_t seq, int64_t layer) override;
  // Copies the first n_tokens rows of every layer of sequence `from` over
  // those of `to` (the keys and values of a shared prompt prefix).
  void CopyPrefix(int32_t from, int32_t to, int64_t n_tokens);

  int64_t n_ctx() const { return n_ctx_; }
  kernels::KvType type() const { return type_; }
  uint64_t bytes() const { return k_.size() + v_.size(); }

 private:
  int64_t n_seq_, n_layer_, n_ctx_, kv_dim_;
  kernels::KvType type_;
  size_t element_bytes_;
  std::vector<uint8_t> k_;  // (n_seq, n_layer, n_ctx, kv_dim) elements of type_
  std::vector<uint8_t> v_;  // (n_seq, n_layer, n_ctx, kv_dim) elements of type_
};

}  // namespace trit::runtime
