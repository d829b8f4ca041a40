// `trit run`, run as a user would: the bundled model reproduces its
// published and reference outputs exactly, sampling is reproducible, and
// the chat loop reads turns from standard input.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "cli/run_trit.h"
#include "test_paths.h"

namespace trit::testing {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(RunCommandTest, GreedyFromBosPrintsLlama2cPublishedOutput) {
  RunResult r = RunTrit({"run", BundledModelPath(), "", "-n", "200", "--temp", "0", "--raw"});
  ASSERT_FALSE(r.signaled);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, ReadFile(SourcePath("tests/data/reference/expected_greedy_llama2c_steps200.txt")));
  EXPECT_TRUE(r.err.empty()) << r.err;  // stdout holds the text; nothing else is said without --verbose
}

TEST(RunCommandTest, ContinuationsMatchTheReference) {
  std::ifstream in(SourcePath("tests/data/reference/stories260K-continuations.json"));
  const nlohmann::json ref = nlohmann::json::parse(in);
  ASSERT_GE(ref.size(), 3u);
  for (const auto& c : ref) {
    const std::string n = std::to_string(c["n"].get<int>());
    RunResult r = RunTrit({"run", c["prompt"].get<std::string>(), "-n", n, "--temp", "0", "--raw"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, c["continuation"].get<std::string>()) << c["prompt"];
  }
}

TEST(RunCommandTest, SameSeedSameTokensWhateverTheThreads) {
  const std::vector<std::string> base = {"run", "Lily and Ben", "-n", "40", "--temp", "0.9", "--seed", "42"};
  std::vector<std::string> one = base, two = base;
  one.insert(one.end(), {"--threads", "1"});
  two.insert(two.end(), {"--threads", "2"});
  RunResult a = RunTrit(one), b = RunTrit(two), c = RunTrit(one);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_EQ(a.out, c.out);
  EXPECT_FALSE(a.out.empty());
  std::vector<std::string> other = base;
  other[7] = "43";
  EXPECT_NE(RunTrit(other).out, a.out);  // the seed matters
}

TEST(RunCommandTest, VerboseTimingsGoToStderr) {
  RunResult r = RunTrit({"run", "Once", "-n", "8", "--temp", "0", "--verbose"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("tok/s"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("tok/s"), std::string::npos);
}

TEST(RunCommandTest, ChatLoopReadsTurnsUntilBye) {
  RunResult r = RunTritWithInput({"run", "-n", "8", "--temp", "0"}, "Once upon\nThe cat \\\nsat\n/bye\nnever read\n");
  ASSERT_FALSE(r.signaled);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(">>> "), std::string::npos);
  EXPECT_NE(r.out.find("... "), std::string::npos);  // the continued line
  EXPECT_NE(r.out.find("Once upon"), std::string::npos);
  EXPECT_EQ(r.out.find("never read"), std::string::npos);
}

TEST(RunCommandTest, BadUsage) {
  EXPECT_EQ(RunTrit({"run", BundledModelPath(), "a", "b"}).exit_code, 2);            // too many arguments
  EXPECT_EQ(RunTrit({"run", "x", "--kv", "q8"}).exit_code, 2);                       // bad cache type
  EXPECT_EQ(RunTrit({"run", "x", "--top-p", "2"}).exit_code, 2);                     // out of range
  RunResult missing = RunTrit({"run", "/nonexistent/model.gguf", "hi"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("/nonexistent/model.gguf"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace trit::testing
