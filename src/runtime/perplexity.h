// The work of `trit perplexity`, the method of llama.cpp's llama-perplexity
// so that the figures compare:
//   - the text's tokens (BOS added as the tokenizer does) are cut into
//     n_chunk = tokens / n_ctx chunks of n_ctx tokens (the tail dropped);
//   - each chunk runs on an empty cache, its first token replaced by BOS when
//     the model adds one;
//   - only the second half is scored: rows n_ctx/2 .. n_ctx-2, each row's
//     -log p of the token after it (ScoredRows(n_ctx) rows per chunk).
// With a base file (llama.cpp's --kl-divergence-base format) the tokens and
// n_ctx come from the file and every row is also compared with the base's
// log probabilities; with a writer every row's log probabilities are saved in
// that format.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "base/status.h"
#include "runtime/logits_file.h"
#include "runtime/perplexity_stats.h"
#include "runtime/session.h"

namespace trit::runtime {

struct PerplexityOptions {
  int64_t n_ctx = 512;
  int64_t n_batch = 512;   // rows per Decode call (a chunk runs in passes of at most this many)
  int64_t max_chunks = 0;  // 0: every whole chunk of the text
  int32_t bos = -1;        // the id that replaces each chunk's first token; < 0: none (the model adds no BOS)
};

// Chunks a text of n_tokens gives: n_tokens / n_ctx, at most max_chunks (when > 0).
int64_t PerplexityChunks(int64_t n_tokens, int64_t n_ctx, int64_t max_chunks);

struct PerplexityProgress {
  int64_t chunk = 0;     // chunks done, 1-based
  int64_t n_chunk = 0;
  double ppl = 0.0;      // running PPL over the chunks done
  double seconds = 0.0;  // since the start
};

struct PerplexityResult {
  int64_t n_ctx = 0;
  int64_t n_chunk = 0;
  int64_t n_vocab = 0;
  NllStats nll;
  std::vector<double> running_ppl;  // after each chunk, llama.cpp's "[i]x," values
  std::optional<KldSummary> kld;    // against the base, when one was given
  double seconds = 0.0;
};

// Scores one chunk on sequence 0 of `session` (cleared first): the logits of
// rows n_ctx/2 .. n_ctx-2, ScoredRows(n_ctx) rows.
Expected<Logits> ScoreChunk(Session& session, std::span<const int32_t> chunk, const PerplexityOptions& options);

// Perplexity of `tokens` (the text's tokens; at least 2 * n_ctx of them).
// Saves every row's log probabilities to `save` when given; the caller
// Starts the writer with the header PerplexityHeader gives.
Expected<PerplexityResult> RunPerplexity(Session& session, std::span<const int32_t> tokens,
                                         const PerplexityOptions& options, LogitsFileWriter* save,
                                         const std::function<void(const PerplexityProgress&)>& progress);

// The logits-file header a run over `tokens` writes.
LogitsFileHeader PerplexityHeader(std::span<const int32_t> tokens, const PerplexityOptions& options, int64_t n_vocab);

// Perplexity and KL divergence against `base`: its tokens, its n_ctx (which
// replaces options.n_ctx), options.max_chunks of its chunks at most. Refused
// when the base's vocabulary size differs from the model's, or its n_ctx
// does not fit the session.
Expected<PerplexityResult> RunKlDivergence(Session& session, LogitsFileReader& base, const PerplexityOptions& options,
                                           const std::function<void(const PerplexityProgress&)>& progress);

}  // namespace trit::runtime
