// The cache of a session. For every sequence and attention layer: n_ctx rows
// of HParams::layer_kv_dim(layer) keys (n_head_kv * head_dim, unless layers
// differ) and as many values, in f16 (default) or f32. A layer of width 0
// (gemma4's shared-KV layers read an earlier layer's) keeps none.
// For every sequence and recurrent layer (HParams::recurrent_layers, qwen35's
// Gated DeltaNet): HParams::recurrent_floats floats of f32 state, the state
// after the sequence's last cached token, plus one saved copy of it (the
// snapshot Session rolls back to). A recurrent layer keeps no keys or values.
// Owned by Session; the forward pass reaches it through KvProvider.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/attention.h"
#include "model/hparams.h"
#include "model/model.h"

namespace trit::runtime {

class KvCache final : public model::KvProvider {
 public:
  KvCache(int64_t n_seq, const model::HParams& h, int64_t n_ctx, kernels::KvType type);

  kernels::KvView View(int32_t seq, int64_t layer) override;
  std::span<float> RecurrentState(int32_t seq, int64_t layer) override;

  // Copies the first n_tokens rows of every attention layer of sequence
  // `from` over those of `to` (the keys and values of a shared prompt prefix).
  void CopyPrefix(int32_t from, int32_t to, int64_t n_tokens);

  // Recurrent state of a whole sequence (every recurrent layer); each does
  // nothing when the model has none.
  bool recurrent() const { return per_seq_state_ > 0; }
  void SaveState(int32_t seq);                  // snapshot := state
  void RestoreState(int32_t seq);               // state := snapshot
  void ClearState(int32_t seq);                 // state := 0 (no token seen)
  void CopyState(int32_t from, int32_t to);     // state(to) := state(from)
  void CopySnapshot(int32_t from, int32_t to);  // state(to) := snapshot(from)

  int64_t n_ctx() const { return n_ctx_; }
  kernels::KvType type() const { return type_; }
  uint64_t bytes() const { return k_.size() + v_.size() + (state_.size() + snapshot_.size()) * sizeof(float); }

 private:
  std::span<float> SeqState(std::vector<float>& v, int32_t seq);

  int64_t n_seq_, n_layer_, n_ctx_;
  kernels::KvType type_;
  size_t element_bytes_;
  // Per layer: the width of its rows (0: it keeps no keys), where its rows
  // start within a sequence's block (elements), and its index among the
  // recurrent layers (-1: not recurrent).
  std::vector<int64_t> width_, offset_, recurrent_index_;
  int64_t seq_elements_ = 0;  // elements of keys (as many of values) per sequence
  int64_t recurrent_floats_ = 0;  // per (sequence, recurrent layer)
  int64_t per_seq_state_ = 0;     // floats of state per sequence
  std::vector<uint8_t> k_;        // per sequence, per layer with keys: (n_ctx, width) elements of type_
  std::vector<uint8_t> v_;        // the same layout
  std::vector<float> state_;      // (n_seq, n_recurrent, recurrent_floats)
  std::vector<float> snapshot_;   // (n_seq, n_recurrent, recurrent_floats)
};

}  // namespace trit::runtime
