// `trit embed` end to end: usage errors without a model; with the real
// all-MiniLM-L6-v2 (when TRIT_HF_MINILM_DIR is set) the text, --json,
// --file and --output forms agree bit for bit, and the vectors are
// sentence-transformers' (tests/data/minilm/reference_vectors.json).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/run_trit.h"
#include "formats/npy/npy_file.h"

namespace trit::testing {
namespace {

namespace fs = std::filesystem;

const std::string kStories = std::string(TRIT_SOURCE_DIR) + "/models/stories260K.gguf";

TEST(EmbedCommand, UsageErrorsNameTheFlag) {
  RunResult r = RunTrit({"embed", kStories});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("nothing to embed"), std::string::npos) << r.err;
  r = RunTrit({"embed", kStories, "hi", "--pooling", "max"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--pooling 'max': expected mean, cls or last"), std::string::npos) << r.err;
  r = RunTrit({"embed", kStories, "--file", "/nonexistent/lines.txt"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--file /nonexistent/lines.txt: cannot open it"), std::string::npos) << r.err;
}

TEST(EmbedCommand, ATextGenerationModelIsRefusedByName) {
  const RunResult r = RunTrit({"embed", kStories, "hello"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("'llama' generates text; embeddings come from an embedding model"), std::string::npos) << r.err;
  const RunResult pinned = RunTrit({"embed", kStories, "hello", "--engine", "nope"});
  EXPECT_EQ(pinned.exit_code, 2) << pinned.err;
}

#ifdef TRIT_HF_MINILM_DIR
class EmbedMiniLm : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("trit-embed");
    model_ = dir_ + "/minilm.gguf";
    const RunResult c = RunTrit({"convert", TRIT_HF_MINILM_DIR, model_, "--type", "f32", "-q"});
    ASSERT_EQ(c.exit_code, 0) << c.err;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_, model_;
};

TEST_F(EmbedMiniLm, TextJsonFileAndNpyAgreeAndMatchTheReference) {
  std::ifstream in(std::string(TRIT_SOURCE_DIR) + "/tests/data/minilm/reference_vectors.json");
  const nlohmann::json ref = nlohmann::json::parse(in);
  const std::vector<std::string> inputs = {ref["inputs"][0], ref["inputs"][3], ref["inputs"][10]};  // short, long, ""
  const std::vector<size_t> at = {0, 3, 10};
  std::vector<std::string> args = {"embed", model_, "--normalize", "--json"};
  args.insert(args.end(), inputs.begin(), inputs.end());
  const RunResult j = RunTrit(args);
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const nlohmann::json out = nlohmann::json::parse(j.out);
  EXPECT_EQ(out["dimension"], 384);
  EXPECT_EQ(out["pooling"], "mean");
  EXPECT_EQ(out["normalized"], true);
  ASSERT_EQ(out["data"].size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(out["data"][i]["tokens"], ref["token_ids"][at[i]].size());
    for (size_t k = 0; k < 384; ++k) {
      EXPECT_NEAR(out["data"][i]["embedding"][k].get<double>(), ref["vectors"][at[i]][k].get<double>(), 1e-4);
    }
  }
  EXPECT_NE(j.err.find("embedded 3 inputs"), std::string::npos) << j.err;

  // The same inputs from a file (one per line; the empty line is an input), to .npy.
  const std::string lines = dir_ + "/lines.txt", npy = dir_ + "/v.npy";
  std::ofstream(lines) << inputs[0] << "\n" << inputs[1] << "\n" << inputs[2] << "\n";
  const RunResult f = RunTrit({"embed", model_, "--file", lines, "--normalize", "--output", npy, "-q", "-t", "1"});
  ASSERT_EQ(f.exit_code, 0) << f.err;
  EXPECT_TRUE(f.out.empty()) << f.out;
  Expected<npy::Array> a = npy::ReadArrayFile(npy);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_EQ(a->header.shape, (std::vector<int64_t>{3, 384}));
  for (size_t i = 0; i < 3; ++i) {
    for (size_t k = 0; k < 384; ++k) {
      // JSON prints the shortest text of each float: it reads back as the same float.
      EXPECT_EQ(static_cast<float>(a->values[i * 384 + k]), out["data"][i]["embedding"][k].get<float>()) << i << " " << k;
    }
  }
  // Standard input, and the text form's line per input.
  const RunResult s = RunTritWithInput({"embed", model_, "--file", "-"}, "Hello world\n");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_NE(s.out.find("\"Hello world\""), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("4 tokens"), std::string::npos) << s.out;
  EXPECT_NE(s.err.find("not normalized"), std::string::npos) << s.err;
}

TEST_F(EmbedMiniLm, TooLongAnInputIsRefusedNotCut) {
  std::string text;
  for (int i = 0; i < 600; ++i) text += "word ";
  const RunResult r = RunTrit({"embed", model_, "short", text});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("input 1 (\"word word"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("602 tokens, the model takes at most 512"), std::string::npos) << r.err;
  const RunResult run = RunTrit({"run", model_, "hello"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_NE(run.err.find("'bert' is an embedding model"), std::string::npos) << run.err;
}
#endif

}  // namespace
}  // namespace trit::testing
