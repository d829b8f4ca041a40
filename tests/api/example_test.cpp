// The C examples (examples/c), built against include/trit/trit.h and linked
// with libtrit.so, run as a user would: their output equals trit's own.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cli/run_trit.h"
#include "test_paths.h"

namespace trit::testing {
namespace {

RunResult RunExample(const char* binary, const std::vector<std::string>& args) {
  SpawnOptions spawn;
  spawn.binary = binary;
  return RunProgram(spawn, args, 120);
}

TEST(ApiCExampleTest, GenerateMatchesTritRunGreedy) {
  for (const auto& [prompt, n] : std::vector<std::pair<std::string, std::string>>{{"", "20"}, {"Once upon a time", "40"}}) {
    const RunResult want = RunTrit({"run", BundledModelPath(), prompt, "-n", n, "--temp", "0", "--raw"});
    ASSERT_EQ(want.exit_code, 0) << want.err;
    const RunResult got = RunExample(TRIT_EXAMPLE_GENERATE, {BundledModelPath(), prompt, n});
    ASSERT_FALSE(got.signaled) << got.err;
    ASSERT_EQ(got.exit_code, 0) << got.err;
    EXPECT_EQ(got.out, want.out) << prompt;
    EXPECT_FALSE(got.out.empty());
    EXPECT_NE(got.err.find("llama on cpu"), std::string::npos) << got.err;
  }
}

TEST(ApiCExampleTest, GenerateReportsTheMissingFile) {
  const RunResult r = RunExample(TRIT_EXAMPLE_GENERATE, {"/nonexistent/model.gguf", "hi"});
  ASSERT_FALSE(r.signaled);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("/nonexistent/model.gguf"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(RunExample(TRIT_EXAMPLE_GENERATE, {}).exit_code, 2);
  EXPECT_EQ(RunExample(TRIT_EXAMPLE_GENERATE, {BundledModelPath(), "x", "-3"}).exit_code, 2);
}

TEST(ApiCExampleTest, TokenizeMatchesTritTokenize) {
  const RunResult want = RunTrit({"tokenize", BundledModelPath(), "Once upon a time", "--json"});
  ASSERT_EQ(want.exit_code, 0) << want.err;
  std::string ids = "ids";
  const nlohmann::json parsed = nlohmann::json::parse(want.out);  // kept: a range over a temporary's member dangles
  for (int id : parsed["ids"]) ids += " " + std::to_string(id);
  const RunResult got = RunExample(TRIT_EXAMPLE_TOKENIZE, {BundledModelPath(), "Once upon a time"});
  ASSERT_EQ(got.exit_code, 0) << got.err;
  EXPECT_NE(got.out.find(ids + "\n"), std::string::npos) << got.out;
  EXPECT_NE(got.out.find("architecture llama, 512 tokens"), std::string::npos) << got.out;
  EXPECT_NE(got.out.find("1 '<s>'\n"), std::string::npos) << got.out;
  EXPECT_NE(got.out.find("text 'Once upon a time'\n"), std::string::npos) << got.out;
}

}  // namespace
}  // namespace trit::testing
