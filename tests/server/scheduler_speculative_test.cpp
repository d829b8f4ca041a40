// Speculative decoding in the server's slots: with prompt lookup or a draft
// model, concurrent requests (speculative and opted out, greedy and sampled,
// constrained, stopped by strings, by the context) get the answers of a
// scheduler that never drafts, bit for bit: text, logprobs, finish, counts.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "collect_answer.h"
#include "convert/quantize_file.h"
#include "grammar/gbnf.h"
#include "runtime/draft_model.h"
#include "server/scheduler.h"
#include "test_paths.h"

namespace trit::server {
namespace {

namespace fs = std::filesystem;

// A counter of /metrics, e.g. "trit_speculative_accepted_tokens_total".
// (No std::regex: GCC 12 warns inside it under the sanitizers.)
uint64_t Counter(const Metrics& metrics, const std::string& name) {
  const std::string text = metrics.Render({});
  const size_t at = text.find("\n" + name + " ");
  EXPECT_NE(at, std::string::npos) << name;
  if (at == std::string::npos) return 0;
  return std::stoull(text.substr(at + name.size() + 2));
}

struct Request {
  std::string prompt;
  GenerationParams params;
};

// The bundled story model: its greedy stories repeat names and phrases
// (prompt lookup finds them) and a q4_0 copy of it guesses 2 of 3 tokens.
class SchedulerSpeculativeTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    Expected<std::unique_ptr<ServedModel>> m = LoadServedModel(testing::BundledModelPath());
    ASSERT_TRUE(m.ok()) << m.status().message();
    model_ = std::move(m).value().release();
    const std::string path = (fs::temp_directory_path() / ("trit-draft-" + std::to_string(::getpid()) + ".gguf")).string();
    Expected<std::vector<convert::TensorPlan>> q =
        convert::QuantizeFile(*model_->file, *quant::FindTypeByName("q4_0"), path, {});
    ASSERT_TRUE(q.ok()) << q.status().message();
    Expected<std::unique_ptr<model::Model>> d = runtime::LoadDraftModel(path, model_->tokenizer->vocab());
    ASSERT_TRUE(d.ok()) << d.status().message();
    draft_ = std::move(d).value().release();
    fs::remove(path);  // mapped: stays readable while open
  }
  static void TearDownTestSuite() {
    delete draft_;
    delete model_;
  }

  // Requests of every kind the scheduler handles, sent at once.
  static std::vector<Request> Requests(bool opt_out_some) {
    std::vector<Request> out;
    const char* prompts[] = {"Once upon a time", "Lily and Ben went to the park. Lily and Ben", "The cat sat",
                             "One day, a little girl named Lily"};
    for (int i = 0; i < 8; ++i) {
      Request r;
      r.prompt = prompts[i % 4];
      r.params.sampling.temperature = i < 4 ? 0.0f : 0.8f;
      r.params.sampling.seed = 100 + static_cast<uint64_t>(i);
      r.params.max_tokens = 40 + 10 * i;
      r.params.top_logprobs = i % 3 == 0 ? 2 : -1;
      r.params.ignore_eos = i % 2 == 0;
      if (i == 5) r.params.sampling.repeat_penalty = 1.3f;
      if (i == 6) r.params.stop = {"park"};
      r.params.speculative = !(opt_out_some && i % 4 == 1);
      out.push_back(std::move(r));
    }
    auto g = grammar::ParseGbnf(R"(root ::= "Lily " ("and " | "saw ")+ "a big " [a-z]+ ".")");
    EXPECT_TRUE(g.ok()) << g.status().message();
    Request constrained;
    constrained.prompt = "Once upon a time";
    constrained.params.sampling.temperature = 0.9f;
    constrained.params.sampling.seed = 3;
    constrained.params.max_tokens = 60;
    constrained.params.grammar = *g;
    out.push_back(std::move(constrained));
    return out;
  }

  static std::vector<Answer> Run(const SchedulerOptions& options, const std::vector<Request>& requests,
                                 Metrics* metrics) {
    Expected<std::unique_ptr<Scheduler>> s = Scheduler::Create(*model_, options, metrics);
    EXPECT_TRUE(s.ok()) << s.status().message();
    if (!s.ok()) return {};
    std::vector<std::shared_ptr<RequestChannel>> channels;
    for (const Request& r : requests) {
      Submission sub = (*s)->Submit(
          model_->tokenizer->Encode(r.prompt, {.add_special = true, .parse_special = false}), r.params);
      EXPECT_EQ(sub.result, SubmitResult::kAccepted) << sub.message;
      channels.push_back(sub.channel);
    }
    std::vector<Answer> answers;
    for (auto& c : channels) answers.push_back(Collect(*c));
    return answers;
  }

  static void ExpectSame(const std::vector<Answer>& got, const std::vector<Answer>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].text, want[i].text) << what << ", request " << i;
      EXPECT_EQ(got[i].logprobs, want[i].logprobs) << what << ", request " << i;
      EXPECT_EQ(got[i].finish, want[i].finish) << what << ", request " << i;
      EXPECT_EQ(got[i].n_generated, want[i].n_generated) << what << ", request " << i;
    }
  }

  static ServedModel* model_;
  static model::Model* draft_;
};

ServedModel* SchedulerSpeculativeTest::model_ = nullptr;
model::Model* SchedulerSpeculativeTest::draft_ = nullptr;

TEST_F(SchedulerSpeculativeTest, ConcurrentSpeculativeAndPlainRequestsGetThePlainAnswers) {
  const SchedulerOptions plain{.n_slots = 4, .n_ctx = 256, .n_threads = 2};
  Metrics plain_metrics;
  const std::vector<Answer> want = Run(plain, Requests(false), &plain_metrics);
  EXPECT_EQ(Counter(plain_metrics, "trit_speculative_drafted_tokens_total"), 0u);

  SchedulerOptions lookup = plain;
  lookup.spec_lookup = true;
  SchedulerOptions draft = plain;
  draft.draft_model = draft_;
  draft.draft_max = 5;
  for (const auto& [options, name] : {std::pair{lookup, "lookup"}, std::pair{draft, "draft model"}}) {
    for (bool opt_out : {false, true}) {
      Metrics metrics;
      ExpectSame(Run(options, Requests(opt_out), &metrics), want, std::string(name) + (opt_out ? ", some opted out" : ""));
      const uint64_t drafted = Counter(metrics, "trit_speculative_drafted_tokens_total");
      const uint64_t accepted = Counter(metrics, "trit_speculative_accepted_tokens_total");
      EXPECT_GT(accepted, 10u) << name;  // speculation ran, and was right at times
      EXPECT_LT(accepted, drafted) << name;  // and wrong at others
      EXPECT_GT(Counter(metrics, "trit_speculative_passes_total"), 0u);
    }
  }
}

TEST_F(SchedulerSpeculativeTest, ARequestThatOptsOutDraftsNothing) {
  SchedulerOptions options{.n_slots = 2, .n_ctx = 256, .n_threads = 1};
  options.spec_lookup = true;
  Request r;
  r.prompt = "Lily and Ben went to the park. Lily and Ben went to the park. Lily and Ben";
  r.params.sampling.temperature = 0.0f;
  r.params.max_tokens = 40;
  r.params.speculative = false;
  Metrics off;
  const std::vector<Answer> a = Run(options, {r}, &off);
  EXPECT_EQ(Counter(off, "trit_speculative_drafted_tokens_total"), 0u);
  r.params.speculative = true;
  Metrics on;
  ExpectSame(Run(options, {r}, &on), a, "opted in");
  EXPECT_GT(Counter(on, "trit_speculative_drafted_tokens_total"), 0u);
}

TEST_F(SchedulerSpeculativeTest, AContextThatFillsUpEndsWhereItEndsWithoutDrafts) {
  // 64 tokens of context: every answer runs into it, some with drafts that
  // would not fit.
  std::vector<Request> requests;
  for (int i = 0; i < 3; ++i) {
    Request r;
    r.prompt = i == 0 ? "Once upon a time" : "Lily and Ben went to the park. Lily and Ben";
    r.params.sampling.temperature = i == 2 ? 0.7f : 0.0f;
    r.params.sampling.seed = 9;
    r.params.ignore_eos = true;
    requests.push_back(r);
  }
  Metrics m0, m1, m2;
  const std::vector<Answer> want = Run({.n_slots = 3, .n_ctx = 64, .n_threads = 2}, requests, &m0);
  for (const Answer& a : want) EXPECT_EQ(a.finish, FinishReason::kLength);
  SchedulerOptions lookup{.n_slots = 3, .n_ctx = 64, .n_threads = 2};
  lookup.spec_lookup = true;
  ExpectSame(Run(lookup, requests, &m1), want, "lookup");
  SchedulerOptions draft{.n_slots = 3, .n_ctx = 64, .n_threads = 2};
  draft.draft_model = draft_;
  ExpectSame(Run(draft, requests, &m2), want, "draft model");
}

TEST_F(SchedulerSpeculativeTest, RefusesTwoDraftersAndNoDraftLength) {
  Metrics metrics;
  SchedulerOptions both{.n_slots = 1, .n_ctx = 64};
  both.spec_lookup = true;
  both.draft_model = draft_;
  EXPECT_EQ(Scheduler::Create(*model_, both, &metrics).status().code(), ErrorCode::kInvalidArgument);
  SchedulerOptions zero{.n_slots = 1, .n_ctx = 64};
  zero.spec_lookup = true;
  zero.draft_max = 0;
  EXPECT_EQ(Scheduler::Create(*model_, zero, &metrics).status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace trit::server
