// Every case of every vocabulary in tests/data/vocab gives exactly the
// reference ids (tokenize with no BOS/EOS and no special-token parsing), and
// decoding gives the text back where the model is lossless.
#include <gtest/gtest.h>

#include "formats/gguf/reader.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/vocab_test_data.h"

namespace trit::tokenizer {
namespace {

using testing::ReadVocabCases;
using testing::VocabCase;
using testing::VocabDataPath;

std::string IdsText(const std::vector<TokenId>& ids) {
  std::string s;
  for (TokenId id : ids) {
    s += ' ';
    s += std::to_string(id);
  }
  return s;
}

std::unique_ptr<Tokenizer> Load(const std::string& file_name) {
  Expected<gguf::File> file = gguf::File::Open(VocabDataPath(file_name));
  EXPECT_TRUE(file.ok()) << file.status().message();
  if (!file.ok()) return nullptr;
  Expected<std::unique_ptr<Tokenizer>> t = Tokenizer::FromGguf(*file);
  EXPECT_TRUE(t.ok()) << file_name << ": " << t.status().message();
  return t.ok() ? std::move(t).value() : nullptr;
}

class ConformanceTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ConformanceTest, EveryCaseGivesTheReferenceIds) {
  const std::string name = GetParam();
  std::unique_ptr<Tokenizer> tok = Load(name);
  ASSERT_NE(tok, nullptr);
  const std::vector<VocabCase> cases = ReadVocabCases(VocabDataPath(name + ".inp"), VocabDataPath(name + ".out"));
  ASSERT_EQ(cases.size(), 46u);
  int passed = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const std::vector<TokenId> ids = tok->Encode(cases[i].text, {.add_special = false, .parse_special = false});
    EXPECT_EQ(ids, cases[i].ids) << name << " case " << i << " '" << cases[i].text << "'\n  got     " << IdsText(ids)
                                 << "\n  expected" << IdsText(cases[i].ids);
    passed += ids == cases[i].ids;
  }
  RecordProperty("passed", passed);
}

std::vector<std::string> Names() { return testing::VocabFileNames(); }

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param.substr(std::string("ggml-vocab-").size());
  n = n.substr(0, n.size() - std::string(".gguf").size());
  for (char& c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(Vocab, ConformanceTest, ::testing::ValuesIn(Names()), TestName);

// llama2.c's own tokenizer tests: ids include BOS (add_special, Llama-2 vocab).
TEST(Llama2cConformanceTest, MatchesLlama2cWithBos) {
  std::unique_ptr<Tokenizer> tok = Load("ggml-vocab-llama-spm.gguf");
  ASSERT_NE(tok, nullptr);
  const std::vector<VocabCase> cases =
      ReadVocabCases(VocabDataPath("llama2-tokenizer-test-c.inp"), VocabDataPath("llama2-tokenizer-test-c.out"));
  ASSERT_EQ(cases.size(), 5u);
  for (const VocabCase& c : cases) {
    EXPECT_EQ(tok->Encode(c.text, {.add_special = true, .parse_special = false}), c.ids) << c.text;
  }
}

}  // namespace
}  // namespace trit::tokenizer
