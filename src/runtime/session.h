// A session: one model, its KV cache for up to n_seq sequences, and a thread
// pool. The forward API of docs/DESIGN.md contract 3:
//   Decode(batch)  tokens of one or more sequences; logits of the rows asked
//   Verify(ids)    M x vocab logits of every row (speculative verification)
//   Truncate(s, n) keep the first n tokens of sequence s (rejected drafts)
//   CopyPrefix(a, b, n)  sequence b holds the first n tokens of a (a shared prompt)
// A row's logits are bit-identical whether it runs alone, in a chunk of any
// size, beside other sequences, or with any thread count (contract 2).
//
// Recurrent models (qwen35) hold one state per sequence, the state after its
// last token, which cannot be cut back as keys can. The session keeps every
// sequence's token ids and a snapshot of its state taken before each pass that
// gives it two or more rows (a prompt, a verified draft). Truncate and
// CopyPrefix to a shorter length restore that snapshot when it is not past
// the kept length (else the state of no token) and run the kept tokens after
// it again, without logits; contract 2 makes the state that gives the same
// bits as the one first computed. So a rejected draft costs one pass over the
// accepted tokens, and a prefix shorter than the last prompt is recomputed.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "base/status.h"
#include "base/thread_pool.h"
#include "kernels/attention.h"
#include "model/model.h"
#include "runtime/kv_cache.h"

namespace trit::runtime {

struct SessionOptions {
  int64_t n_ctx = 0;  // tokens per sequence; 0: the model's trained context length
  int32_t n_seq = 1;  // sequences held at once
  kernels::KvType kv_type = kernels::KvType::kF16;
  int n_threads = 1;  // exactly this many threads compute (the caller's and n_threads - 1 workers)
};

// Rows to run: token `tokens[i]` at position `positions[i]` of sequence `seqs[i]`.
struct Batch {
  std::vector<int32_t> tokens;
  std::vector<int32_t> positions;
  std::vector<int32_t> seqs;
  std::vector<int32_t> logit_rows;  // rows whose logits Decode returns, in this order

  void Add(int32_t token, int32_t position, int32_t seq, bool want_logits) {
    if (want_logits) logit_rows.push_back(static_cast<int32_t>(tokens.size()));
    tokens.push_back(token);
    positions.push_back(position);
    seqs.push_back(seq);
  }
  size_t size() const { return tokens.size(); }
};

// Row-major logits: n_rows rows of n_vocab floats.
struct Logits {
  int64_t n_rows = 0;
  int64_t n_vocab = 0;
  std::vector<float> values;  // (n_rows, n_vocab)

  std::span<const float> Row(int64_t i) const {
    return std::span<const float>(values).subspan(static_cast<size_t>(i * n_vocab), static_cast<size_t>(n_vocab));
  }
};

class Session {
 public:
  // `model` must outlive the session. Errors on bad options (named).
  static Expected<std::unique_ptr<Session>> Create(const model::Model& model, const SessionOptions& options);

  // Runs `batch`. Each sequence's rows must continue its cache: positions
  // len, len + 1, ... in batch order. Refused (cache unchanged) when an id is
  // out of the vocabulary, a sequence or row index is out of range, a
  // position does not continue its sequence, or the context would overflow.
  Expected<Logits> Decode(const Batch& batch);
  // Appends `ids` to sequence `seq` in one pass; logits of every row.
  Expected<Logits> Verify(std::span<const int32_t> ids, int32_t seq = 0);
  // Keeps the first n_tokens tokens of `seq` (n_tokens <= its length).
  Status Truncate(int32_t seq, int64_t n_tokens);
  // Sequence `to` becomes the first n_tokens tokens of `from` (n_tokens <=
  // its length; `to` != `from`): their cache entries are copied, so the rows
  // that follow give the same logits, bit for bit, as if `to` had computed
  // that prefix itself (its entries are the same bits).
  Status CopyPrefix(int32_t from, int32_t to, int64_t n_tokens);

  int64_t Length(int32_t seq) const { return lengths_.at(static_cast<size_t>(seq)); }
  int64_t n_ctx() const { return kv_.n_ctx(); }
  // Memory the KV cache holds, every sequence's.
  uint64_t kv_bytes() const { return kv_.bytes(); }
  int32_t n_seq() const { return static_cast<int32_t>(lengths_.size()); }
  const model::Model& model() const { return model_; }
  int n_threads() const { return pool_.n_threads(); }
  // The session's threads, for a caller's own parallel work between calls
  // (the server samples its slots' rows on them). Not while Decode runs.
  ThreadPool& pool() { return pool_; }

 private:
  Session(const model::Model& model, const SessionOptions& options, int64_t n_ctx);
  Status Validate(const Batch& batch) const;
  // Recurrent models: sequence `seq`, whose state is that after its first
  // `from` tokens, runs its tokens [from, to) again (no logits).
  void Replay(int32_t seq, int64_t from, int64_t to);
  // Recurrent models: the state of `seq` becomes that after `n_tokens` of
  // the tokens `tokens_[source]` (source = seq, or the sequence it copies).
  void RebuildState(int32_t source, int32_t seq, int64_t n_tokens);

  const model::Model& model_;
  KvCache kv_;
  ThreadPool pool_;
  std::vector<int64_t> lengths_;  // (n_seq) tokens in each sequence's cache
  // Recurrent models only: each sequence's token ids, and the length its
  // state snapshot was taken at (-1: no snapshot).
  std::vector<std::vector<int32_t>> tokens_;
  std::vector<int64_t> snapshot_at_;
};

}  // namespace trit::runtime
