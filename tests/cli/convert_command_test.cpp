// `trit convert`, run as a user would: exit codes, messages naming what is
// wrong, nothing left at the output path on failure; and, when configured
// with TRIT_HF_MINILM_DIR, the real all-MiniLM-L6-v2 converted with --json.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/run_trit.h"
#include "formats/gguf/reader.h"

namespace trit::testing {
namespace {

namespace fs = std::filesystem;

class ConvertCommandTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("trit-convert"); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

TEST_F(ConvertCommandTest, NotADirectoryIsAUsageError) {
  RunResult r = RunTrit({"convert", dir_ + "/missing", dir_ + "/out.gguf"});
  ASSERT_FALSE(r.signaled);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is not a directory"), std::string::npos) << r.err;
}

TEST_F(ConvertCommandTest, UnsupportedArchitectureAndTypeAreNamed) {
  std::ofstream(dir_ + "/config.json") << R"({"architectures": ["MistralForCausalLM"], "model_type": "mistral"})";
  RunResult r = RunTrit({"convert", dir_, dir_ + "/out.gguf"});
  ASSERT_FALSE(r.signaled);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("architecture 'MistralForCausalLM' is not one trit converts yet; supported: BertModel, "
                       "BertForMaskedLM, LlamaForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM, Qwen3MoeForCausalLM, "
                       "Gemma3ForCausalLM"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir_ + "/out.gguf"));
  for (const char* type : {"q4_0", "f64", "x"}) {
    r = RunTrit({"convert", dir_, dir_ + "/out.gguf", "--type", type});
    EXPECT_EQ(r.exit_code, 2) << type;
    EXPECT_NE(r.err.find(std::string("--type '") + type + "': trit convert writes f32, f16, bf16 or q8_0"),
              std::string::npos)
        << r.err;
  }
}

#ifdef TRIT_HF_MINILM_DIR
TEST_F(ConvertCommandTest, MiniLmConvertsWithAJsonReport) {
  const std::string out = dir_ + "/minilm.gguf";
  RunResult r = RunTrit({"convert", TRIT_HF_MINILM_DIR, out, "--type", "q8_0", "--json"});
  ASSERT_FALSE(r.signaled);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json report = nlohmann::json::parse(r.out);
  EXPECT_EQ(report["type"], "q8_0");
  size_t n_q8_0 = 0;
  for (const auto& t : report["tensors"]) n_q8_0 += t["type"] == "q8_0";
  EXPECT_EQ(n_q8_0, 37u);  // token_embd + 6 layers x 6 matrices: every row is 384 or 1536 values
  EXPECT_EQ(report["architecture"], "bert");
  EXPECT_EQ(report["pooling"], "mean");
  EXPECT_EQ(report["tensors"].size(), 101u);
  EXPECT_EQ(report["dropped"].size(), 3u);
  Expected<gguf::File> f = gguf::File::Open(out);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(report["output_bytes"], f->file_size());
  // Only the output is left in the directory: the temporary file was renamed.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()), 1);
}
#endif

}  // namespace
}  // namespace trit::testing
