#include "runtime/session.h"

#include <algorithm>

namespace trit::runtime {

namespace {
constexpr int kMaxThreads = 1024;
constexpr int32_t kMaxSequences = 4096;
}  // namespace

Expected<std::unique_ptr<Session>> Session::Create(const model::Model& model, const SessionOptions& options) {
  const model::HParams& h = model.hparams();
  const int64_t n_ctx = options.n_ctx == 0 ? h.n_ctx_train : options.n_ctx;
  if (n_ctx < 1 || n_ctx > (int64_t{1} << 24)) {
    return Error(ErrorCode::kInvalidArgument, "context size {} is out of range, expected 1..{}", n_ctx,
                 int64_t{1} << 24);
  }
  if (options.n_seq < 1 || options.n_seq > kMaxSequences) {
    return Error(ErrorCode::kInvalidArgument, "sequence count {} is out of range, expected 1..{}", options.n_seq,
                 kMaxSequences);
  }
  if (options.n_threads < 1 || options.n_threads > kMaxThreads) {
    return Error(ErrorCode::kInvalidArgument, "thread count {} is out of range, expected 1..{}", options.n_threads,
                 kMaxThreads);
  }
  return std::unique_ptr<Session>(new Session(model, options, n_ctx));
}

Session::Session(const model::Model& model, const SessionOptions& options, int64_t n_ctx)
    : model_(model),
      kv_(options.n_seq, model.hparams(), n_ctx, options.kv_type),
      pool_(options.n_threads),
      lengths_(static_cast<size_t>(options.n_seq), 0) {
  if (kv_.recurrent()) {
    tokens_.resize(static_cast<size_t>(options.n_seq));
    snapshot_at_.assign(static_cast<size_t>(options.n_seq), -1);
  }
}

Status Session::Validate(const Batch& batch) const {
  const int64_t n = static_cast<int64_t>(batch.tokens.size());
  if (n == 0) return Error(ErrorCode::kInvalidArgument, "empty batch");
  if (batch.positions.size() != batch.tokens.size() || batch.seqs.size() != batch.tokens.size()) {
    return Error(ErrorCode::kInvalidArgument, "batch has {} tokens, {} positions and {} sequence ids", n,
                 batch.positions.size(), batch.seqs.size());
  }
  const int64_t n_vocab = model_.hparams().n_vocab;
  std::vector<int64_t> next = lengths_;
  for (int64_t r = 0; r < n; ++r) {
    const int32_t token = batch.tokens[r];
    const int32_t seq = batch.seqs[r];
    if (token < 0 || token >= n_vocab) {
      return Error(ErrorCode::kInvalidArgument, "row {}: token id {} is out of range, expected 0..{}", r, token,
                   n_vocab - 1);
    }
    if (seq < 0 || seq >= n_seq()) {
      return Error(ErrorCode::kInvalidArgument, "row {}: sequence {} is out of range, expected 0..{}", r, seq,
                   n_seq() - 1);
    }
    int64_t& expected = next[static_cast<size_t>(seq)];
    if (batch.positions[r] != expected) {
      return Error(ErrorCode::kInvalidArgument, "row {}: sequence {} position {}, expected {} (positions continue the "
                   "sequence's cache)", r, seq, batch.positions[r], expected);
    }
    if (expected >= n_ctx()) {
      return Error(ErrorCode::kInvalidArgument,
                   "context overflow: sequence {} position {} does not fit a context of {} tokens", seq, expected,
                   n_ctx());
    }
    ++expected;
  }
  for (int32_t r : batch.logit_rows) {
    if (r < 0 || r >= n) {
      return Error(ErrorCode::kInvalidArgument, "logits asked for row {}, expected 0..{}", r, n - 1);
    }
  }
  return Status::Ok();
}

Expected<Logits> Session::Decode(const Batch& batch) {
  if (Status s = Validate(batch); !s.ok()) return s;
  Logits out;
  out.n_rows = static_cast<int64_t>(batch.logit_rows.size());
  out.n_vocab = model_.hparams().n_vocab;
  out.values.resize(static_cast<size_t>(out.n_rows * out.n_vocab));
  if (kv_.recurrent()) {
    // The state before a pass of two or more rows of a sequence is what a
    // rejected draft rolls back to (the header comment).
    std::vector<int32_t> rows(lengths_.size(), 0);
    for (int32_t seq : batch.seqs) ++rows[static_cast<size_t>(seq)];
    for (size_t seq = 0; seq < rows.size(); ++seq) {
      if (rows[seq] < 2) continue;
      kv_.SaveState(static_cast<int32_t>(seq));
      snapshot_at_[seq] = lengths_[seq];
    }
    for (size_t r = 0; r < batch.size(); ++r) tokens_[static_cast<size_t>(batch.seqs[r])].push_back(batch.tokens[r]);
  }
  const model::ForwardBatch fb{batch.tokens, batch.positions, batch.seqs, batch.logit_rows};
  model_.Forward(fb, kv_, pool_, out.values.data());
  // What follows a forward pass is the caller's serial work (sampling,
  // streaming): workers sleep now rather than poll beside it.
  pool_.Release();
  for (int32_t seq : batch.seqs) ++lengths_[static_cast<size_t>(seq)];
  return out;
}

void Session::Replay(int32_t seq, int64_t from, int64_t to) {
  // In passes of bounded width: the rows' scratch grows with the pass.
  constexpr int64_t kReplayRows = 256;
  const std::vector<int32_t>& ids = tokens_[static_cast<size_t>(seq)];
  for (int64_t begin = from; begin < to; begin += kReplayRows) {
    const int64_t end = std::min(to, begin + kReplayRows);
    std::vector<int32_t> positions, seqs(static_cast<size_t>(end - begin), seq);
    for (int64_t p = begin; p < end; ++p) positions.push_back(static_cast<int32_t>(p));
    const std::span<const int32_t> tokens(ids.data() + begin, static_cast<size_t>(end - begin));
    const model::ForwardBatch fb{tokens, positions, seqs, {}};
    model_.Forward(fb, kv_, pool_, nullptr);
  }
  pool_.Release();
}

void Session::RebuildState(int32_t source, int32_t seq, int64_t n_tokens) {
  const int64_t snap = snapshot_at_[static_cast<size_t>(source)];
  int64_t from = 0;
  if (snap >= 0 && snap <= n_tokens) {
    if (source == seq) {
      kv_.RestoreState(seq);
    } else {
      kv_.CopySnapshot(source, seq);
    }
    from = snap;
  } else {
    kv_.ClearState(seq);
  }
  if (source != seq) {
    const std::vector<int32_t>& src = tokens_[static_cast<size_t>(source)];
    tokens_[static_cast<size_t>(seq)].assign(src.begin(), src.begin() + n_tokens);
  }
  Replay(seq, from, n_tokens);
}

Expected<Logits> Session::Verify(std::span<const int32_t> ids, int32_t seq) {
  if (seq < 0 || seq >= n_seq()) {
    return Error(ErrorCode::kInvalidArgument, "sequence {} is out of range, expected 0..{}", seq, n_seq() - 1);
  }
  const int64_t start = Length(seq);
  if (static_cast<int64_t>(ids.size()) > n_ctx() - start) {
    return Error(ErrorCode::kInvalidArgument,
                 "context overflow: sequence {} holds {} tokens, {} more do not fit a context of {} tokens", seq,
                 start, ids.size(), n_ctx());
  }
  Batch batch;
  for (size_t i = 0; i < ids.size(); ++i) {
    batch.Add(ids[i], static_cast<int32_t>(start + static_cast<int64_t>(i)), seq, true);
  }
  return Decode(batch);
}

Status Session::Truncate(int32_t seq, int64_t n_tokens) {
  if (seq < 0 || seq >= n_seq()) {
    return Error(ErrorCode::kInvalidArgument, "sequence {} is out of range, expected 0..{}", seq, n_seq() - 1);
  }
  if (n_tokens < 0 || n_tokens > Length(seq)) {
    return Error(ErrorCode::kInvalidArgument, "cannot truncate sequence {} to {} tokens: it holds {}", seq, n_tokens,
                 Length(seq));
  }
  if (kv_.recurrent() && n_tokens < Length(seq)) {
    RebuildState(seq, seq, n_tokens);
    tokens_[static_cast<size_t>(seq)].resize(static_cast<size_t>(n_tokens));
    if (snapshot_at_[static_cast<size_t>(seq)] > n_tokens) snapshot_at_[static_cast<size_t>(seq)] = -1;
  }
  lengths_[static_cast<size_t>(seq)] = n_tokens;
  return Status::Ok();
}

Status Session::CopyPrefix(int32_t from, int32_t to, int64_t n_tokens) {
  for (int32_t seq : {from, to}) {
    if (seq < 0 || seq >= n_seq()) {
      return Error(ErrorCode::kInvalidArgument, "sequence {} is out of range, expected 0..{}", seq, n_seq() - 1);
    }
  }
  if (from == to) return Error(ErrorCode::kInvalidArgument, "cannot copy sequence {} onto itself", from);
  if (n_tokens < 0 || n_tokens > Length(from)) {
    return Error(ErrorCode::kInvalidArgument, "cannot copy {} tokens of sequence {}: it holds {}", n_tokens, from,
                 Length(from));
  }
  kv_.CopyPrefix(from, to, n_tokens);
  if (kv_.recurrent()) {
    snapshot_at_[static_cast<size_t>(to)] = -1;
    if (n_tokens == Length(from)) {
      kv_.CopyState(from, to);
      tokens_[static_cast<size_t>(to)] = tokens_[static_cast<size_t>(from)];
    } else {
      RebuildState(from, to, n_tokens);
    }
  }
  lengths_[static_cast<size_t>(to)] = n_tokens;
  return Status::Ok();
}

}  // namespace trit::runtime
