// End to end on the tiny decoder checkpoints of tests/data/hf/ (Gemma 4's in
// gemma4/checkpoint, with tokens added past its embedding's 400 rows): the file
// `trit convert` writes loads in trit's runtime and runs a forward pass, and
// the tokenizer built from its tokenizer.ggml.* keys gives the ids Hugging
// Face's tokenizer gives for the same directory (expected_ids.json, made by
// make_expected_ids.py with transformers' AutoTokenizer), but for the
// cases whose "trit" entry says why trit, as llama.cpp, differs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "convert/hf_to_gguf.h"
#include "model/model.h"
#include "runtime/session.h"
#include "tokenizer/tokenizer.h"

namespace trit::convert {
namespace {

using Json = nlohmann::json;

std::string DataDir(const std::string& arch) { return std::string(TRIT_SOURCE_DIR) + "/tests/data/hf/" + arch; }

class HfConvertDecodersRunTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    std::string name = GetParam();
    std::replace(name.begin(), name.end(), '/', '_');
    out_ = ::testing::TempDir() + "hf_decoder_run_" + name + "_" + std::to_string(getpid()) + ".gguf";
    Expected<HfConvertReport> report = ConvertHfToGguf(DataDir(GetParam()), out_, {});
    ASSERT_TRUE(report.ok()) << report.status().message();
  }
  void TearDown() override { std::remove(out_.c_str()); }
  std::string out_;
};

// Random weights: any tokens will do, but every logit must be a number and
// the rows must differ (the tokens and positions reached the output).
TEST_P(HfConvertDecodersRunTest, ConvertedFileLoadsAndRunsAForwardPass) {
  Expected<std::unique_ptr<model::Model>> m = model::LoadModel(out_);
  ASSERT_TRUE(m.ok()) << m.status().message();
  Expected<std::unique_ptr<runtime::Session>> session = runtime::Session::Create(**m, {.n_ctx = 16});
  ASSERT_TRUE(session.ok()) << session.status().message();
  const std::vector<int32_t> ids = {2, 300, 301, 302};
  Expected<runtime::Logits> logits = (*session)->Verify(ids);
  ASSERT_TRUE(logits.ok()) << logits.status().message();
  ASSERT_EQ(logits->n_rows, 4);
  ASSERT_EQ(logits->n_vocab, 400);
  for (float v : logits->values) ASSERT_TRUE(std::isfinite(v));
  EXPECT_NE(std::vector<float>(logits->Row(0).begin(), logits->Row(0).end()),
            std::vector<float>(logits->Row(3).begin(), logits->Row(3).end()));
}

// EncodeOptions as Hugging Face's encode(): its special tokens added
// (add_special_tokens=True) and added tokens in the text recognised.
TEST_P(HfConvertDecodersRunTest, TokenizerGivesHuggingFacesIds) {
  Expected<std::unique_ptr<tokenizer::Tokenizer>> tok = tokenizer::Tokenizer::FromGgufPath(out_);
  ASSERT_TRUE(tok.ok()) << tok.status().message();
  std::ifstream in(DataDir(GetParam()) + "/expected_ids.json");
  ASSERT_TRUE(in) << "no expected_ids.json for " << GetParam();
  const Json expected = Json::parse(in);
  ASSERT_FALSE(expected["cases"].empty());
  for (const Json& c : expected["cases"]) {
    const std::string text = c["text"].get<std::string>();
    const std::vector<tokenizer::TokenId> ids =
        (*tok)->Encode(text, {.add_special = true, .parse_special = true});
    // A known difference from Hugging Face carries the ids trit gives and why.
    const Json& want = c.contains("trit") ? c["trit"]["ids"] : c["ids"];
    EXPECT_EQ(Json(ids), want) << GetParam() << ": " << Json(text).dump();
    if (c.contains("trit")) {
      EXPECT_NE(want, c["ids"]) << GetParam() << ": " << Json(text).dump() << " now matches Hugging Face";
      std::printf("%s: %s differs from Hugging Face: %s\n", GetParam(), Json(text).dump().c_str(),
                  c["trit"]["why"].get<std::string>().c_str());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Archs, HfConvertDecodersRunTest, ::testing::Values("llama", "qwen2", "qwen3", "gemma3",
                                                                          "gemma4/checkpoint", "gemma4/checkpoint-vl",
                                                                          "qwen3moe/checkpoint", "gpt_oss/checkpoint",
                                                                          "gpt_oss/checkpoint-mxfp4"));

}  // namespace
}  // namespace trit::convert
