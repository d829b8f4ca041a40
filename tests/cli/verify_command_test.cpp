// `trit verify` run as a user would: batch invariance end to end, the same
// logits hash for every chunk size and thread count, and refusals.
#include <gtest/gtest.h>

#include <sstream>
#include <nlohmann/json.hpp>

#include "cli/run_trit.h"
#include "test_paths.h"

namespace trit::testing {
namespace {

// BOS and the first 40 ids of the greedy chain of the bundled model.
const char* kIds =
    "1 403 407 261 378 432 383 286 261 376 298 315 421 395 317 426 338 401 396 267 337 410 408 419 292 411 322 "
    "265 282 295 433 426 385 328 432 358 394 261 370 432 352";

nlohmann::json VerifyJson(std::vector<std::string> extra) {
  std::vector<std::string> args = {"verify", BundledModelPath(), "--ids", kIds, "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  RunResult r = RunTrit(args, 120);
  EXPECT_FALSE(r.signaled);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(VerifyCommandTest, SameLogitsForEveryChunkAndThreadCount) {
  const nlohmann::json full = VerifyJson({});
  ASSERT_EQ(full["argmax"].size(), 41u);
  EXPECT_EQ(full["identical"], 41);
  EXPECT_EQ(full["differing"], 0);
  const std::string hash = full["logits_sha256"];
  EXPECT_EQ(hash.size(), 64u);
  // Every row's argmax is the next id of the greedy chain.
  std::vector<int> ids;
  for (std::istringstream in(kIds); !in.eof();) {
    int id;
    in >> id;
    ids.push_back(id);
  }
  for (size_t i = 0; i + 1 < ids.size(); ++i) EXPECT_EQ(full["argmax"][i], ids[i + 1]) << i;
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"--chunk", "1"}, {"--chunk", "3"}, {"--threads", "1"}, {"--threads", "2"},
        {"--chunk", "3", "--threads", "2"}}) {
    const nlohmann::json j = VerifyJson(extra);
    EXPECT_EQ(j["differing"], 0) << extra[0] << " " << extra[1];
    EXPECT_EQ(j["identical"], 41);
    EXPECT_EQ(j["logits_sha256"], hash) << extra[0] << " " << extra[1];
    EXPECT_EQ(j["argmax"], full["argmax"]);
  }
  // A different cache type gives different logits: the hash is not a constant.
  EXPECT_NE(VerifyJson({"--kv", "f32"})["logits_sha256"], hash);
}

TEST(VerifyCommandTest, TextOutputAndDefaultModel) {
  // No MODEL: the bundled one is found beside the binary's build directory.
  RunResult r = RunTrit({"verify", "--ids", "1 403 407", "--chunk", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("argmax 403 407 261\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rows M=3 identical=3 differing=0\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("logits_sha256 "), std::string::npos);
}

TEST(VerifyCommandTest, TopLogitsAreSortedAndMatchArgmax) {
  const nlohmann::json j = VerifyJson({"--top", "5"});
  ASSERT_EQ(j["top"].size(), 41u);
  for (size_t i = 0; i < 41; ++i) {
    ASSERT_EQ(j["top"][i].size(), 5u);
    EXPECT_EQ(j["top"][i][0][0], j["argmax"][i]);
    for (size_t k = 1; k < 5; ++k) EXPECT_GE(j["top"][i][k - 1][1].get<float>(), j["top"][i][k][1].get<float>());
  }
}

TEST(VerifyCommandTest, RefusalsNameTheProblem) {
  RunResult bad = RunTrit({"verify", BundledModelPath(), "--ids", "1 2 x3"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--ids: 'x3' (item 3) is not a token id"), std::string::npos) << bad.err;
  RunResult range = RunTrit({"verify", BundledModelPath(), "--ids", "1 512"});
  EXPECT_EQ(range.exit_code, 1);
  EXPECT_NE(range.err.find("--ids: id 512 (item 2) is out of range, expected 0..511"), std::string::npos) << range.err;
  RunResult missing = RunTrit({"verify", "/nonexistent/m.gguf", "--ids", "1"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("/nonexistent/m.gguf"), std::string::npos) << missing.err;
  RunResult threads = RunTrit({"verify", "--ids", "1", "--threads", "0"});
  EXPECT_EQ(threads.exit_code, 2);
}

}  // namespace
}  // namespace trit::testing
