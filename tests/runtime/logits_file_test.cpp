// llama.cpp's KL-divergence base file: the log-probability records against
// a direct log-softmax, the file's bytes against the layout spelled out by
// hand, a write/read round trip, and the refusals of damaged files.
#include "runtime/logits_file.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <sstream>
#include <vector>

namespace trit::testing {
namespace {

using runtime::EncodeLogProbs;
using runtime::LogitsFileHeader;
using runtime::LogitsFileReader;
using runtime::LogitsFileWriter;
using runtime::LogProbRecord;
using runtime::RecordWords;
using runtime::ScoredRows;

std::vector<float> RandomLogits(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> dist(0.0f, 4.0f);
  std::vector<float> x(static_cast<size_t>(n));
  for (float& v : x) v = dist(rng);
  return x;
}

TEST(LogitsFileTest, SizesFollowLlamaCpp) {
  EXPECT_EQ(ScoredRows(512), 255);
  EXPECT_EQ(ScoredRows(2048), 1023);
  EXPECT_EQ(RecordWords(32000), 32004);
  EXPECT_EQ(RecordWords(32001), 32006);  // odd vocabularies pad to an even count
  EXPECT_EQ(runtime::LogitsFileBytes(4, 3, 2), 20 + 4 * 8 + 2 * 2 * 1 * 8);
}

TEST(LogitsFileTest, RecordsHoldTheLogSoftmax) {
  const int64_t n = 1001;
  const std::vector<float> logits = RandomLogits(n, 7);
  std::vector<uint16_t> record(static_cast<size_t>(RecordWords(n)), 0xFFFF);
  const double nll = EncodeLogProbs(logits, 17, record);
  // The log-softmax in double, independently.
  double max = logits[0];
  for (float l : logits) max = std::max<double>(max, l);
  double sum = 0;
  for (float l : logits) sum += std::exp(l - max);
  const double lse = max + std::log(sum);
  EXPECT_NEAR(nll, lse - logits[17], 1e-4);
  const LogProbRecord r(record);
  ASSERT_EQ(r.size(), RecordWords(n) - 4);
  // 16 units of log probability in 65535 steps: within half a step, for
  // every logit above the clamp at max - 16.
  const double step = 16.0 / 65535;
  int64_t checked = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double exact = logits[static_cast<size_t>(i)] - lse;
    if (logits[static_cast<size_t>(i)] > max - 16) {
      EXPECT_NEAR(r.LogProb(i), exact, step / 2 + 1e-4) << i;
      ++checked;
    } else {
      EXPECT_NEAR(r.LogProb(i), max - 16 - lse, 1e-4) << i;  // clamped to the bottom
    }
  }
  EXPECT_GT(checked, n / 2);
  EXPECT_EQ(record.back(), 0u);  // the pad word of an odd vocabulary is zero
}

TEST(LogitsFileTest, ConstantRowIsAllZeroQuants) {
  const std::vector<float> logits(8, 2.5f);
  std::vector<uint16_t> record(static_cast<size_t>(RecordWords(8)), 0xFFFF);
  EXPECT_NEAR(EncodeLogProbs(logits, 0, record), std::log(8.0), 1e-6);
  const LogProbRecord r(record);
  for (int64_t i = 0; i < 8; ++i) EXPECT_NEAR(r.LogProb(i), -std::log(8.0), 1e-6);
}

// A two-chunk file of n_ctx 4, n_vocab 3, as bytes.
std::string TwoChunkFile(std::vector<uint16_t>* chunk1, std::vector<uint16_t>* chunk2) {
  LogitsFileHeader h;
  h.n_ctx = 4;
  h.n_vocab = 3;
  h.n_chunk = 2;
  h.tokens = {1, 2, 0, 1, 2, 2, 1, 0};
  std::ostringstream out;
  Expected<LogitsFileWriter> w = LogitsFileWriter::Start(out, h);
  EXPECT_TRUE(w.ok()) << w.status().message();
  chunk1->assign(static_cast<size_t>(ScoredRows(4) * RecordWords(3)), 0);
  *chunk2 = *chunk1;
  EncodeLogProbs(std::vector<float>{1.0f, 2.0f, 3.0f}, 1, *chunk1);
  EncodeLogProbs(std::vector<float>{-1.0f, 0.5f, 0.0f}, 2, *chunk2);
  EXPECT_TRUE(w->WriteChunk(*chunk1).ok());
  EXPECT_TRUE(w->WriteChunk(*chunk2).ok());
  EXPECT_FALSE(w->WriteChunk(*chunk2).ok());  // a third chunk is not in the header
  return out.str();
}

TEST(LogitsFileTest, BytesAreTheLayoutAndReadBack) {
  std::vector<uint16_t> c1, c2;
  const std::string bytes = TwoChunkFile(&c1, &c2);
  ASSERT_EQ(static_cast<int64_t>(bytes.size()), runtime::LogitsFileBytes(4, 3, 2));
  EXPECT_EQ(bytes.substr(0, 8), "_logits_");
  int32_t fields[3];
  std::memcpy(fields, bytes.data() + 8, 12);
  EXPECT_EQ(fields[0], 4);
  EXPECT_EQ(fields[1], 3);
  EXPECT_EQ(fields[2], 2);
  int32_t token5;
  std::memcpy(&token5, bytes.data() + 20 + 4 * 5, 4);
  EXPECT_EQ(token5, 2);
  EXPECT_EQ(std::memcmp(bytes.data() + 20 + 32, c1.data(), 2 * c1.size()), 0);

  std::istringstream in(bytes);
  Expected<LogitsFileReader> r = LogitsFileReader::Open(in, static_cast<int64_t>(bytes.size()));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->header().tokens, (std::vector<int32_t>{1, 2, 0, 1, 2, 2, 1, 0}));
  std::vector<uint16_t> got;
  ASSERT_TRUE(r->ReadChunk(&got).ok());
  EXPECT_EQ(got, c1);
  ASSERT_TRUE(r->ReadChunk(&got).ok());
  EXPECT_EQ(got, c2);
  EXPECT_EQ(r->ReadChunk(&got).code(), ErrorCode::kInvalidArgument);
}

Status OpenStatus(const std::string& bytes, int64_t size) {
  std::istringstream in(bytes);
  Expected<LogitsFileReader> r = LogitsFileReader::Open(in, size);
  return r.ok() ? Status::Ok() : r.status();
}

TEST(LogitsFileTest, DamagedFilesAreRefusedByName) {
  std::vector<uint16_t> c1, c2;
  const std::string good = TwoChunkFile(&c1, &c2);
  const int64_t size = static_cast<int64_t>(good.size());

  std::string bad = good;
  bad[1] = 'L';
  EXPECT_NE(OpenStatus(bad, size).message().find("_logits_"), std::string::npos);
  EXPECT_NE(OpenStatus(good.substr(0, 10), 10).message().find("header"), std::string::npos);
  // Size disagreeing with the header, known up front.
  EXPECT_NE(OpenStatus(good.substr(0, good.size() - 2), size - 2).message().find("needs"), std::string::npos);
  // Size unknown: the short chunk shows when read.
  {
    std::istringstream in(good.substr(0, good.size() - 2));
    Expected<LogitsFileReader> r = LogitsFileReader::Open(in, -1);
    ASSERT_TRUE(r.ok());
    std::vector<uint16_t> got;
    EXPECT_TRUE(r->ReadChunk(&got).ok());
    const Status s = r->ReadChunk(&got);
    EXPECT_EQ(s.code(), ErrorCode::kCorrupt);
    EXPECT_NE(s.message().find("chunk 2"), std::string::npos) << s.message();
  }
  // A token outside the vocabulary.
  bad = good;
  const int32_t big = 3;
  std::memcpy(bad.data() + 20 + 4 * 6, &big, 4);
  EXPECT_NE(OpenStatus(bad, size).message().find("token 6 is 3"), std::string::npos);
  // Sizes out of range.
  bad = good;
  const int32_t zero = 0;
  std::memcpy(bad.data() + 16, &zero, 4);
  EXPECT_NE(OpenStatus(bad, size).message().find("out of range"), std::string::npos);
}

TEST(LogitsFileTest, WriterRefusesInconsistentHeaders) {
  std::ostringstream out;
  LogitsFileHeader h;
  h.n_ctx = 4;
  h.n_vocab = 3;
  h.n_chunk = 2;
  h.tokens = {1, 2, 3};
  EXPECT_EQ(LogitsFileWriter::Start(out, h).status().code(), ErrorCode::kInvalidArgument);
  h.tokens.assign(8, 0);
  Expected<LogitsFileWriter> w = LogitsFileWriter::Start(out, h);
  ASSERT_TRUE(w.ok());
  EXPECT_EQ(w->WriteChunk(std::vector<uint16_t>(3)).code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace trit::testing
