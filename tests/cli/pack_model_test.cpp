// A pack is also a model: `trit run`, `verify`, `bench` and `perplexity` take
// a pack directory (plan.json beside the bundled model's weights) and, on the
// built-in pack engine (the host path), give what the weights file gives.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/run_trit.h"
#include "test_paths.h"

namespace trit::testing {
namespace {

namespace fs = std::filesystem;

class PackModelTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("trit-pack-model-test");
    pack_ = dir_ + "/story-pack";
    fs::create_directories(pack_);
    std::ofstream(pack_ + "/plan.json") << R"({"format":"trit-pack","version":1,"model":"m.gguf","device":"xdna2","ops":[]})";
    fs::create_symlink(BundledModelPath(), pack_ + "/m.gguf");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `trit ARGS...` with `model` first after the command; exit 0 expected.
  RunResult Run(const std::string& command, const std::string& model, std::vector<std::string> args,
                const std::string& input = "") {
    args.insert(args.begin(), {command, model});
    RunResult r = RunTritWithInput(args, input, 120);
    EXPECT_FALSE(r.signaled);
    EXPECT_EQ(r.exit_code, 0) << command << " " << model << ": " << r.err;
    return r;
  }

  std::string dir_;
  std::string pack_;
};

TEST_F(PackModelTest, RunGivesTheTextOfTheWeightsFile) {
  const std::vector<std::string> args = {"Once upon a time", "-n", "8", "--temp", "0", "--verbose"};
  const RunResult gguf = Run("run", BundledModelPath(), args);
  const RunResult pack = Run("run", pack_, args);
  EXPECT_FALSE(pack.out.empty());
  EXPECT_EQ(pack.out, gguf.out);
  EXPECT_NE(pack.err.find(pack_ + ": engine pack,"), std::string::npos) << pack.err;
}

// One argument that names a pack is the model (here: the chat loop on
// standard input), not a prompt for the bundled model.
TEST_F(PackModelTest, RunTakesALonePackAsTheModel) {
  const std::vector<std::string> args = {"-n", "8", "--temp", "0", "--verbose"};
  const RunResult gguf = Run("run", BundledModelPath(), args, "Once upon a time\n");
  const RunResult pack = Run("run", pack_, args, "Once upon a time\n");
  EXPECT_NE(pack.err.find(pack_ + ": engine pack,"), std::string::npos) << pack.err;
  EXPECT_FALSE(pack.out.empty());
  EXPECT_EQ(pack.out, gguf.out);
}

TEST_F(PackModelTest, VerifyRunsOnThePackEngineWithTheLogitsOfTheWeightsFile) {
  const std::vector<std::string> args = {"--ids", "1 403 407 261", "--chunk", "2", "--json"};
  const nlohmann::json gguf = nlohmann::json::parse(Run("verify", BundledModelPath(), args).out);
  const nlohmann::json pack = nlohmann::json::parse(Run("verify", pack_, args).out);
  EXPECT_EQ(gguf["engine"], "cpu");
  EXPECT_EQ(pack["engine"], "pack");
  EXPECT_EQ(pack["identical"], 4);
  EXPECT_EQ(pack["differing"], 0);
  EXPECT_EQ(pack["logits_sha256"], gguf["logits_sha256"]);
}

TEST_F(PackModelTest, BenchMeasuresThePackWeights) {
  const nlohmann::json j = nlohmann::json::parse(
      Run("bench", pack_, {"-p", "4", "-n", "2", "-r", "1", "-t", "2", "--json", "--bandwidth-mib", "64"}).out);
  EXPECT_EQ(j["engine"], "pack");
  EXPECT_EQ(j["type"], "f32");
  EXPECT_EQ(j["model_bytes"], fs::file_size(BundledModelPath()));
  EXPECT_GT(j["tg"]["tps"].get<double>(), 0.0);
}

TEST_F(PackModelTest, PerplexityOfThePackIsThatOfItsWeights) {
  const std::vector<std::string> args = {SourcePath("tests/data/text/little_story.txt"), "--ctx", "64", "--chunks", "2",
                                         "--json"};
  const nlohmann::json gguf = nlohmann::json::parse(Run("perplexity", BundledModelPath(), args).out);
  const nlohmann::json pack = nlohmann::json::parse(Run("perplexity", pack_, args).out);
  EXPECT_EQ(pack["engine"], "pack");
  EXPECT_EQ(pack["chunks"], 2);
  EXPECT_EQ(pack["running_ppl"], gguf["running_ppl"]);
}

TEST_F(PackModelTest, APlanNamingAMissingWeightsFileIsNamed) {
  fs::remove(pack_ + "/m.gguf");
  RunResult r = RunTrit({"run", pack_, "Once", "-n", "2"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("m.gguf"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("pack " + pack_), std::string::npos) << r.err;
}

}  // namespace
}  // namespace trit::testing
