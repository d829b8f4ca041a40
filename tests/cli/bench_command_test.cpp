// `trit bench` run as a user would on the bundled model, with tiny sizes:
// the JSON report's fields and their sanity, the text report, and refusals.
// Never asserts a time. A 64 MiB bandwidth buffer keeps each run about a
// second on a loaded machine (the default reads 512 MiB to 2 GiB).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/run_trit.h"
#include "test_paths.h"

namespace trit::testing {
namespace {

TEST(BenchCommandTest, JsonReportHasEveryFieldAndSaneValues) {
  RunResult r = RunTrit({"bench", BundledModelPath(), "-p", "7", "-n", "3", "-r", "2", "-t", "2", "--json",
                            "--bandwidth-mib", "64"}, 120);
  ASSERT_FALSE(r.signaled);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["model"], BundledModelPath());
  EXPECT_EQ(j["type"], "f32");
  EXPECT_EQ(j["threads"], 2);
  EXPECT_EQ(j["pp"]["tokens"], 7);
  EXPECT_EQ(j["tg"]["tokens"], 3);
  EXPECT_EQ(j["repetitions"], 2);
  for (const char* phase : {"pp", "tg"}) {
    EXPECT_GT(j[phase]["tps"].get<double>(), 0.0) << phase;
    EXPECT_GE(j[phase]["sd"].get<double>(), 0.0) << phase;
  }
  // f32 weights of the bundled model, all but 511 of the 512 embedding rows.
  const uint64_t model_bytes = j["model_bytes"];
  const uint64_t per_token = j["bytes_per_token"];
  EXPECT_GT(per_token, 0u);
  EXPECT_LT(per_token, model_bytes);
  EXPECT_GT(j["bandwidth_gbs"].get<double>(), 0.0);
  EXPECT_GT(j["roofline_fraction"].get<double>(), 0.0);
  // Probed before and after each repetition's generation: the median lies
  // in the range, and decode's GB/s is tg x bytes per token.
  ASSERT_EQ(j["bandwidth_probes_gbs"].size(), 4u);
  EXPECT_LE(j["bandwidth_min_gbs"].get<double>(), j["bandwidth_gbs"].get<double>());
  EXPECT_LE(j["bandwidth_gbs"].get<double>(), j["bandwidth_max_gbs"].get<double>());
  EXPECT_NEAR(j["decode_gbs"].get<double>(), j["tg"]["tps"].get<double>() * static_cast<double>(per_token) / 1e9,
              1e-9 * j["decode_gbs"].get<double>());
  EXPECT_TRUE(j["sampling"].is_null());
  EXPECT_GT(j["peak_rss_bytes"].get<uint64_t>(), 0u);
  // K and V, f16, 5 layers x 10 tokens x kv_dim 32.
  EXPECT_EQ(j["kv_cache_bytes"], 2 * 5 * 10 * 32 * 2);
  // Progress went to stderr, not into the JSON.
  EXPECT_NE(r.err.find("bench: warm-up"), std::string::npos) << r.err;
}

TEST(BenchCommandTest, SamplingUsesTheRunDefaultsAndItsFlags) {
  RunResult r = RunTrit({"bench", BundledModelPath(), "-p", "4", "-n", "8", "-r", "1", "-t", "2", "--json",
                         "--bandwidth-mib", "64", "--sampling"},
                        120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_FLOAT_EQ(j["sampling"]["temperature"].get<float>(), 0.8f);
  EXPECT_EQ(j["sampling"]["top_k"], 40);
  EXPECT_FLOAT_EQ(j["sampling"]["top_p"].get<float>(), 0.95f);
  EXPECT_FLOAT_EQ(j["sampling"]["min_p"].get<float>(), 0.05f);
  EXPECT_EQ(j["sampling"]["seed"], 42);
  EXPECT_GT(j["tg"]["tps"].get<double>(), 0.0);
  EXPECT_NE(r.err.find("generation, 8 tokens, sampled"), std::string::npos) << r.err;
  r = RunTrit({"bench", BundledModelPath(), "-p", "4", "-n", "4", "-r", "1", "--json", "--bandwidth-mib", "64",
               "--sampling", "--top-k", "0", "--top-p", "1", "--min-p", "0", "--seed", "7"},
              120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["sampling"]["top_k"], 0);
  EXPECT_EQ(j["sampling"]["seed"], 7);
  r = RunTrit({"bench", BundledModelPath(), "--sampling", "--top-p", "0"}, 60);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("top_p is 0, expected (0, 1]"), std::string::npos) << r.err;
}

TEST(BenchCommandTest, TextReport) {
  RunResult r =
      RunTrit({"bench", BundledModelPath(), "-p", "4", "-n", "2", "-r", "1", "-t", "1", "--bandwidth-mib", "64"}, 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* s : {"pp 4", "tg 2", "tokens/s", "roofline", "peak RSS", "threads    1", "GB/s of weights",
                        "2 probes, before and after each generation"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  }
}

TEST(BenchCommandTest, BadFlagsAreUsageErrors) {
  const std::string m = BundledModelPath();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"bench", m, "-p", "0"}, "--prompt-tokens: Value 0 not in range"},
      {{"bench", m, "-n", "-3"}, "--gen-tokens: Value -3 not in range"},
      {{"bench", m, "-r", "0"}, "--repetitions"},
      {{"bench", m, "-t", "0"}, "--threads"},
      {{"bench", m, "-t", "two"}, "--threads"},
      {{"bench", m, "--bogus"}, "--bogus"},
      {{"bench", m, "--bandwidth-mib", "0"}, "--bandwidth-mib"},
      {{"bench"}, "model"},
      {{"bench", m, "--engine", "nosuch"}, "--engine nosuch"},
      {{"bench", m, "-p", "2000", "-n", "100"},
       "-p 2000 + -n 100 = 2100 tokens do not fit the model's context length 2048"},
  };
  for (const auto& [args, expected] : cases) {
    RunResult r = RunTrit(args, 60);
    EXPECT_EQ(r.exit_code, 2) << args.back() << "\n" << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << expected << "\n" << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST(BenchCommandTest, MissingModelFails) {
  RunResult r = RunTrit({"bench", "/nonexistent/model.gguf"}, 60);
  EXPECT_EQ(r.exit_code, 1) << r.err;  // neither a file, a URL nor a store name: the resolver names it
  EXPECT_NE(r.err.find("/nonexistent/model.gguf"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace trit::testing
