// Speculative decoding gives Generate's tokens, bit for bit, and leaves the
// cache as Generate does: greedy and sampled, every drafter (prompt lookup,
// a draft model, drafters that guess well, badly or wrongly), every draft
// length, stops by end token, callback and token limit.
#include "runtime/speculative.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <span>

#include <unistd.h>

#include "convert/quantize_file.h"
#include "formats/gguf/reader.h"
#include "model/model.h"
#include "runtime/draft_model.h"
#include "test_paths.h"

namespace trit::testing {
namespace {

using runtime::Drafter;
using runtime::Generation;
using runtime::SamplerOptions;

// The prompt: the bundled model's tokens for a short story opening.
const std::vector<int32_t> kPrompt = {1, 403, 407, 261, 378, 432, 383, 286, 261, 376, 298, 315, 421, 395};

// Guesses from a fixed sequence (the plain answer), with every `wrong`-th guess altered.
class ScriptedDrafter final : public Drafter {
 public:
  ScriptedDrafter(std::vector<int32_t> script, int wrong) : script_(std::move(script)), wrong_(wrong) {}
  Expected<std::vector<int32_t>> Draft(std::span<const int32_t> context, int32_t max) override {
    std::vector<int32_t> out;
    const size_t at = context.size() - kPrompt.size();  // tokens generated so far
    for (size_t i = at; i < script_.size() && out.size() < static_cast<size_t>(max); ++i) {
      ++n_;
      out.push_back(wrong_ > 0 && n_ % wrong_ == 0 ? (script_[i] + 1) % 512 : script_[i]);
    }
    return out;
  }

 private:
  std::vector<int32_t> script_;
  int wrong_;
  int n_ = 0;
};

// Random guesses: almost never right.
class RandomDrafter final : public Drafter {
 public:
  Expected<std::vector<int32_t>> Draft(std::span<const int32_t>, int32_t max) override {
    std::vector<int32_t> out;
    for (int32_t i = 0; i < max; ++i) out.push_back(static_cast<int32_t>(rng_() % 512));
    return out;
  }

 private:
  std::mt19937_64 rng_{5};
};

class SpeculativeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Expected<std::unique_ptr<model::Model>> m = model::LoadModel(BundledModelPath());
    ASSERT_TRUE(m.ok()) << m.status().message();
    model_ = std::move(*m);
  }
  std::unique_ptr<runtime::Session> NewSession(int64_t n_ctx = 0) {
    runtime::SessionOptions o;
    o.n_threads = 1;
    o.n_ctx = n_ctx;
    auto s = runtime::Session::Create(*model_, o);
    EXPECT_TRUE(s.ok()) << s.status().message();
    return std::move(*s);
  }
  // Generate's answer, and the cache length it leaves.
  Generation Plain(const SamplerOptions& so, const runtime::GenerateOptions& go, int64_t* cached,
                   int64_t n_ctx = 0, std::span<const int32_t> prompt = kPrompt) {
    auto session = NewSession(n_ctx);
    runtime::Sampler sampler(so);
    Expected<Generation> g = runtime::Generate(*session, prompt, sampler, go);
    EXPECT_TRUE(g.ok()) << g.status().message();
    *cached = session->Length(0);
    return g.ok() ? *g : Generation{};
  }
  Generation Speculative(const SamplerOptions& so, const runtime::GenerateOptions& go, Drafter& drafter,
                         int32_t draft_max, int64_t* cached, runtime::SpeculativeStats* stats, int64_t n_ctx = 0,
                         std::span<const int32_t> prompt = kPrompt) {
    auto session = NewSession(n_ctx);
    runtime::Sampler sampler(so);
    Expected<Generation> g = runtime::GenerateSpeculative(*session, {}, prompt, sampler, go, drafter,
                                                          {.draft_max = draft_max}, stats);
    EXPECT_TRUE(g.ok()) << g.status().message();
    *cached = session->Length(0);
    return g.ok() ? *g : Generation{};
  }
  std::unique_ptr<model::Model> model_;
};

void ExpectSame(const Generation& a, const Generation& b, const std::string& what) {
  EXPECT_EQ(a.tokens, b.tokens) << what;
  EXPECT_EQ(a.stop, b.stop) << what;
}

TEST_F(SpeculativeTest, EveryDrafterAndDraftLengthGivesThePlainTokens) {
  for (float temperature : {0.0f, 0.9f}) {
    for (uint64_t seed : {1u, 2u, 3u}) {
      SamplerOptions so;
      so.temperature = temperature;
      so.seed = seed;
      so.repeat_penalty = 1.1f;  // the penalties see the same history
      runtime::GenerateOptions go;
      go.max_tokens = 60;
      int64_t plain_cached = 0;
      const Generation plain = Plain(so, go, &plain_cached);
      ASSERT_EQ(plain.tokens.size(), 60u);
      for (int32_t k : {1, 2, 5, 8}) {
        const std::string what = "temp " + std::to_string(temperature) + " seed " + std::to_string(seed) +
                                 " k " + std::to_string(k);
        for (int wrong : {0, 2, 7}) {
          ScriptedDrafter scripted(plain.tokens, wrong);
          runtime::SpeculativeStats stats;
          int64_t cached = 0;
          ExpectSame(Speculative(so, go, scripted, k, &cached, &stats), plain, what + " wrong " + std::to_string(wrong));
          EXPECT_EQ(cached, plain_cached) << what;
          EXPECT_GT(stats.accepted, 0) << what;
          if (wrong == 0 && k > 1) {
            EXPECT_LT(stats.passes, 40) << what;  // fewer passes than tokens
          }
        }
        RandomDrafter random;
        runtime::PromptLookupDrafter lookup;
        for (Drafter* d : std::vector<Drafter*>{&random, &lookup}) {
          int64_t cached = 0;
          runtime::SpeculativeStats stats;
          ExpectSame(Speculative(so, go, *d, k, &cached, &stats), plain, what + (d == &random ? " random" : " lookup"));
          EXPECT_EQ(cached, plain_cached) << what;
        }
      }
    }
  }
}

TEST_F(SpeculativeTest, ADraftModelGivesThePlainTokens) {
  // The target itself as its draft model: every greedy guess is right.
  auto drafter = runtime::ModelDrafter::Create(*model_, {.n_ctx = 0, .n_seq = 1, .n_threads = 1});
  ASSERT_TRUE(drafter.ok()) << drafter.status().message();
  for (float temperature : {0.0f, 0.8f}) {
    SamplerOptions so;
    so.temperature = temperature;
    so.seed = 11;
    runtime::GenerateOptions go;
    go.max_tokens = 50;
    int64_t plain_cached = 0, cached = 0;
    const Generation plain = Plain(so, go, &plain_cached);
    runtime::SpeculativeStats stats;
    ExpectSame(Speculative(so, go, **drafter, 6, &cached, &stats), plain, "draft model");
    EXPECT_EQ(cached, plain_cached);
    if (temperature == 0.0f) {
      EXPECT_EQ(stats.accepted, stats.drafted);
    }
  }
}

TEST_F(SpeculativeTest, AQuantizedCopyAsDraftGivesThePlainTokensForManyPromptsAndSeeds) {
  // A q4_0 copy of the model: a real draft model, right about two guesses in three.
  const std::string path =
      (std::filesystem::temp_directory_path() / ("trit-spec-draft-" + std::to_string(::getpid()) + ".gguf")).string();
  {
    Expected<gguf::File> file = gguf::File::Open(BundledModelPath());
    ASSERT_TRUE(file.ok()) << file.status().message();
    Expected<std::vector<convert::TensorPlan>> q =
        convert::QuantizeFile(*file, *quant::FindTypeByName("q4_0"), path, {});
    ASSERT_TRUE(q.ok()) << q.status().message();
  }
  Expected<std::unique_ptr<model::Model>> draft = model::LoadModel(path);
  std::filesystem::remove(path);  // mapped: stays readable while open
  ASSERT_TRUE(draft.ok()) << draft.status().message();
  const std::vector<std::vector<int32_t>> prompts = {
      {1}, {1, 403, 407}, kPrompt, {1, 261, 378, 432}, {1, 315, 421, 395, 286, 261}};
  runtime::SpeculativeStats total;
  for (const std::vector<int32_t>& prompt : prompts) {
    for (uint64_t seed : {0u, 1u, 2u, 3u}) {
      SamplerOptions so;
      so.temperature = seed == 0 ? 0.0f : 0.8f;
      so.seed = seed;
      runtime::GenerateOptions go;
      go.max_tokens = 60;
      go.end_ids = {2};
      int64_t plain_cached = 0;
      const Generation plain = Plain(so, go, &plain_cached, 0, prompt);
      for (int32_t k : {3, 8}) {
        auto drafter = runtime::ModelDrafter::Create(**draft, {.n_ctx = 0, .n_seq = 1, .n_threads = 1});
        ASSERT_TRUE(drafter.ok()) << drafter.status().message();
        int64_t cached = 0;
        const std::string what = "prompt of " + std::to_string(prompt.size()) + ", seed " + std::to_string(seed) +
                                 ", k " + std::to_string(k);
        ExpectSame(Speculative(so, go, **drafter, k, &cached, &total, 0, prompt), plain, what);
        EXPECT_EQ(cached, plain_cached) << what;
      }
    }
  }
  // Both paths ran many times: kept drafts, and rejections with truncation.
  EXPECT_GT(total.accepted, total.drafted / 3);
  EXPECT_LT(total.accepted, total.drafted * 9 / 10);
}

TEST_F(SpeculativeTest, StopsWhereGenerateStops) {
  SamplerOptions so;
  so.temperature = 0.7f;
  so.seed = 4;
  runtime::GenerateOptions base;
  base.max_tokens = 40;
  int64_t ignored = 0;
  const Generation full = Plain(so, base, &ignored);
  ASSERT_EQ(full.tokens.size(), 40u);
  // An end token: the 13th token of the answer ends it.
  runtime::GenerateOptions end = base;
  end.end_ids = {full.tokens[12]};
  // A callback that stops after 9 tokens.
  runtime::GenerateOptions callback = base;
  callback.on_token = [n = 0](int32_t) mutable { return ++n < 9; };
  // A token limit.
  runtime::GenerateOptions limit = base;
  limit.max_tokens = 17;
  for (const auto& [name, go] : std::vector<std::pair<std::string, runtime::GenerateOptions>>{
           {"end", end}, {"callback", callback}, {"limit", limit}}) {
    int64_t plain_cached = 0;
    runtime::GenerateOptions fresh = go;
    if (name == "callback") fresh.on_token = [n = 0](int32_t) mutable { return ++n < 9; };
    const Generation plain = Plain(so, fresh, &plain_cached);
    for (int32_t k : {1, 4, 8}) {
      ScriptedDrafter scripted(full.tokens, 0);
      runtime::GenerateOptions spec = go;
      if (name == "callback") spec.on_token = [n = 0](int32_t) mutable { return ++n < 9; };
      int64_t cached = 0;
      ExpectSame(Speculative(so, spec, scripted, k, &cached, nullptr), plain, name + " k " + std::to_string(k));
      EXPECT_EQ(cached, plain_cached) << name << " k " << k;
    }
  }
}

TEST_F(SpeculativeTest, AFullContextEndsAsPlainDecodingEnds) {
  // A 40-token context holds the 14-token prompt and 26 more: asked for 26,
  // both succeed with the same tokens; asked for more, both fail.
  RandomDrafter random;
  runtime::PromptLookupDrafter lookup;
  for (int64_t max_tokens : {26, 27, 100}) {
    SamplerOptions so;
    so.temperature = 0.9f;
    so.seed = 8;
    runtime::GenerateOptions go;
    go.max_tokens = max_tokens;
    auto plain_session = NewSession(40);
    runtime::Sampler plain_sampler(so);
    Expected<Generation> plain = runtime::Generate(*plain_session, kPrompt, plain_sampler, go);
    for (Drafter* d : std::vector<Drafter*>{&random, &lookup}) {
      auto session = NewSession(40);
      runtime::Sampler sampler(so);
      Expected<Generation> spec =
          runtime::GenerateSpeculative(*session, {}, kPrompt, sampler, go, *d, {.draft_max = 8}, nullptr);
      ASSERT_EQ(plain.ok(), spec.ok()) << max_tokens;
      if (plain.ok()) {
        ExpectSame(*spec, *plain, "max " + std::to_string(max_tokens));
        EXPECT_EQ(session->Length(0), plain_session->Length(0));
      } else {
        EXPECT_EQ(spec.status().code(), plain.status().code());
      }
    }
  }
}

TEST(DraftPolicyTest, GrowsWhenRightFallsWhenWrongAndPausesWhenAlwaysWrong) {
  runtime::DraftPolicy p(8);
  EXPECT_EQ(p.Next(), 4);
  p.Record(4, 4);
  EXPECT_EQ(p.Next(), 6);
  p.Record(6, 6);
  p.Record(8, 8);
  EXPECT_EQ(p.Next(), 8);  // at most draft_max
  p.Record(8, 2);
  EXPECT_EQ(p.Next(), 3);  // one past the drafts kept
  p.Record(3, 0);
  EXPECT_EQ(p.Next(), 1);
  // A single draft rejected again and again: pauses of 1, 2, 4, 8 passes
  // (with the miss above, five passes in a row without a kept draft).
  for (int32_t pause : {1, 2, 4, 8}) {
    p.Record(1, 0);
    for (int32_t i = 0; i < pause; ++i) {
      EXPECT_EQ(p.Next(), 0) << "pause " << pause << ", pass " << i;
      p.Record(0, 0);
    }
    EXPECT_EQ(p.Next(), 1) << "after a pause of " << pause;
  }
  // A kept draft ends the back-off: the next rejection pauses one pass.
  p.Record(1, 1);
  EXPECT_EQ(p.Next(), 3);
  p.Record(3, 0);
  p.Record(1, 0);
  EXPECT_EQ(p.Next(), 0);
  p.Record(0, 0);
  EXPECT_EQ(p.Next(), 1);
}

TEST(DraftPolicyTest, GivesUpAfterSixPassesInARowWithoutAKeptDraft) {
  runtime::DraftPolicy p(8);
  p.Record(4, 0);  // miss 1: no pause, one guess next
  EXPECT_EQ(p.Next(), 1);
  std::vector<int32_t> pauses;
  for (int32_t miss = 2; miss <= runtime::DraftPolicy::kGiveUpAfter; ++miss) {
    p.Record(1, 0);
    int32_t n = 0;
    while (p.Next() == 0 && n < 1000) {
      p.Record(0, 0);
      ++n;
    }
    pauses.push_back(n);
  }
  EXPECT_EQ(pauses, (std::vector<int32_t>{1, 2, 4, 8, 1000}));  // the sixth miss: no more drafts
  // A drafter right now and then never gives up: a kept draft resets the count.
  runtime::DraftPolicy q(8);
  for (int32_t round = 0; round < 20; ++round) {
    q.Record(1, 1);
    q.Record(3, 0);
    for (int32_t i = 0; i < 3; ++i) {
      q.Record(1, 0);
      while (q.Next() == 0) q.Record(0, 0);
    }
  }
  EXPECT_EQ(q.Next(), 1);
}

TEST_F(SpeculativeTest, DraftsForSeveralSequencesAreThoseOfEachAlone) {
  const std::vector<std::vector<int32_t>> contexts = {
      kPrompt, {1, 403, 407}, std::vector<int32_t>(kPrompt.begin(), kPrompt.begin() + 9)};
  std::vector<std::vector<int32_t>> alone;
  for (const auto& c : contexts) {
    auto d = runtime::ModelDrafter::Create(*model_, {.n_ctx = 64, .n_seq = 1, .n_threads = 1}, 0.0f);
    ASSERT_TRUE(d.ok());
    alone.push_back((*d)->Draft(c, 5).value());
    EXPECT_EQ(alone.back().size(), 5u);
  }
  auto many = runtime::ModelDrafter::Create(*model_, {.n_ctx = 64, .n_seq = 3, .n_threads = 2}, 0.0f);
  ASSERT_TRUE(many.ok());
  std::vector<runtime::ModelDrafter::Request> requests;
  for (size_t i = 0; i < contexts.size(); ++i) requests.push_back({static_cast<int32_t>(2 - i), contexts[i], 5});
  auto drafts = (*many)->DraftMany(requests);
  ASSERT_TRUE(drafts.ok()) << drafts.status().message();
  EXPECT_EQ(*drafts, alone);
  // Again after the contexts moved on (caches kept where they agree, cut
  // where they do not): still the drafts of a fresh drafter.
  std::vector<std::vector<int32_t>> moved = {kPrompt, {1, 403, 407, 261, 378}, {1, 2, 3}};
  moved[0].push_back(alone[0][0]);
  requests.clear();
  for (size_t i = 0; i < moved.size(); ++i) requests.push_back({static_cast<int32_t>(2 - i), moved[i], 3});
  drafts = (*many)->DraftMany(requests);
  ASSERT_TRUE(drafts.ok()) << drafts.status().message();
  for (size_t i = 0; i < moved.size(); ++i) {
    auto fresh = runtime::ModelDrafter::Create(*model_, {.n_ctx = 64, .n_seq = 1, .n_threads = 1}, 0.0f);
    ASSERT_TRUE(fresh.ok());
    EXPECT_EQ((*drafts)[i], (*fresh)->Draft(moved[i], 3).value()) << i;
  }
  // A sequence asked twice, or out of range, is refused.
  requests = {{1, kPrompt, 2}, {1, kPrompt, 2}};
  EXPECT_FALSE((*many)->DraftMany(requests).ok());
  requests = {{3, kPrompt, 2}};
  EXPECT_FALSE((*many)->DraftMany(requests).ok());
}

TEST_F(SpeculativeTest, DraftsStopAtTheFirstUnlikelyGuess) {
  // Over many contexts: with a minimum probability the drafts are a prefix
  // of the full-length drafts, shorter somewhere, and none at probability 1
  // (no guess of a softmax over 512 finite logits reaches it).
  const runtime::SessionOptions one{.n_ctx = 128, .n_seq = 1, .n_threads = 1};
  auto full = runtime::ModelDrafter::Create(*model_, one, 0.0f);
  auto likely = runtime::ModelDrafter::Create(*model_, one, 0.5f);
  auto certain = runtime::ModelDrafter::Create(*model_, one, 1.0f);
  ASSERT_TRUE(full.ok() && likely.ok() && certain.ok());
  size_t n_full = 0, n_likely = 0;
  for (size_t n = 1; n <= kPrompt.size(); ++n) {
    const std::span<const int32_t> context(kPrompt.data(), n);
    const std::vector<int32_t> f = (*full)->Draft(context, 8).value();
    const std::vector<int32_t> l = (*likely)->Draft(context, 8).value();
    ASSERT_EQ(f.size(), 8u);
    ASSERT_LE(l.size(), f.size());
    EXPECT_TRUE(std::equal(l.begin(), l.end(), f.begin())) << n;
    EXPECT_TRUE((*certain)->Draft(context, 8)->empty()) << n;
    n_full += f.size();
    n_likely += l.size();
  }
  EXPECT_LT(n_likely, n_full);
  EXPECT_GT(n_likely, 0u);
}

TEST_F(SpeculativeTest, APreparedDraftModelGuessesWhatAFreshOneGuesses) {
  const runtime::SessionOptions one{.n_ctx = 64, .n_seq = 1, .n_threads = 1};
  auto fresh = runtime::ModelDrafter::Create(*model_, one, 0.0f);
  auto prepared = runtime::ModelDrafter::Create(*model_, one, 0.0f);
  ASSERT_TRUE(fresh.ok() && prepared.ok());
  ASSERT_TRUE((*prepared)->Prepare(kPrompt).ok());
  EXPECT_EQ((*prepared)->Draft(kPrompt, 4).value(), (*fresh)->Draft(kPrompt, 4).value());
  // Prepared for another context, then asked about this one: still the same.
  ASSERT_TRUE((*prepared)->Prepare(std::vector<int32_t>{1, 261, 378, 432}).ok());
  EXPECT_EQ((*prepared)->Draft(kPrompt, 4).value(), (*fresh)->Draft(kPrompt, 4).value());
}

TEST(PromptLookupDrafterTest, ContinuesTheLatestEarlierOccurrence) {
  runtime::PromptLookupDrafter d(2, 3);
  // "... 5 6 7 8 ... 5 6 9 ... 5 6" -> the latest "5 6" was followed by 9.
  const std::vector<int32_t> context = {1, 5, 6, 7, 8, 2, 5, 6, 9, 3, 5, 6};
  EXPECT_EQ(*d.Draft(context, 3), (std::vector<int32_t>{9, 3, 5}));
  // A longer match wins: "7 5 6" occurred once, followed by 1.
  const std::vector<int32_t> longer = {7, 5, 6, 1, 2, 5, 6, 4, 7, 5, 6};
  EXPECT_EQ(*d.Draft(longer, 2), (std::vector<int32_t>{1, 2}));
  EXPECT_TRUE(d.Draft(std::vector<int32_t>{1, 2, 3, 4}, 4)->empty());  // nothing repeats
  // By default a match needs 3 tokens: two ("5 6") happen by chance in free
  // text, and a wrong draft costs a row of the check.
  runtime::PromptLookupDrafter by_default;
  EXPECT_TRUE(by_default.Draft(context, 3)->empty());
  EXPECT_EQ(*by_default.Draft(longer, 2), (std::vector<int32_t>{1, 2}));
}

}  // namespace
}  // namespace trit::testing
