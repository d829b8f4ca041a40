// llama.cpp's KL-divergence base file (llama-perplexity --kl-divergence-base),
// read and written byte for byte, so that trit's logits and llama.cpp's can
// be compared either way:
//   "_logits_" (8 bytes), int32 n_ctx, int32 n_vocab, int32 n_chunk,
//   int32 tokens[n_chunk * n_ctx] (the text's tokens, before any BOS),
//   then per chunk, per scored row (n_ctx - 1 - n_ctx / 2 of them), one
//   record of RecordWords(n_vocab) uint16: float scale and float
//   min_log_prob in the first 4 words, then n_vocab quantized log
//   probabilities q (padded to an even count), log p_i = scale q_i + min_log_prob.
// All fields little-endian (the only byte order trit builds for).
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <ostream>
#include <span>
#include <vector>

#include "base/status.h"

namespace trit::runtime {

struct LogitsFileHeader {
  int32_t n_ctx = 0;
  int32_t n_vocab = 0;
  int32_t n_chunk = 0;
  std::vector<int32_t> tokens;  // n_chunk * n_ctx
};

// uint16 words of one row's record: 4 for the two floats, n_vocab rounded up to even.
int64_t RecordWords(int64_t n_vocab);
// Rows each chunk stores: the scored second half, n_ctx - 1 - n_ctx / 2.
int64_t ScoredRows(int64_t n_ctx);
// The file size a header implies.
int64_t LogitsFileBytes(int64_t n_ctx, int64_t n_vocab, int64_t n_chunk);

// One row's log probabilities as llama.cpp stores them: the log-softmax of
// `logits` over the range [max - 16, max] in 65535 steps (lower logits
// clamp to the bottom), written into `record` (RecordWords(size) words).
// Returns the row's negative log-likelihood of `target`, as llama.cpp does.
// Preconditions (checked): record.size() == RecordWords(logits.size()),
// 0 <= target < logits.size().
double EncodeLogProbs(std::span<const float> logits, int32_t target, std::span<uint16_t> record);

// A stored record read back.
class LogProbRecord {
 public:
  explicit LogProbRecord(std::span<const uint16_t> record);
  float LogProb(int64_t i) const { return scale_ * static_cast<float>(q_[static_cast<size_t>(i)]) + min_log_prob_; }
  int64_t size() const { return static_cast<int64_t>(q_.size()); }

 private:
  float scale_ = 0.0f;
  float min_log_prob_ = 0.0f;
  std::span<const uint16_t> q_;
};

// Where a writer's bytes go; an error stops the writer.
using ByteSink = std::function<Status(std::span<const uint8_t> bytes)>;

// Writes the header, then WriteChunk for each chunk in order.
class LogitsFileWriter {
 public:
  // Errors (kInvalidArgument) when the header's sizes disagree.
  static Expected<LogitsFileWriter> Start(ByteSink sink, const LogitsFileHeader& header);
  // The same into a stream (kIo when it fails).
  static Expected<LogitsFileWriter> Start(std::ostream& out, const LogitsFileHeader& header);
  // One chunk's records, ScoredRows(n_ctx) * RecordWords(n_vocab) words.
  Status WriteChunk(std::span<const uint16_t> records);
  int32_t chunks_written() const { return chunks_written_; }

 private:
  LogitsFileWriter(ByteSink sink, const LogitsFileHeader& header)
      : sink_(std::move(sink)), n_chunk_(header.n_chunk), chunk_words_(ScoredRows(header.n_ctx) * RecordWords(header.n_vocab)) {}
  ByteSink sink_;
  int32_t n_chunk_;
  int64_t chunk_words_;
  int32_t chunks_written_ = 0;
};

// Reads the header (checked: magic, positive sizes, tokens inside the
// vocabulary, and, when `stream_bytes` is known, a file size that matches
// the header exactly), then ReadChunk for each chunk in order.
class LogitsFileReader {
 public:
  // stream_bytes < 0: unknown (then a short file shows at ReadChunk).
  static Expected<LogitsFileReader> Open(std::istream& in, int64_t stream_bytes);
  const LogitsFileHeader& header() const { return header_; }
  // The next chunk's records; kCorrupt when the file ends early, kInvalidArgument past the last chunk.
  Status ReadChunk(std::vector<uint16_t>* records);

 private:
  LogitsFileReader(std::istream& in, LogitsFileHeader header) : in_(&in), header_(std::move(header)) {}
  std::istream* in_;
  LogitsFileHeader header_;
  int32_t chunks_read_ = 0;
};

}  // namespace trit::runtime
