#include "server/scheduler.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "collect_answer.h"
#include "grammar/matcher.h"

namespace trit::server {
namespace {

namespace fs = std::filesystem;

// The chat model of the server tests, written once per test program.
const ServedModel& TestModel() {
  static std::unique_ptr<ServedModel> model = [] {
    const std::string path = (fs::temp_directory_path() / ("trit-sched-" + std::to_string(::getpid()) + ".gguf")).string();
    const std::string cmd = std::string(TRIT_MAKE_CHAT_MODEL) + " " + path + " " + TRIT_SOURCE_DIR +
                            "/tests/data/vocab/ggml-vocab-llama-spm.gguf " + TRIT_SOURCE_DIR +
                            "/tests/data/chat_templates/HuggingFaceH4-zephyr-7b-beta.jinja";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    Expected<std::unique_ptr<ServedModel>> m = LoadServedModel(path);
    EXPECT_TRUE(m.ok()) << m.status().message();
    fs::remove(path);  // mapped: stays readable while open
    return std::move(m).value();
  }();
  return *model;
}

GenerationParams Params(uint64_t seed, int64_t max_tokens) {
  GenerationParams p;
  p.sampling.temperature = 1.0f;
  p.sampling.seed = seed;
  p.max_tokens = max_tokens;
  p.ignore_eos = true;
  p.top_logprobs = 2;
  return p;
}

std::vector<int32_t> Prompt(const ServedModel& m, const std::string& text) {
  return m.tokenizer->Encode(text, {.add_special = true, .parse_special = false});
}

TEST(SchedulerTest, SameSeedSameAnswerAloneOrBesideSevenOthers) {
  const ServedModel& m = TestModel();
  Metrics metrics;
  Expected<std::unique_ptr<Scheduler>> s = Scheduler::Create(m, {.n_slots = 8, .n_ctx = 256, .n_threads = 2}, &metrics);
  ASSERT_TRUE(s.ok()) << s.status().message();
  Submission alone = (*s)->Submit(Prompt(m, "The quick brown fox"), Params(7, 12));
  ASSERT_EQ(alone.result, SubmitResult::kAccepted);
  const Answer reference = Collect(*alone.channel);
  EXPECT_EQ(reference.n_generated, 12);
  EXPECT_EQ(reference.finish, FinishReason::kLength);

  // The same request beside seven others of other lengths, started a few
  // steps apart so that it joins a batch already running.
  std::vector<std::shared_ptr<RequestChannel>> others;
  for (int i = 0; i < 7; ++i) {
    Submission o = (*s)->Submit(Prompt(m, "Other prompt number " + std::to_string(i) + " is longer"), Params(100 + i, 14 + i));
    ASSERT_EQ(o.result, SubmitResult::kAccepted);
    others.push_back(o.channel);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  Submission again = (*s)->Submit(Prompt(m, "The quick brown fox"), Params(7, 12));
  ASSERT_EQ(again.result, SubmitResult::kAccepted);
  const Answer batched = Collect(*again.channel);
  for (auto& o : others) EXPECT_EQ(Collect(*o).finish, FinishReason::kLength);
  EXPECT_EQ(batched.text, reference.text);
  EXPECT_EQ(batched.logprobs, reference.logprobs);  // bit for bit
}

// A grammar-constrained request: its answer is a sentence of the grammar, it
// ends (stop) as soon as the grammar allows nothing more, and it is the same
// alone or beside unconstrained requests.
TEST(SchedulerTest, ConstrainedAnswersParseAndAreTheSameAloneOrBatched) {
  const ServedModel& m = TestModel();
  Metrics metrics;
  Expected<std::unique_ptr<Scheduler>> s = Scheduler::Create(m, {.n_slots = 4, .n_ctx = 256, .n_threads = 2}, &metrics);
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto g = grammar::ParseGbnf(R"(root ::= "{\"n\":" [1-9] [0-9]{0,3} ",\"ok\":" ("true" | "false") "}")");
  ASSERT_TRUE(g.ok()) << g.status().message();
  const auto constrained = [&](uint64_t seed) {
    GenerationParams p = Params(seed, 100);
    p.ignore_eos = false;
    p.grammar = *g;
    p.logit_bias = {{5, 3.0f}};
    return p;
  };
  std::vector<Answer> alone;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    Submission sub = (*s)->Submit(Prompt(m, "Answer in JSON:"), constrained(seed));
    ASSERT_EQ(sub.result, SubmitResult::kAccepted);
    alone.push_back(Collect(*sub.channel));
    EXPECT_EQ(alone.back().finish, FinishReason::kStop);
    EXPECT_TRUE(grammar::Matches(*g, alone.back().text)) << alone.back().text;
  }
  std::vector<std::shared_ptr<RequestChannel>> others, again;
  for (int i = 0; i < 2; ++i) others.push_back((*s)->Submit(Prompt(m, "Other " + std::to_string(i)), Params(50 + i, 30)).channel);
  for (uint64_t seed = 1; seed <= 3; ++seed) again.push_back((*s)->Submit(Prompt(m, "Answer in JSON:"), constrained(seed)).channel);
  for (size_t i = 0; i < again.size(); ++i) {
    const Answer a = Collect(*again[i]);
    EXPECT_EQ(a.text, alone[i].text);
    EXPECT_EQ(a.logprobs, alone[i].logprobs);
  }
  for (auto& o : others) EXPECT_EQ(Collect(*o).finish, FinishReason::kLength);
}

// Prompt reuse: a conversation resending its history, turn after turn, and a
// second conversation sharing its start, give the same bits with reuse on
// and off; with reuse on, the resent history comes from the cache.
TEST(SchedulerTest, PromptReuseChangesNothingButTheWork) {
  const ServedModel& m = TestModel();
  struct Turn {
    Answer answer;
    std::vector<int32_t> prompt;
  };
  const auto converse = [&](bool reuse) {
    Metrics metrics;
    auto s = Scheduler::Create(m, {.n_slots = 3, .n_ctx = 512, .n_threads = 2, .reuse_prompts = reuse}, &metrics);
    EXPECT_TRUE(s.ok());
    std::vector<Turn> turns;
    std::vector<int32_t> history = Prompt(m, "A conversation about the sea.");
    for (int turn = 0; turn < 4; ++turn) {
      const std::vector<int32_t> user = m.tokenizer->Encode(" Question " + std::to_string(turn) + "?", {.add_special = false});
      history.insert(history.end(), user.begin(), user.end());
      // Another client's request between turns, sharing the conversation's start.
      std::vector<int32_t> other(history.begin(), history.begin() + 5);
      other.push_back(100 + turn);
      Submission o = (*s)->Submit(other, Params(900 + turn, 6));
      Submission sub = (*s)->Submit(history, Params(10 + turn, 12));
      EXPECT_EQ(sub.result, SubmitResult::kAccepted);
      Turn t{Collect(*sub.channel), history};
      const Answer oa = Collect(*o.channel);
      EXPECT_EQ(oa.n_generated, 6);
      // The answer's tokens join the history, as a client resends them.
      const std::vector<int32_t> said = m.tokenizer->Encode(t.answer.text, {.add_special = false});
      history.insert(history.end(), said.begin(), said.end());
      turns.push_back(std::move(t));
    }
    return turns;
  };
  const std::vector<Turn> off = converse(false);
  const std::vector<Turn> on = converse(true);
  ASSERT_EQ(on.size(), off.size());
  for (size_t i = 0; i < on.size(); ++i) {
    EXPECT_EQ(on[i].answer.text, off[i].answer.text) << "turn " << i;
    EXPECT_EQ(on[i].answer.logprobs, off[i].answer.logprobs) << "turn " << i;  // bit for bit
    EXPECT_EQ(off[i].answer.n_cached, 0);
    if (i > 0) {
      // At least the previous turn's prompt came from the cache.
      EXPECT_GE(on[i].answer.n_cached, static_cast<int64_t>(on[i - 1].prompt.size()) - 1) << "turn " << i;
      EXPECT_LT(on[i].answer.n_cached, static_cast<int64_t>(on[i].prompt.size()));
    }
  }
}

// n requests with one prompt at once: the later ones copy the prompt's cache
// from the first slot that has it and answer as they would alone.
TEST(SchedulerTest, ASharedPromptIsCopiedBetweenSlots) {
  const ServedModel& m = TestModel();
  Metrics metrics;
  auto s = Scheduler::Create(m, {.n_slots = 3, .n_ctx = 256, .n_threads = 2}, &metrics);
  ASSERT_TRUE(s.ok());
  std::vector<int32_t> prompt = Prompt(m, "One prompt, three answers: the shared prefix is long enough to matter here.");
  Submission first = (*s)->Submit(prompt, Params(1, 8));
  const Answer a1 = Collect(*first.channel);
  EXPECT_EQ(a1.n_cached, 0);
  // While slot 0 holds the prompt, two more with other seeds take other
  // slots (slot 0 is reused by the first of them; the second copies).
  Submission keep_busy = (*s)->Submit(prompt, Params(2, 40));
  Submission copied = (*s)->Submit(prompt, Params(3, 8));
  const Answer a3 = Collect(*copied.channel);
  EXPECT_EQ(a3.n_cached, static_cast<int64_t>(prompt.size()) - 1);
  EXPECT_EQ(Collect(*keep_busy.channel).n_cached, static_cast<int64_t>(prompt.size()) - 1);
  Metrics metrics2;
  auto fresh = Scheduler::Create(m, {.n_slots = 1, .n_ctx = 256, .n_threads = 1, .reuse_prompts = false}, &metrics2);
  ASSERT_TRUE(fresh.ok());
  const Answer alone = Collect(*(*fresh)->Submit(prompt, Params(3, 8)).channel);
  EXPECT_EQ(a3.text, alone.text);
  EXPECT_EQ(a3.logprobs, alone.logprobs);
}

TEST(SchedulerTest, QueueFullAndCancellationFreesTheSlot) {
  const ServedModel& m = TestModel();
  Metrics metrics;
  Expected<std::unique_ptr<Scheduler>> s =
      Scheduler::Create(m, {.n_slots = 1, .n_ctx = 2048, .n_threads = 1, .max_queue = 1}, &metrics);
  ASSERT_TRUE(s.ok());
  Submission running = (*s)->Submit(Prompt(m, "a"), Params(1, -1));  // until the context is full
  Submission waiting = (*s)->Submit(Prompt(m, "b"), Params(2, 4));
  ASSERT_EQ(running.result, SubmitResult::kAccepted);
  ASSERT_EQ(waiting.result, SubmitResult::kAccepted);
  EXPECT_EQ((*s)->Submit(Prompt(m, "c"), Params(3, 4)).result, SubmitResult::kQueueFull);
  running.channel->Cancel();
  EXPECT_EQ(Collect(*running.channel).finish, FinishReason::kCancelled);
  EXPECT_EQ(Collect(*waiting.channel).n_generated, 4);
}

TEST(SchedulerTest, AQueuedRequestWhoseClientLeftHoldsNoPlace) {
  const ServedModel& m = TestModel();
  Metrics metrics;
  Expected<std::unique_ptr<Scheduler>> s =
      Scheduler::Create(m, {.n_slots = 1, .n_ctx = 2048, .n_threads = 1, .max_queue = 1}, &metrics);
  ASSERT_TRUE(s.ok());
  Submission running = (*s)->Submit(Prompt(m, "a"), Params(1, -1));  // until the context is full
  ASSERT_FALSE(running.channel->Wait(std::chrono::seconds(30)).empty());  // it holds the slot
  Submission left = (*s)->Submit(Prompt(m, "b"), Params(2, 4));
  ASSERT_EQ(left.result, SubmitResult::kAccepted);
  EXPECT_EQ((*s)->Submit(Prompt(m, "x"), Params(4, 4)).result, SubmitResult::kQueueFull);
  left.channel->Cancel();
  // The place is free at once for the next request, while the slot is still busy.
  Submission next = (*s)->Submit(Prompt(m, "c"), Params(3, 4));
  EXPECT_EQ(next.result, SubmitResult::kAccepted);
  EXPECT_EQ(Collect(*left.channel).finish, FinishReason::kCancelled);
  running.channel->Cancel();
  EXPECT_EQ(Collect(*next.channel).n_generated, 4);
}

TEST(SchedulerTest, AClientWithManyRequestsCannotStarveOneWithOne) {
  const ServedModel& m = TestModel();
  Metrics metrics;
  Expected<std::unique_ptr<Scheduler>> s =
      Scheduler::Create(m, {.n_slots = 1, .n_ctx = 2048, .n_threads = 1, .max_queue = 3}, &metrics);
  ASSERT_TRUE(s.ok());
  // Client "busy" takes the slot and fills the queue.
  Submission running = (*s)->Submit(Prompt(m, "a"), Params(1, -1), "", "busy");
  ASSERT_EQ(running.result, SubmitResult::kAccepted);
  // It holds the slot (a request cancelled while still queued is dropped
  // unserved, and "busy" must have been served for the order below).
  ASSERT_FALSE(running.channel->Wait(std::chrono::seconds(30)).empty());
  std::vector<Submission> queued;
  for (uint64_t seed = 2; seed <= 4; ++seed) {
    queued.push_back((*s)->Submit(Prompt(m, "b"), Params(seed, 200), "", "busy"));
    ASSERT_EQ(queued.back().result, SubmitResult::kAccepted);
  }
  EXPECT_EQ((*s)->Submit(Prompt(m, "c"), Params(9, 2), "", "busy").result, SubmitResult::kQueueFull);

  // Client "one" still gets in: busy's newest queued request gives way.
  Submission one = (*s)->Submit(Prompt(m, "d"), Params(5, 2), "", "one");
  ASSERT_EQ(one.result, SubmitResult::kAccepted);
  const Answer displaced = Collect(*queued.back().channel);
  EXPECT_EQ(displaced.finish, FinishReason::kDisplaced);
  EXPECT_EQ(displaced.n_generated, 0);
  // A second request of "one" does not displace anything more: it has one queued.
  EXPECT_EQ((*s)->Submit(Prompt(m, "e"), Params(6, 2), "", "one").result, SubmitResult::kQueueFull);

  // When the slot frees, "one" goes before busy's older requests: neither
  // holds a slot then, and busy was served last.
  running.channel->Cancel();
  EXPECT_EQ(Collect(*running.channel).finish, FinishReason::kCancelled);
  EXPECT_EQ(Collect(*one.channel).n_generated, 2);
  // Busy's oldest queued request (200 tokens) had not run before it: had it
  // gone first, it would be finished by now.
  bool finished_before = false;
  for (const Event& e : queued[0].channel->Wait(std::chrono::milliseconds(0))) finished_before |= e.done;
  EXPECT_FALSE(finished_before);
  if (!finished_before) {
    EXPECT_EQ(Collect(*queued[0].channel).n_generated, 200);
  }
  EXPECT_EQ(Collect(*queued[1].channel).n_generated, 200);
}

TEST(SchedulerTest, RefusesEmptyAndTooLongPrompts) {
  const ServedModel& m = TestModel();
  Metrics metrics;
  Expected<std::unique_ptr<Scheduler>> s = Scheduler::Create(m, {.n_slots = 1, .n_ctx = 8}, &metrics);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->Submit({}, Params(1, 1)).result, SubmitResult::kInvalid);
  EXPECT_EQ((*s)->Submit(std::vector<int32_t>(9, 5), Params(1, 1)).result, SubmitResult::kInvalid);
  // A prompt that fills the context still gets its one token.
  Submission full = (*s)->Submit(std::vector<int32_t>(8, 5), Params(1, 10));
  ASSERT_EQ(full.result, SubmitResult::kAccepted);
  const Answer a = Collect(*full.channel);
  EXPECT_EQ(a.n_generated, 1);
  EXPECT_EQ(a.finish, FinishReason::kLength);
}

TEST(SchedulerTest, StopsWhenAsked) {
  const ServedModel& m = TestModel();
  Metrics metrics;
  Expected<std::unique_ptr<Scheduler>> s = Scheduler::Create(m, {.n_slots = 2, .n_ctx = 128}, &metrics);
  ASSERT_TRUE(s.ok());
  (*s)->Stop();
  EXPECT_FALSE((*s)->running());
  EXPECT_EQ((*s)->Submit(Prompt(m, "x"), Params(1, 1)).result, SubmitResult::kShuttingDown);
}

}  // namespace
}  // namespace trit::server
