#include "runtime/perplexity.h"

#include <algorithm>
#include <chrono>

namespace trit::runtime {

int64_t PerplexityChunks(int64_t n_tokens, int64_t n_ctx, int64_t max_chunks) {
  const int64_t whole = n_ctx > 0 ? n_tokens / n_ctx : 0;
  return max_chunks > 0 ? std::min(whole, max_chunks) : whole;
}

LogitsFileHeader PerplexityHeader(std::span<const int32_t> tokens, const PerplexityOptions& options, int64_t n_vocab) {
  LogitsFileHeader h;
  h.n_ctx = static_cast<int32_t>(options.n_ctx);
  h.n_vocab = static_cast<int32_t>(n_vocab);
  h.n_chunk = static_cast<int32_t>(PerplexityChunks(static_cast<int64_t>(tokens.size()), options.n_ctx, options.max_chunks));
  h.tokens.assign(tokens.begin(), tokens.begin() + static_cast<std::ptrdiff_t>(int64_t{h.n_chunk} * h.n_ctx));
  return h;
}

Expected<Logits> ScoreChunk(Session& session, std::span<const int32_t> chunk, const PerplexityOptions& options) {
  const int64_t n_ctx = static_cast<int64_t>(chunk.size());
  const int64_t first = n_ctx / 2;
  if (Status s = session.Truncate(0, 0); !s.ok()) return s;
  Logits out;
  out.n_vocab = session.model().hparams().n_vocab;
  // The last token's row is never scored (nothing follows it), so it does not run.
  for (int64_t begin = 0; begin < n_ctx - 1; begin += options.n_batch) {
    const int64_t end = std::min(n_ctx - 1, begin + options.n_batch);
    Batch batch;
    for (int64_t pos = begin; pos < end; ++pos) {
      const int32_t token = pos == 0 && options.bos >= 0 ? options.bos : chunk[static_cast<size_t>(pos)];
      batch.Add(token, static_cast<int32_t>(pos), 0, pos >= first);
    }
    Expected<Logits> logits = session.Decode(batch);
    if (!logits.ok()) return logits.status();
    if (out.n_rows == 0) {
      out.values = std::move(logits->values);
    } else {
      out.values.insert(out.values.end(), logits->values.begin(), logits->values.end());
    }
    out.n_rows += logits->n_rows;
  }
  return out;
}

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

Status CheckContext(const Session& session, int64_t n_ctx, int64_t n_batch) {
  if (ScoredRows(n_ctx) < 1) {
    return Error(ErrorCode::kInvalidArgument, "a context of {} tokens scores no rows; use at least 3", n_ctx);
  }
  if (n_ctx > session.n_ctx()) {
    return Error(ErrorCode::kInvalidArgument, "a context of {} tokens does not fit the session's {}", n_ctx,
                 session.n_ctx());
  }
  if (n_batch < 1) return Error(ErrorCode::kInvalidArgument, "batch size {} is not positive", n_batch);
  return Status::Ok();
}

// The targets of a chunk's scored rows: row r predicts the token after position n_ctx/2 + r.
int32_t Target(std::span<const int32_t> chunk, int64_t row) {
  return chunk[static_cast<size_t>(static_cast<int64_t>(chunk.size()) / 2 + row + 1)];
}

// The loop both runs share: each chunk scored on the session, `score` given
// its logits (and adding each scored row's nll to result->nll), then the
// running PPL and the progress.
using ChunkScorer = std::function<Status(int64_t chunk_index, std::span<const int32_t> chunk, const Logits& logits)>;
Status RunChunks(Session& session, std::span<const int32_t> tokens, const PerplexityOptions& options,
                 PerplexityResult* result, const ChunkScorer& score,
                 const std::function<void(const PerplexityProgress&)>& progress) {
  const auto start = Clock::now();
  for (int64_t c = 0; c < result->n_chunk; ++c) {
    const std::span<const int32_t> chunk =
        tokens.subspan(static_cast<size_t>(c * result->n_ctx), static_cast<size_t>(result->n_ctx));
    Expected<Logits> logits = ScoreChunk(session, chunk, options);
    if (!logits.ok()) return logits.status();
    if (Status s = score(c, chunk, *logits); !s.ok()) return s;
    result->running_ppl.push_back(result->nll.Ppl());
    if (progress) progress({c + 1, result->n_chunk, result->nll.Ppl(), SecondsSince(start)});
  }
  result->seconds = SecondsSince(start);
  return Status::Ok();
}

}  // namespace

Expected<PerplexityResult> RunPerplexity(Session& session, std::span<const int32_t> tokens,
                                         const PerplexityOptions& options, LogitsFileWriter* save,
                                         const std::function<void(const PerplexityProgress&)>& progress) {
  const int64_t n_ctx = options.n_ctx;
  if (Status s = CheckContext(session, n_ctx, options.n_batch); !s.ok()) return s;
  if (static_cast<int64_t>(tokens.size()) < 2 * n_ctx) {
    return Error(ErrorCode::kInvalidArgument,
                 "the text gives {} tokens; a context of {} needs at least {} (two chunks): use a longer text or a "
                 "smaller --ctx",
                 tokens.size(), n_ctx, 2 * n_ctx);
  }
  PerplexityResult result;
  result.n_ctx = n_ctx;
  result.n_chunk = PerplexityChunks(static_cast<int64_t>(tokens.size()), n_ctx, options.max_chunks);
  result.n_vocab = session.model().hparams().n_vocab;
  const int64_t rows = ScoredRows(n_ctx);
  const int64_t words = RecordWords(result.n_vocab);
  std::vector<double> nll(static_cast<size_t>(rows));
  std::vector<uint16_t> records(save != nullptr ? static_cast<size_t>(rows * words) : 0);
  auto score = [&](int64_t, std::span<const int32_t> chunk, const Logits& logits) {
    // Rows are independent: scored on the session's threads, summed in row order.
    session.pool().ParallelFor(rows, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        if (save != nullptr) {
          const std::span<uint16_t> record = std::span<uint16_t>(records).subspan(static_cast<size_t>(r * words),
                                                                                   static_cast<size_t>(words));
          nll[static_cast<size_t>(r)] = EncodeLogProbs(logits.Row(r), Target(chunk, r), record);
        } else {
          nll[static_cast<size_t>(r)] = NegativeLogLikelihood(logits.Row(r), Target(chunk, r));
        }
      }
    });
    for (double v : nll) result.nll.Add(v);
    return save != nullptr ? save->WriteChunk(records) : Status::Ok();
  };
  if (Status s = RunChunks(session, tokens, options, &result, score, progress); !s.ok()) return s;
  return result;
}

Expected<PerplexityResult> RunKlDivergence(Session& session, LogitsFileReader& base, const PerplexityOptions& options,
                                           const std::function<void(const PerplexityProgress&)>& progress) {
  const LogitsFileHeader& header = base.header();
  const int64_t n_vocab = session.model().hparams().n_vocab;
  if (header.n_vocab != n_vocab) {
    return Error(ErrorCode::kInvalidArgument,
                 "the base logits have a vocabulary of {} tokens, the model {}: a base must come from a model with "
                 "the same vocabulary",
                 header.n_vocab, n_vocab);
  }
  const int64_t n_ctx = header.n_ctx;
  if (Status s = CheckContext(session, n_ctx, options.n_batch); !s.ok()) return s;
  PerplexityResult result;
  result.n_ctx = n_ctx;
  result.n_chunk = options.max_chunks > 0 ? std::min<int64_t>(header.n_chunk, options.max_chunks) : header.n_chunk;
  result.n_vocab = n_vocab;
  const int64_t rows = ScoredRows(n_ctx);
  const int64_t words = RecordWords(n_vocab);
  std::vector<KldRow> compared(static_cast<size_t>(rows));
  std::vector<uint16_t> records;
  KldStats kld;
  auto score = [&](int64_t c, std::span<const int32_t> chunk, const Logits& logits) {
    if (Status s = base.ReadChunk(&records); !s.ok()) return s.WithContext(fmt::format("base chunk {}", c + 1));
    session.pool().ParallelFor(rows, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const LogProbRecord record(
            std::span<const uint16_t>(records).subspan(static_cast<size_t>(r * words), static_cast<size_t>(words)));
        compared[static_cast<size_t>(r)] = CompareRow(logits.Row(r), record, Target(chunk, r));
      }
    });
    for (const KldRow& row : compared) {
      kld.Add(row);
      result.nll.Add(row.nll);
    }
    return Status::Ok();
  };
  if (Status s = RunChunks(session, header.tokens, options, &result, score, progress); !s.ok()) return s;
  if (kld.count() > 0) result.kld = kld.Summarize();
  return result;
}

}  // namespace trit::runtime
