// `trit show`, `--help`, `--version` and exit codes, run as a user would.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/run_trit.h"
#include "test_paths.h"

namespace trit::testing {
namespace {

TEST(ShowCommandTest, JsonDescribesBundledModel) {
  RunResult r = RunTrit({"show", BundledModelPath(), "--json"});
  ASSERT_FALSE(r.signaled);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["format"], "gguf");
  EXPECT_EQ(j["version"], 3);
  EXPECT_EQ(j["architecture"], "llama");
  EXPECT_EQ(j["file_bytes"], 1185376);
  EXPECT_EQ(j["tensor_count"], 48);
  EXPECT_EQ(j["context_length"], 2048);
  EXPECT_EQ(j["block_count"], 5);
  EXPECT_EQ(j["head_count"], 8);
  EXPECT_EQ(j["head_count_kv"], 4);
  EXPECT_EQ(j["tokenizer"]["model"], "llama");
  EXPECT_EQ(j["tokenizer"]["tokens"], 512);
  EXPECT_EQ(j["chat_template"], false);
  EXPECT_TRUE(j["experts"].is_null());  // dense
  EXPECT_EQ(j["types"]["f32"]["tensors"], 48);
  // Parameters: every element of every tensor (the model's name says 260K).
  uint64_t elements = 0;
  for (const auto& t : j["tensors"]) elements += t["elements"].get<uint64_t>();
  EXPECT_EQ(j["parameters"], elements);
  EXPECT_GT(elements, 250000u);
  EXPECT_LT(elements, 300000u);
  // Metadata: scalars as values, long arrays summarised by length.
  EXPECT_EQ(j["metadata"]["general.architecture"], "llama");
  EXPECT_EQ(j["metadata"]["llama.block_count"], 5);
  EXPECT_EQ(j["metadata"]["tokenizer.ggml.tokens"]["length"], 512);
  EXPECT_EQ(j["metadata"]["tokenizer.ggml.tokens"]["element_type"], "string");
  // Tensors: name, type, shape (row length first), offset, bytes.
  const nlohmann::json& first = j["tensors"][0];
  EXPECT_EQ(first["name"], "token_embd.weight");
  EXPECT_EQ(first["type"], "f32");
  EXPECT_EQ(first["shape"], nlohmann::json::array({64, 512}));
  EXPECT_EQ(first["offset"], 0);
  EXPECT_EQ(first["bytes"], 64 * 512 * 4);
}

TEST(ShowCommandTest, MaxArrayExpandsShortArrays) {
  RunResult r = RunTrit({"show", BundledModelPath(), "--json", "--max-array", "1000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j["metadata"]["tokenizer.ggml.tokens"].is_array());
  EXPECT_EQ(j["metadata"]["tokenizer.ggml.tokens"][1], "<s>");
}

TEST(ShowCommandTest, TextOutputNamesTheEssentials) {
  RunResult r = RunTrit({"show", BundledModelPath(), "--tensors"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* needle : {"GGUF v3", "architecture   llama", "context        2048", "layers         5",
                             "tokenizer      llama, 512 tokens", "chat template  no", "metadata (19 keys)",
                             "blk.4.ffn_down.weight"}) {
    EXPECT_NE(r.out.find(needle), std::string::npos) << "missing '" << needle << "' in:\n" << r.out;
  }
}

TEST(ShowCommandTest, MissingFileIsAFailureNamingThePath) {
  RunResult r = RunTrit({"show", "/nonexistent/model.gguf"});
  ASSERT_FALSE(r.signaled);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("/nonexistent/model.gguf"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(ShowCommandTest, BadUsageExitsTwo) {
  EXPECT_EQ(RunTrit({"show"}).exit_code, 2);                                      // missing FILE
  EXPECT_EQ(RunTrit({"show", BundledModelPath(), "--no-such-flag"}).exit_code, 2);  // unknown flag
  EXPECT_EQ(RunTrit({"no-such-command"}).exit_code, 2);
  EXPECT_EQ(RunTrit({}).exit_code, 2);  // a command is required
}

TEST(ShowCommandTest, HelpAndVersion) {
  RunResult help = RunTrit({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("show"), std::string::npos);
  EXPECT_NE(help.out.find("quantize"), std::string::npos);
  RunResult show_help = RunTrit({"show", "--help"});
  EXPECT_EQ(show_help.exit_code, 0);
  EXPECT_NE(show_help.out.find("--json"), std::string::npos);
  RunResult version = RunTrit({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("trit 0.", 0), 0u) << version.out;
}

}  // namespace
}  // namespace trit::testing
