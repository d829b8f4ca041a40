// runtime/perplexity on the bundled model: the chunks' scored rows are the
// rows a whole-chunk Verify gives (bit for bit), the perplexity is the one
// computed here from those logits, the result does not depend on threads or
// pass sizes, a model compared with its own saved logits is at distance ~0,
// and bad requests are refused by name.
#include "runtime/perplexity.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "formats/gguf/reader.h"
#include "model/model.h"
#include "model/random_model.h"
#include "test_paths.h"
#include "tokenizer/tokenizer.h"

namespace trit::runtime {
namespace {

constexpr int32_t kBos = 1;  // the bundled model's BOS

class PerplexityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Expected<std::unique_ptr<model::Model>> m = model::LoadModel(testing::BundledModelPath());
    ASSERT_TRUE(m.ok()) << m.status().message();
    model_ = std::move(*m);
    Expected<gguf::File> file = gguf::File::Open(testing::BundledModelPath());
    ASSERT_TRUE(file.ok());
    Expected<std::unique_ptr<tokenizer::Tokenizer>> tok = tokenizer::Tokenizer::FromGguf(*file);
    ASSERT_TRUE(tok.ok());
    std::ifstream in(testing::SourcePath("tests/data/text/little_story.txt"));
    std::stringstream text;
    text << in.rdbuf();
    tokens_ = (*tok)->Encode(text.str(), {});
    ASSERT_GT(tokens_.size(), 600u);
  }
  std::unique_ptr<Session> NewSession(int n_threads, int64_t n_ctx = 64) {
    SessionOptions o;
    o.n_ctx = n_ctx;
    o.n_threads = n_threads;
    Expected<std::unique_ptr<Session>> s = Session::Create(*model_, o);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return std::move(*s);
  }
  static PerplexityOptions Options(int64_t n_ctx, int64_t n_batch) {
    PerplexityOptions o;
    o.n_ctx = n_ctx;
    o.n_batch = n_batch;
    o.bos = kBos;
    return o;
  }
  std::unique_ptr<model::Model> model_;
  std::vector<int32_t> tokens_;
};

TEST_F(PerplexityTest, ChunkRowsAreTheSecondHalfOfAWholeChunkVerify) {
  const int64_t n_ctx = 64;
  std::vector<int32_t> chunk(tokens_.begin() + 64, tokens_.begin() + 128);
  auto session = NewSession(1);
  Expected<Logits> scored = ScoreChunk(*session, chunk, Options(n_ctx, 10));
  ASSERT_TRUE(scored.ok()) << scored.status().message();
  ASSERT_EQ(scored->n_rows, ScoredRows(n_ctx));

  std::vector<int32_t> with_bos = chunk;
  with_bos[0] = kBos;  // the chunk's first token is replaced, not shifted
  auto fresh = NewSession(1);
  Expected<Logits> all = fresh->Verify(with_bos);
  ASSERT_TRUE(all.ok());
  const int64_t first = n_ctx / 2;
  for (int64_t r = 0; r < scored->n_rows; ++r) {
    EXPECT_EQ(std::memcmp(scored->Row(r).data(), all->Row(first + r).data(), sizeof(float) * 512), 0) << "row " << r;
  }
}

TEST_F(PerplexityTest, PerplexityIsExpOfTheMeanNllOfTheScoredTargets) {
  const int64_t n_ctx = 64;
  auto session = NewSession(2);
  Expected<PerplexityResult> r = RunPerplexity(*session, tokens_, Options(n_ctx, 64), nullptr, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  const int64_t n_chunk = static_cast<int64_t>(tokens_.size()) / n_ctx;
  EXPECT_EQ(r->n_chunk, n_chunk);
  EXPECT_EQ(r->nll.count(), n_chunk * ScoredRows(n_ctx));
  ASSERT_EQ(r->running_ppl.size(), static_cast<size_t>(n_chunk));

  // The same figure from whole-chunk Verify logits and a double-precision softmax.
  double nll = 0.0;
  int64_t count = 0;
  for (int64_t c = 0; c < n_chunk; ++c) {
    std::vector<int32_t> chunk(tokens_.begin() + c * n_ctx, tokens_.begin() + (c + 1) * n_ctx);
    chunk[0] = kBos;
    auto fresh = NewSession(1);
    Expected<Logits> all = fresh->Verify(chunk);
    ASSERT_TRUE(all.ok());
    for (int64_t pos = n_ctx / 2; pos < n_ctx - 1; ++pos) {
      std::span<const float> row = all->Row(pos);
      const double max = *std::max_element(row.begin(), row.end());
      double sum = 0.0;
      for (float l : row) sum += std::exp(static_cast<double>(l) - max);
      const int32_t target = tokens_[static_cast<size_t>(c * n_ctx + pos + 1)];
      nll += std::log(sum) + max - row[static_cast<size_t>(target)];
      ++count;
    }
    if (c == 0) {
      EXPECT_NEAR(r->running_ppl[0], std::exp(nll / static_cast<double>(count)), 1e-4);
    }
  }
  EXPECT_NEAR(r->nll.Ppl(), std::exp(nll / static_cast<double>(count)), 1e-4);
  EXPECT_GT(r->nll.Ppl(), 1.5);  // a real model on real text: far from certain,
  EXPECT_LT(r->nll.Ppl(), 50.0);  // and far better than uniform over 512 tokens
  EXPECT_GT(r->nll.PplError(), 0.0);
}

TEST_F(PerplexityTest, SameBitsForEveryThreadCountAndPassSize) {
  auto one = NewSession(1);
  Expected<PerplexityResult> a = RunPerplexity(*one, tokens_, Options(64, 64), nullptr, {});
  ASSERT_TRUE(a.ok());
  for (int threads : {2, 3}) {
    for (int64_t batch : {5, 31, 64}) {
      auto s = NewSession(threads);
      Expected<PerplexityResult> b = RunPerplexity(*s, tokens_, Options(64, batch), nullptr, {});
      ASSERT_TRUE(b.ok());
      EXPECT_EQ(b->running_ppl, a->running_ppl) << threads << " threads, passes of " << batch;
    }
  }
}

TEST_F(PerplexityTest, ChunkLimitAndProgress) {
  auto s = NewSession(1, 32);
  PerplexityOptions o = Options(32, 32);
  o.max_chunks = 3;
  std::vector<PerplexityProgress> seen;
  Expected<PerplexityResult> r = RunPerplexity(*s, tokens_, o, nullptr, [&](const PerplexityProgress& p) { seen.push_back(p); });
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->n_chunk, 3);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[2].chunk, 3);
  EXPECT_EQ(seen[2].n_chunk, 3);
  EXPECT_EQ(seen[2].ppl, r->nll.Ppl());
}

TEST_F(PerplexityTest, SavedLogitsCompareWithTheSameModelAtDistanceZero) {
  const PerplexityOptions o = Options(64, 64);
  const LogitsFileHeader header = PerplexityHeader(tokens_, o, 512);
  EXPECT_EQ(header.n_chunk, static_cast<int32_t>(tokens_.size() / 64));
  std::stringstream file;
  Expected<LogitsFileWriter> writer = LogitsFileWriter::Start(file, header);
  ASSERT_TRUE(writer.ok());
  auto s = NewSession(2);
  Expected<PerplexityResult> saved = RunPerplexity(*s, tokens_, o, &*writer, {});
  ASSERT_TRUE(saved.ok()) << saved.status().message();
  EXPECT_EQ(writer->chunks_written(), header.n_chunk);
  EXPECT_EQ(static_cast<int64_t>(file.str().size()), LogitsFileBytes(64, 512, header.n_chunk));

  Expected<LogitsFileReader> base = LogitsFileReader::Open(file, static_cast<int64_t>(file.str().size()));
  ASSERT_TRUE(base.ok()) << base.status().message();
  auto again = NewSession(1);
  Expected<PerplexityResult> r = RunKlDivergence(*again, *base, o, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->kld.has_value());
  const KldSummary& k = *r->kld;
  EXPECT_EQ(k.count, saved->nll.count());
  EXPECT_LT(std::fabs(k.kld.mean), 1e-5);  // only the record's 16-bit rounding
  EXPECT_EQ(k.same_top.mean, 1.0);
  EXPECT_NEAR(k.ppl.mean, saved->nll.Ppl(), 1e-4 * saved->nll.Ppl());
  EXPECT_NEAR(k.ppl_base.mean, k.ppl.mean, 1e-3 * k.ppl.mean);
}

TEST_F(PerplexityTest, AnotherModelsBaseIsFarAway) {
  // A model of the same vocabulary with random weights as the base: the
  // distance must show (a comparison that always said ~0 would pass the test above).
  testing::RandomModelSpec spec;
  spec.n_vocab = 512;
  spec.n_ctx = 64;
  const std::string path = ::testing::TempDir() + "/perplexity_random_base.gguf";
  ASSERT_TRUE(testing::WriteRandomModel(spec, path).ok());
  Expected<std::unique_ptr<model::Model>> random = model::LoadModel(path);
  ASSERT_TRUE(random.ok()) << random.status().message();
  const PerplexityOptions o = Options(64, 64);
  std::stringstream file;
  Expected<LogitsFileWriter> writer = LogitsFileWriter::Start(file, PerplexityHeader(tokens_, o, 512));
  ASSERT_TRUE(writer.ok());
  SessionOptions so;
  so.n_ctx = 64;
  auto base_session = Session::Create(**random, so);
  ASSERT_TRUE(base_session.ok());
  Expected<PerplexityResult> base_run = RunPerplexity(**base_session, tokens_, o, &*writer, {});
  ASSERT_TRUE(base_run.ok());
  Expected<LogitsFileReader> base = LogitsFileReader::Open(file, -1);
  ASSERT_TRUE(base.ok());
  auto s = NewSession(1);
  Expected<PerplexityResult> r = RunKlDivergence(*s, *base, o, {});
  ASSERT_TRUE(r.ok());
  const KldSummary& k = *r->kld;
  EXPECT_GT(k.kld.mean, 0.5);
  EXPECT_LT(k.same_top.mean, 0.5);
  EXPECT_GT(k.kld_spread.max, k.kld_spread.median);
  EXPECT_NEAR(k.ppl_base.mean, base_run->nll.Ppl(), 1e-3 * base_run->nll.Ppl());
  EXPECT_GT(k.ppl_base.mean, 2 * k.ppl.mean);  // random weights predict the story far worse
  std::remove(path.c_str());
}

TEST_F(PerplexityTest, RefusesWhatCannotBeScored) {
  auto s = NewSession(1);
  std::vector<int32_t> short_text(tokens_.begin(), tokens_.begin() + 100);
  Expected<PerplexityResult> r = RunPerplexity(*s, short_text, Options(64, 64), nullptr, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("100 tokens"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("128"), std::string::npos);

  r = RunPerplexity(*s, tokens_, Options(128, 64), nullptr, {});  // the session holds 64
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("does not fit"), std::string::npos) << r.status().message();

  r = RunPerplexity(*s, tokens_, Options(2, 2), nullptr, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("scores no rows"), std::string::npos) << r.status().message();

  // A base of another vocabulary.
  LogitsFileHeader other;
  other.n_ctx = 8;
  other.n_vocab = 100;
  other.n_chunk = 1;
  other.tokens.assign(8, 3);
  std::stringstream file;
  Expected<LogitsFileWriter> w = LogitsFileWriter::Start(file, other);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE(w->WriteChunk(std::vector<uint16_t>(static_cast<size_t>(ScoredRows(8) * RecordWords(100)))).ok());
  Expected<LogitsFileReader> base = LogitsFileReader::Open(file, -1);
  ASSERT_TRUE(base.ok());
  r = RunKlDivergence(*s, *base, Options(8, 8), {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("vocabulary of 100 tokens, the model 512"), std::string::npos)
      << r.status().message();
}

}  // namespace
}  // namespace trit::runtime
