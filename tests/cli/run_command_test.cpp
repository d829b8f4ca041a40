// `trit run`, run as a user would: the bundled model reproduces its
// published and reference outputs exactly, sampling is reproducible, and
// the chat loop reads turns from standard input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "cli/run_trit.h"
#include "formats/gguf/reader.h"
#include "formats/gguf/writer.h"
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

// Speculative decoding changes nothing but the speed: the same text as
// plain decoding, greedy and sampled, drafted by prompt lookup or by a draft
// model (here the model itself), in one answer and in a chat of two turns.
TEST(RunCommandTest, SpeculativeDecodingGivesThePlainText) {
  for (const char* temp : {"0", "0.9"}) {
    const std::vector<std::string> base = {"run", "Once upon a time", "-n", "80", "--temp", temp, "--seed", "5"};
    const RunResult plain = RunTrit(base);
    ASSERT_EQ(plain.exit_code, 0) << plain.err;
    for (const std::vector<std::string>& spec :
         {std::vector<std::string>{"--spec", "lookup"}, {"--draft", BundledModelPath(), "--draft-max", "3"}}) {
      std::vector<std::string> args = base;
      args.insert(args.end(), spec.begin(), spec.end());
      args.push_back("--verbose");
      const RunResult r = RunTrit(args);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(r.out, plain.out) << spec[0] << " temp " << temp;
      EXPECT_NE(r.err.find("[speculative: "), std::string::npos) << r.err;
    }
  }
  const std::string turns = "Once upon\nThe cat sat\n/bye\n";
  const RunResult chat = RunTritWithInput({"run", "-n", "24", "--temp", "0.7", "--seed", "3"}, turns);
  const RunResult spec_chat =
      RunTritWithInput({"run", "-n", "24", "--temp", "0.7", "--seed", "3", "--spec", "lookup"}, turns);
  ASSERT_EQ(spec_chat.exit_code, 0) << spec_chat.err;
  EXPECT_EQ(spec_chat.out, chat.out);
}

TEST(RunCommandTest, ADraftModelOfAnotherVocabularyIsRefusedNamingTheToken) {
  // The chat test model's vocabulary (llama SentencePiece, 32000 tokens) is not the bundled model's (512).
  const std::string other = std::string(TRIT_SOURCE_DIR) + "/tests/data/vocab/ggml-vocab-llama-spm.gguf";
  RunResult r = RunTrit({"run", "Once", "-n", "4", "--draft", other});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("vocabulary differs from the model's at token"), std::string::npos) << r.err;
  EXPECT_EQ(RunTrit({"run", "Once", "--spec", "lookup", "--draft", BundledModelPath()}).exit_code, 2);
  EXPECT_EQ(RunTrit({"run", "Once", "--spec", "ngram"}).exit_code, 2);
}

// A chat template trit cannot run stops `trit run` with the template's error
// and the way around it; with --raw the same file answers.
TEST(RunCommandTest, ABrokenChatTemplateSaysHowToSkipIt) {
  const std::string dir = MakeTempDir("trit-run-template");
  const std::string path = dir + "/broken-template.gguf";
  Expected<gguf::File> f = gguf::File::Open(BundledModelPath());
  ASSERT_TRUE(f.ok()) << f.status().message();
  gguf::Writer w;
  for (const auto& e : f->metadata()) ASSERT_TRUE(w.SetMetadata(e.key, e.value).ok());
  ASSERT_TRUE(w.SetMetadata("tokenizer.chat_template", gguf::Value(std::string("{{ m.content }"))).ok());
  for (const auto& t : f->tensors()) ASSERT_TRUE(w.AddTensorData(t.name, t.type->type, t.shape, f->TensorData(t)).ok());
  ASSERT_TRUE(w.WriteFile(path).ok());

  RunResult r = RunTrit({"run", path, "Once", "-n", "4", "--temp", "0"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("chat template cannot be used"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--raw"), std::string::npos) << r.err;
  RunResult raw = RunTrit({"run", path, "Once", "-n", "4", "--temp", "0", "--raw"});
  EXPECT_EQ(raw.exit_code, 0) << raw.err;
  std::filesystem::remove_all(dir);
}

// --chat-template-kwargs are template variables: a template that appends
// one to the prompt gives the answer of that whole prompt given raw.
TEST(RunCommandTest, ChatTemplateKwargsReachTheTemplate) {
  const std::string dir = MakeTempDir("trit-run-kwargs");
  const std::string path = dir + "/kwargs-template.gguf";
  Expected<gguf::File> f = gguf::File::Open(BundledModelPath());
  ASSERT_TRUE(f.ok()) << f.status().message();
  gguf::Writer w;
  for (const auto& e : f->metadata()) ASSERT_TRUE(w.SetMetadata(e.key, e.value).ok());
  ASSERT_TRUE(w.SetMetadata("tokenizer.chat_template", gguf::Value(std::string("{{ messages[-1].content }}{{ tail }}"))).ok());
  for (const auto& t : f->tensors()) ASSERT_TRUE(w.AddTensorData(t.name, t.type->type, t.shape, f->TensorData(t)).ok());
  ASSERT_TRUE(w.WriteFile(path).ok());

  RunResult with = RunTrit({"run", path, "Once", "-n", "12", "--temp", "0", "--chat-template-kwargs", R"({"tail": " upon a"})"});
  ASSERT_EQ(with.exit_code, 0) << with.err;
  RunResult raw = RunTrit({"run", path, "Once upon a", "-n", "12", "--temp", "0", "--raw"});
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  EXPECT_EQ(with.out, raw.out);
  RunResult without = RunTrit({"run", path, "Once", "-n", "12", "--temp", "0"});
  ASSERT_EQ(without.exit_code, 0) << without.err;
  EXPECT_NE(without.out, with.out);

  // Refused before the model loads: not an object, not JSON, a name the
  // renderer sets; and with --raw there is no template to read them.
  for (const char* bad : {"[1]", "{\"tail\": ", R"({"messages": []})"}) {
    RunResult r = RunTrit({"run", path, "Once", "--chat-template-kwargs", bad});
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--chat-template-kwargs: chat_template_kwargs: "), std::string::npos) << r.err;
  }
  RunResult skipped = RunTrit({"run", path, "Once", "--raw", "--chat-template-kwargs", "{}"});
  EXPECT_EQ(skipped.exit_code, 2) << skipped.err;
  EXPECT_NE(skipped.err.find("no chat template"), std::string::npos) << skipped.err;
  std::filesystem::remove_all(dir);
}

// A hybrid recurrent model (qwen35, tests/data/hf/qwen35) through trit run
// with speculative decoding on: the text is the plain text. (This random
// model's guesses are rarely likely enough to be drafted; rolling the
// recurrent state back after a rejected draft is tested in
// tests/model/qwen35_test.cpp.)
// `trit run` with each kind of speculation gives the text it gives without.
void ExpectSpeculationGivesThePlainText(const std::string& relative_model) {
  const std::string model = SourcePath(relative_model);
  const std::vector<std::string> base = {"run", model, "ab ab ab ab", "-n", "40", "--temp", "0", "--raw"};
  RunResult plain = RunTrit(base);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_FALSE(plain.out.empty());
  // A q8_0 copy as the draft model, as a user would make one.
  const std::string dir = MakeTempDir("trit-run-spec");
  const std::string draft = dir + "/draft-q8_0.gguf";
  ASSERT_EQ(RunTrit({"quantize", model, draft, "q8_0"}).exit_code, 0);
  for (const std::vector<std::string>& spec :
       {std::vector<std::string>{"--spec", "lookup"}, std::vector<std::string>{"--draft", draft}}) {
    std::vector<std::string> args = base;
    args.insert(args.end(), spec.begin(), spec.end());
    RunResult r = RunTrit(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, plain.out) << spec[0];
  }
  std::filesystem::remove_all(dir);
}

TEST(RunCommandTest, Qwen35SpeculativeDecodingGivesThePlainText) {
  ExpectSpeculationGivesThePlainText("tests/data/hf/qwen35/qwen35-tiny-f32.gguf");
}

// Gemma 4's shared-KV layers read another layer's cache through every
// rejected draft and rollback.
TEST(RunCommandTest, Gemma4SpeculativeDecodingGivesThePlainText) {
  ExpectSpeculationGivesThePlainText("tests/data/hf/gemma4/gemma4-tiny-f32.gguf");
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
