// A pack directory is served as a model: its id is the directory's name, the
// built-in pack engine runs it, and a request gets the answer the pack's
// weights file gets when served itself, bit for bit.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "collect_answer.h"
#include "server/scheduler.h"
#include "server/served_model.h"
#include "test_paths.h"

namespace trit::server {
namespace {

namespace fs = std::filesystem;

Answer GreedyAnswer(const ServedModel& m) {
  Metrics metrics;
  Expected<std::unique_ptr<Scheduler>> s = Scheduler::Create(m, {.n_slots = 1, .n_ctx = 64, .n_threads = 2}, &metrics);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return {};
  GenerationParams p;
  p.sampling.temperature = 0.0f;
  p.max_tokens = 12;
  p.ignore_eos = true;
  p.top_logprobs = 1;
  Submission sub = (*s)->Submit(m.tokenizer->Encode("Once upon a time", {.add_special = true, .parse_special = false}), p);
  EXPECT_EQ(sub.result, SubmitResult::kAccepted);
  if (sub.result != SubmitResult::kAccepted) return {};
  return Collect(*sub.channel);
}

TEST(ServedPackTest, APackIsServedAsItsWeights) {
  const fs::path pack = fs::temp_directory_path() / ("trit-served-pack-" + std::to_string(::getpid())) / "story-pack";
  fs::remove_all(pack.parent_path());
  fs::create_directories(pack);
  std::ofstream(pack / "plan.json") << R"({"format":"trit-pack","version":1,"model":"m.gguf","device":"xdna2","ops":[]})";
  fs::create_symlink(testing::BundledModelPath(), pack / "m.gguf");

  Expected<std::unique_ptr<ServedModel>> packed = LoadServedModel(pack.string() + "/");
  ASSERT_TRUE(packed.ok()) << packed.status().message();
  Expected<std::unique_ptr<ServedModel>> plain = LoadServedModel(testing::BundledModelPath());
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ((*packed)->id, "story-pack");
  EXPECT_EQ((*packed)->engine->info().name, "pack");
  EXPECT_EQ((*plain)->engine->info().name, "cpu");

  const Answer want = GreedyAnswer(**plain);
  const Answer got = GreedyAnswer(**packed);
  EXPECT_EQ(got.n_generated, 12);
  EXPECT_FALSE(got.text.empty());
  EXPECT_EQ(got.text, want.text);
  EXPECT_EQ(got.logprobs, want.logprobs);
  fs::remove_all(pack.parent_path());
}

}  // namespace
}  // namespace trit::server
