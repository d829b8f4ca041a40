// `trit tokenize` and `trit detokenize`, run as a user would.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/run_trit.h"
#include "test_paths.h"

namespace trit::testing {
namespace {

std::string VocabPath(const std::string& name) { return SourcePath("tests/data/vocab/" + name); }

TEST(TokenizeCommandTest, BosByDefaultNotWithRaw) {
  RunResult with_bos = RunTrit({"tokenize", BundledModelPath(), "Once upon a time"});
  ASSERT_EQ(with_bos.exit_code, 0) << with_bos.err;
  RunResult raw = RunTrit({"tokenize", BundledModelPath(), "Once upon a time", "--raw"});
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  EXPECT_EQ(with_bos.out, "1 " + raw.out);  // the bundled vocabulary's BOS is 1
  EXPECT_FALSE(raw.out.empty());
}

TEST(TokenizeCommandTest, ReferenceIdsForLlamaVocabulary) {
  // From tests/data/vocab/ggml-vocab-llama-spm.gguf.out ("Hello world", " Hello world").
  EXPECT_EQ(RunTrit({"tokenize", VocabPath("ggml-vocab-llama-spm.gguf"), "Hello world", "--raw"}).out, "15043 3186\n");
  EXPECT_EQ(RunTrit({"tokenize", VocabPath("ggml-vocab-llama-spm.gguf"), " Hello world", "--raw"}).out,
            "29871 15043 3186\n");
}

TEST(TokenizeCommandTest, JsonHasIdsAndPiecesAndRoundTrips) {
  // (No space before "?!.,": gpt-2 decoding removes it, as llama.cpp clean_spaces does.)
  const std::string text = "Hello, y'all! How are you \xf0\x9f\x98\x81";
  RunResult r = RunTrit({"tokenize", VocabPath("ggml-vocab-gpt-2.gguf"), text, "--raw", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["ids"].size(), j["pieces"].size());
  std::string ids;
  for (const auto& id : j["ids"]) ids += std::to_string(id.get<int>()) + " ";
  RunResult back = RunTrit({"detokenize", VocabPath("ggml-vocab-gpt-2.gguf"), ids, "--no-newline"});
  ASSERT_EQ(back.exit_code, 0) << back.err;
  EXPECT_EQ(back.out, text);
}

TEST(TokenizeCommandTest, StdinIsReadByteForByte) {
  const std::string text = "line one\n\n  line two\t\n";
  RunResult from_stdin = RunTritWithInput({"tokenize", BundledModelPath(), "--stdin", "--raw"}, text);
  RunResult from_arg = RunTrit({"tokenize", BundledModelPath(), text, "--raw"});
  ASSERT_EQ(from_stdin.exit_code, 0) << from_stdin.err;
  EXPECT_EQ(from_stdin.out, from_arg.out);
}

TEST(TokenizeCommandTest, SpecialTokensOnlyWhenAsked) {
  RunResult plain = RunTrit({"tokenize", BundledModelPath(), "<s>", "--raw"});
  RunResult special = RunTrit({"tokenize", BundledModelPath(), "<s>", "--parse-special"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(special.exit_code, 0) << special.err;
  EXPECT_NE(plain.out, "1\n");        // "<s>" spelled out as text
  EXPECT_EQ(special.out, "1 1\n");    // BOS added, then "<s>" recognised as BOS
}

TEST(TokenizeCommandTest, BadUsageAndBadIds) {
  EXPECT_EQ(RunTrit({"tokenize", BundledModelPath()}).exit_code, 2);                      // no text
  EXPECT_EQ(RunTrit({"tokenize", BundledModelPath(), "x", "--stdin"}).exit_code, 2);      // both
  EXPECT_EQ(RunTrit({"detokenize", BundledModelPath(), "12", "abc"}).exit_code, 2);      // not an id
  RunResult out_of_range = RunTrit({"detokenize", BundledModelPath(), "512"});
  EXPECT_EQ(out_of_range.exit_code, 1);
  EXPECT_NE(out_of_range.err.find("512"), std::string::npos) << out_of_range.err;
  RunResult no_vocab = RunTrit({"tokenize", "/nonexistent.gguf", "x"});
  EXPECT_EQ(no_vocab.exit_code, 1);
}

}  // namespace
}  // namespace trit::testing
