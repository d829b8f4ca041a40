#include "runtime/logits_file.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "base/check.h"

namespace trit::runtime {

static_assert(std::endian::native == std::endian::little, "the logits file is little-endian, as llama.cpp writes it");

namespace {

constexpr char kMagic[8] = {'_', 'l', 'o', 'g', 'i', 't', 's', '_'};
constexpr int64_t kHeaderBytes = 8 + 3 * 4;

}  // namespace

int64_t RecordWords(int64_t n_vocab) { return 2 * ((n_vocab + 1) / 2) + 4; }
int64_t ScoredRows(int64_t n_ctx) { return n_ctx - 1 - n_ctx / 2; }

int64_t LogitsFileBytes(int64_t n_ctx, int64_t n_vocab, int64_t n_chunk) {
  return kHeaderBytes + 4 * n_chunk * n_ctx + 2 * n_chunk * ScoredRows(n_ctx) * RecordWords(n_vocab);
}

double EncodeLogProbs(std::span<const float> logits, int32_t target, std::span<uint16_t> record) {
  TRIT_CHECK(static_cast<int64_t>(record.size()) == RecordWords(static_cast<int64_t>(logits.size())));
  TRIT_CHECK(target >= 0 && static_cast<size_t>(target) < logits.size());
  float max_logit = logits[0];
  float min_logit = logits[0];
  for (float l : logits) {
    max_logit = std::max(max_logit, l);
    min_logit = std::min(min_logit, l);
  }
  // Probabilities below e^-16 of the top are not worth 16 bits of range.
  min_logit = std::max(min_logit, max_logit - 16);
  double sum_exp = 0.0;
  for (float l : logits) sum_exp += std::exp(l - max_logit);
  const float log_sum_exp = static_cast<float>(std::log(sum_exp));
  const float min_log_prob = min_logit - max_logit - log_sum_exp;
  const float scale = (max_logit - min_logit) / 65535.f;
  std::memcpy(record.data(), &scale, 4);
  std::memcpy(record.data() + 2, &min_log_prob, 4);
  uint16_t* q = record.data() + 4;
  std::fill(q, record.data() + record.size(), uint16_t{0});
  if (scale != 0.0f) {
    const float inv_scale = 1 / scale;
    for (size_t i = 0; i < logits.size(); ++i) {
      // Round half to even, as llama.cpp's nearest_int.
      if (logits[i] > min_logit) q[i] = static_cast<uint16_t>(std::nearbyint(inv_scale * (logits[i] - min_logit)));
    }
  }
  return max_logit + log_sum_exp - logits[static_cast<size_t>(target)];
}

LogProbRecord::LogProbRecord(std::span<const uint16_t> record) {
  std::memcpy(&scale_, record.data(), 4);
  std::memcpy(&min_log_prob_, record.data() + 2, 4);
  q_ = record.subspan(4);
}

namespace {

template <typename T>
std::span<const uint8_t> Bytes(std::span<const T> values) {
  return {reinterpret_cast<const uint8_t*>(values.data()), values.size_bytes()};
}

}  // namespace

Expected<LogitsFileWriter> LogitsFileWriter::Start(ByteSink sink, const LogitsFileHeader& header) {
  if (header.n_ctx < 2 || header.n_vocab < 1 || header.n_chunk < 1) {
    return Error(ErrorCode::kInvalidArgument, "logits file: n_ctx {} (at least 2), n_vocab {}, n_chunk {} (at least 1)",
                 header.n_ctx, header.n_vocab, header.n_chunk);
  }
  if (static_cast<int64_t>(header.tokens.size()) != int64_t{header.n_chunk} * header.n_ctx) {
    return Error(ErrorCode::kInvalidArgument, "logits file: {} tokens for {} chunks of {}", header.tokens.size(),
                 header.n_chunk, header.n_ctx);
  }
  const int32_t sizes[3] = {header.n_ctx, header.n_vocab, header.n_chunk};
  for (std::span<const uint8_t> part : {Bytes(std::span<const char>(kMagic)), Bytes(std::span<const int32_t>(sizes)),
                                        Bytes(std::span<const int32_t>(header.tokens))}) {
    if (Status s = sink(part); !s.ok()) return s.WithContext("logits file: writing the header");
  }
  return LogitsFileWriter(std::move(sink), header);
}

Expected<LogitsFileWriter> LogitsFileWriter::Start(std::ostream& out, const LogitsFileHeader& header) {
  return Start(
      [&out](std::span<const uint8_t> bytes) {
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        return out ? Status::Ok() : Error(ErrorCode::kIo, "the stream refused {} bytes", bytes.size());
      },
      header);
}

Status LogitsFileWriter::WriteChunk(std::span<const uint16_t> records) {
  if (chunks_written_ >= n_chunk_) {
    return Error(ErrorCode::kInvalidArgument, "logits file: chunk {} written, but the header says {} chunks",
                 chunks_written_ + 1, n_chunk_);
  }
  if (static_cast<int64_t>(records.size()) != chunk_words_) {
    return Error(ErrorCode::kInvalidArgument, "logits file: a chunk is {} uint16 words, got {}", chunk_words_,
                 records.size());
  }
  if (Status s = sink_(Bytes(records)); !s.ok()) {
    return s.WithContext(fmt::format("logits file: writing chunk {}", chunks_written_ + 1));
  }
  ++chunks_written_;
  return Status::Ok();
}

Expected<LogitsFileReader> LogitsFileReader::Open(std::istream& in, int64_t stream_bytes) {
  char magic[8] = {};
  int32_t sizes[3] = {};
  in.read(magic, sizeof(magic));
  in.read(reinterpret_cast<char*>(sizes), sizeof(sizes));
  if (!in) return Error(ErrorCode::kCorrupt, "logits file: shorter than its {}-byte header", kHeaderBytes);
  if (std::memcmp(magic, kMagic, sizeof(kMagic)) != 0) {
    return Error(ErrorCode::kCorrupt, "logits file: does not start with \"_logits_\" (not a llama-perplexity "
                                      "--kl-divergence-base file)");
  }
  LogitsFileHeader h;
  h.n_ctx = sizes[0];
  h.n_vocab = sizes[1];
  h.n_chunk = sizes[2];
  // Bounds that keep every size below int64 overflow and allocations sane.
  if (h.n_ctx < 2 || h.n_ctx > (1 << 24) || h.n_vocab < 1 || h.n_vocab > (1 << 24) || h.n_chunk < 1 ||
      int64_t{h.n_chunk} * h.n_ctx > (int64_t{1} << 31)) {
    return Error(ErrorCode::kCorrupt,
                 "logits file: header n_ctx {}, n_vocab {}, n_chunk {} out of range (expected n_ctx 2..{}, n_vocab "
                 "1..{}, n_chunk >= 1, n_chunk x n_ctx <= 2^31)",
                 h.n_ctx, h.n_vocab, h.n_chunk, 1 << 24, 1 << 24);
  }
  const int64_t expected = LogitsFileBytes(h.n_ctx, h.n_vocab, h.n_chunk);
  if (stream_bytes >= 0 && stream_bytes != expected) {
    return Error(ErrorCode::kCorrupt, "logits file: {} bytes, but its header (n_ctx {}, n_vocab {}, {} chunks) needs {}",
                 stream_bytes, h.n_ctx, h.n_vocab, h.n_chunk, expected);
  }
  const int64_t n_tokens = int64_t{h.n_chunk} * h.n_ctx;
  if (stream_bytes < 0 && n_tokens > (int64_t{1} << 26)) {
    return Error(ErrorCode::kCorrupt,
                 "logits file: {} tokens in the header, and the file size is unknown (at most 2^26 read unchecked)",
                 n_tokens);
  }
  h.tokens.resize(static_cast<size_t>(n_tokens));
  in.read(reinterpret_cast<char*>(h.tokens.data()), static_cast<std::streamsize>(4 * n_tokens));
  if (!in) return Error(ErrorCode::kCorrupt, "logits file: ends inside its {} tokens (n_chunk x n_ctx)", n_tokens);
  for (size_t i = 0; i < h.tokens.size(); ++i) {
    if (h.tokens[i] < 0 || h.tokens[i] >= h.n_vocab) {
      return Error(ErrorCode::kCorrupt, "logits file: token {} is {}, outside the vocabulary of {}", i, h.tokens[i],
                   h.n_vocab);
    }
  }
  return LogitsFileReader(in, std::move(h));
}

Status LogitsFileReader::ReadChunk(std::vector<uint16_t>* records) {
  if (chunks_read_ >= header_.n_chunk) {
    return Error(ErrorCode::kInvalidArgument, "logits file: chunk {} asked for, but the header says {} chunks",
                 chunks_read_ + 1, header_.n_chunk);
  }
  const int64_t words = ScoredRows(header_.n_ctx) * RecordWords(header_.n_vocab);
  records->resize(static_cast<size_t>(words));
  in_->read(reinterpret_cast<char*>(records->data()), static_cast<std::streamsize>(2 * words));
  if (!*in_) {
    return Error(ErrorCode::kCorrupt, "logits file: ends inside chunk {} of {} ({} bytes each)", chunks_read_ + 1,
                 header_.n_chunk, 2 * words);
  }
  ++chunks_read_;
  return Status::Ok();
}

}  // namespace trit::runtime
