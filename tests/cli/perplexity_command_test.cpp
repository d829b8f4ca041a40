// `trit perplexity` run as a user would, on the bundled model and a short
// story: the figures, the base file written and read back, a base written by
// llama.cpp's own llama-perplexity, and refusals that lose nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/run_trit.h"
#include "test_paths.h"

namespace trit::testing {
namespace {

std::string Story() { return SourcePath("tests/data/text/little_story.txt"); }

nlohmann::json PerplexityJson(std::vector<std::string> args) {
  args.insert(args.begin(), "perplexity");
  args.push_back("--json");
  RunResult r = RunTrit(args, 120);
  EXPECT_FALSE(r.signaled);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out.empty() ? "{}" : r.out);
}

class PerplexityCommandTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("trit-perplexity-test"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // The names in the test's directory (a temporary file left behind shows here).
  std::vector<std::string> Files() const {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir_)) names.push_back(e.path().filename().string());
    return names;
  }
  std::string dir_;
};

TEST_F(PerplexityCommandTest, ScoresTheSecondHalfOfEveryChunk) {
  const nlohmann::json j = PerplexityJson({BundledModelPath(), Story(), "--ctx", "64", "--threads", "2"});
  const int64_t tokens = j["text_tokens"];
  EXPECT_GT(tokens, 600);
  EXPECT_EQ(j["n_ctx"], 64);
  EXPECT_EQ(j["chunks"], tokens / 64);
  EXPECT_EQ(j["scored_tokens"], (tokens / 64) * 31);  // rows 32..62 of each chunk
  const double ppl = j["ppl"];
  EXPECT_GT(ppl, 1.5);
  EXPECT_LT(ppl, 50.0);
  EXPECT_GT(j["ppl_error"].get<double>(), 0.0);
  ASSERT_EQ(j["running_ppl"].size(), j["chunks"].get<size_t>());
  EXPECT_EQ(j["running_ppl"].back().get<double>(), ppl);
  EXPECT_FALSE(j.contains("kl_divergence"));

  // One thread and passes of 7 rows: the same figure, bit for bit.
  const nlohmann::json again = PerplexityJson({BundledModelPath(), Story(), "--ctx", "64", "--threads", "1", "--batch", "7"});
  EXPECT_EQ(again["running_ppl"], j["running_ppl"]);
}

TEST_F(PerplexityCommandTest, TextOutputAsLlamaPerplexityPrintsIt) {
  RunResult r = RunTrit({"perplexity", BundledModelPath(), Story(), "--ctx", "128", "--chunks", "2"}, 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("[1]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[2]"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("[3]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Final estimate: PPL = "), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("chunk 2/2"), std::string::npos) << r.err;  // progress goes to stderr
}

TEST_F(PerplexityCommandTest, SavedLogitsAreABaseForTheSameAndTheOtherEngine) {
  const std::string base = dir_ + "/base.kld";
  const nlohmann::json saved = PerplexityJson({BundledModelPath(), Story(), "--ctx", "64", "--save-logits", base});
  ASSERT_TRUE(std::filesystem::exists(base));
  EXPECT_EQ(Files(), std::vector<std::string>{"base.kld"});  // no temporary file left
  const int64_t chunks = saved["chunks"];
  // llama.cpp's layout: header, tokens, 31 records of 2 * 256 + 4 uint16 per chunk.
  EXPECT_EQ(static_cast<int64_t>(std::filesystem::file_size(base)), 20 + 4 * 64 * chunks + 2 * chunks * 31 * 516);

  const nlohmann::json self = PerplexityJson({BundledModelPath(), "--kld-base", base});
  ASSERT_TRUE(self.contains("kl_divergence")) << self.dump();
  const nlohmann::json& k = self["kl_divergence"];
  EXPECT_EQ(self["chunks"], chunks);
  EXPECT_LT(std::fabs(k["kld"]["mean"].get<double>()), 1e-5);
  EXPECT_EQ(k["same_top"]["value"], 1.0);
  EXPECT_NEAR(k["ppl_base"]["value"].get<double>(), saved["ppl"].get<double>(), 1e-3);

  // The float-activation engine against the int8 one: close, not identical.
  const nlohmann::json ref = PerplexityJson({BundledModelPath(), "--kld-base", base, "--engine", "reference"});
  ASSERT_EQ(ref["engine"], "reference");
  const double kld = ref["kl_divergence"]["kld"]["mean"];
  EXPECT_GT(kld, 1e-7);
  EXPECT_LT(kld, 0.01);
}

// A base written by llama.cpp's llama-perplexity on the bundled model (see
// tests/data/text/README.md): trit reads llama.cpp's file, and its logits
// are close to llama.cpp's.
TEST_F(PerplexityCommandTest, ReadsLlamaCppsBaseFile) {
  const nlohmann::json j =
      PerplexityJson({BundledModelPath(), "--kld-base", SourcePath("tests/data/text/little_story-stories260K-ctx64.kld")});
  ASSERT_TRUE(j.contains("kl_divergence")) << j.dump();
  const nlohmann::json& k = j["kl_divergence"];
  EXPECT_EQ(j["n_ctx"], 64);
  // llama-perplexity printed "Final estimate: PPL = 3.5283 +/- 0.31706" for this text and context.
  EXPECT_NEAR(k["ppl_base"]["value"].get<double>(), 3.5283, 0.002);
  EXPECT_NEAR(j["ppl"].get<double>(), 3.5283, 0.02);
  EXPECT_LT(k["kld"]["mean"].get<double>(), 0.001);
  EXPECT_GE(k["same_top"]["value"].get<double>(), 0.95);
}

TEST_F(PerplexityCommandTest, RefusesBadRequestsAndLeavesNoFile) {
  RunResult r = RunTrit({"perplexity", BundledModelPath()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("give a text file"), std::string::npos) << r.err;

  const std::string base = dir_ + "/base.kld";
  r = RunTrit({"perplexity", BundledModelPath(), Story(), "--save-logits", base, "--kld-base", Story()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("choose one"), std::string::npos) << r.err;

  // Too short for the context: named, and no base file (nor a partial one) left behind.
  r = RunTrit({"perplexity", BundledModelPath(), Story(), "--ctx", "512", "--save-logits", base}, 60);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("needs at least 1024"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(base));
  EXPECT_TRUE(Files().empty());

  r = RunTrit({"perplexity", BundledModelPath(), dir_ + "/missing.txt"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("missing.txt"), std::string::npos) << r.err;

  // A base file cut short.
  ASSERT_EQ(RunTrit({"perplexity", BundledModelPath(), Story(), "--ctx", "64", "--save-logits", base}, 60).exit_code, 0);
  std::filesystem::resize_file(base, std::filesystem::file_size(base) - 100);
  r = RunTrit({"perplexity", BundledModelPath(), "--kld-base", base});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("base.kld"), std::string::npos) << r.err;
  EXPECT_FALSE(r.signaled);

  // Not a logits file at all.
  r = RunTrit({"perplexity", BundledModelPath(), "--kld-base", Story()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("little_story.txt"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace trit::testing
