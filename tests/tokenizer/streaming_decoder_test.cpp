// StreamingDecoder (src/tokenizer/streaming_decoder.cpp): for every
// vocabulary in tests/data/vocab that loads (and the bundled model), pushing
// the ids of every reference case one at a time gives, concatenated, exactly
// Decode() of all of them, and no output ends inside a UTF-8 character.
#include <gtest/gtest.h>

#include <random>

#include "formats/gguf/reader.h"
#include "test_paths.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/unicode.h"
#include "tokenizer/vocab_test_data.h"

namespace trit::tokenizer {
namespace {

struct Loaded {
  std::string name;
  std::unique_ptr<Tokenizer> tokenizer;
};

// Every vocabulary whose tokenizer exists so far; the rest are listed so a
// vocabulary that stops loading is visible in the log.
std::vector<Loaded> LoadAll() {
  std::vector<std::string> paths;
  for (const std::string& name : testing::VocabFileNames()) paths.push_back(testing::VocabDataPath(name));
  paths.push_back(testing::BundledModelPath());
  std::vector<Loaded> loaded;
  for (const std::string& path : paths) {
    Expected<gguf::File> file = gguf::File::Open(path);
    if (!file.ok()) continue;
    Expected<std::unique_ptr<Tokenizer>> t = Tokenizer::FromGguf(*file);
    if (!t.ok()) {
      std::printf("skipping %s: %s\n", path.c_str(), t.status().message().c_str());
      continue;
    }
    loaded.push_back({path, std::move(t).value()});
  }
  return loaded;
}

// For each byte offset of `text`: true when it falls strictly inside a
// well-formed multi-byte character (where no output may end).
std::vector<bool> InsideCharacter(std::string_view text) {
  std::vector<bool> inside(text.size() + 1, false);
  for (size_t pos = 0; pos < text.size();) {
    const size_t start = pos;
    unicode::DecodeUtf8(text, &pos);
    for (size_t k = start + 1; k < pos; ++k) inside[k] = true;
  }
  return inside;
}

// Streams `ids` and checks the result against Decode; returns the chunks.
std::vector<std::string> CheckStream(const Tokenizer& tok, const std::vector<TokenId>& ids, const DecodeOptions& opt,
                                     const std::string& what) {
  const std::string expected = tok.Decode(ids, opt);
  const std::vector<bool> inside = InsideCharacter(expected);
  StreamingDecoder decoder(tok, opt);
  std::vector<std::string> chunks;
  std::string got;
  for (TokenId id : ids) {
    chunks.push_back(decoder.Push(id));
    got += chunks.back();
    if (got.size() < inside.size()) {
      EXPECT_FALSE(inside[got.size()]) << what << ": output after id " << id << " ends inside a character";
    }
  }
  chunks.push_back(decoder.Flush());
  got += chunks.back();
  EXPECT_EQ(got, expected) << what;
  return chunks;
}

const std::vector<DecodeOptions> kOptionSets = {
    {.remove_special = false, .render_special = false},
    {.remove_special = true, .render_special = false},
    {.remove_special = false, .render_special = true},
    {.remove_special = true, .render_special = true},
};

TEST(StreamingDecoderTest, EqualsDecodeForEveryCaseOfEveryVocabulary) {
  const std::vector<Loaded> all = LoadAll();
  ASSERT_GE(all.size(), 3u) << "llama-spm, bert-bge and the bundled model at least";
  const std::string inp = testing::VocabDataPath("ggml-vocab-llama-spm.gguf.inp");
  const std::vector<testing::VocabCase> cases =
      testing::ReadVocabCases(inp, testing::VocabDataPath("ggml-vocab-llama-spm.gguf.out"));
  for (const Loaded& l : all) {
    const Vocab& v = l.tokenizer->vocab();
    for (size_t i = 0; i < cases.size(); ++i) {
      for (bool add_special : {false, true}) {
        std::vector<TokenId> ids = l.tokenizer->Encode(cases[i].text, {.add_special = add_special});
        if (add_special && v.special().eos != kNoToken) ids.push_back(v.special().eos);
        for (const DecodeOptions& opt : kOptionSets) {
          CheckStream(*l.tokenizer, ids, opt, l.name + " case " + std::to_string(i));
        }
      }
    }
  }
}

TEST(StreamingDecoderTest, EqualsDecodeForRandomIds) {
  // Random ids reach byte tokens in any order, control tokens anywhere and
  // WordPiece pieces in combinations text never gives.
  std::mt19937 rng(42);
  for (const Loaded& l : LoadAll()) {
    const Vocab& v = l.tokenizer->vocab();
    std::uniform_int_distribution<TokenId> any(0, v.size() - 1);
    std::uniform_int_distribution<TokenId> low(0, std::min(v.size() - 1, 300));  // specials, bytes, short pieces
    for (int iter = 0; iter < 200; ++iter) {
      std::vector<TokenId> ids(std::uniform_int_distribution<size_t>(0, 40)(rng));
      for (TokenId& id : ids) id = (rng() & 1) ? any(rng) : low(rng);
      if (!ids.empty() && (rng() & 1)) ids.front() = v.special().bos != kNoToken ? v.special().bos : ids.front();
      if (!ids.empty() && (rng() & 1)) ids.back() = v.special().eos != kNoToken ? v.special().eos : ids.back();
      for (const DecodeOptions& opt : kOptionSets) CheckStream(*l.tokenizer, ids, opt, l.name + " random");
    }
  }
}

TEST(StreamingDecoderTest, EmojiFromByteTokensComesOutWhole) {
  Expected<gguf::File> file = gguf::File::Open(testing::VocabDataPath("ggml-vocab-llama-spm.gguf"));
  ASSERT_TRUE(file.ok());
  Expected<std::unique_ptr<Tokenizer>> tok = Tokenizer::FromGguf(*file);
  ASSERT_TRUE(tok.ok());
  StreamingDecoder decoder(**tok, {});
  // "▁" then <0xF0> <0x9F> <0xA6> <0x99> (🦙), then "▁Hello".
  EXPECT_EQ(decoder.Push(29871), "");  // the dummy-prefix space of the first token is removed
  EXPECT_EQ(decoder.Push(3 + 0xF0), "");
  EXPECT_EQ(decoder.Push(3 + 0x9F), "");
  EXPECT_EQ(decoder.Push(3 + 0xA6), "");
  EXPECT_EQ(decoder.Push(3 + 0x99), "\xF0\x9F\xA6\x99");
  EXPECT_EQ(decoder.Push(15043), " Hello");
  EXPECT_EQ(decoder.Flush(), "");
  // A sequence cut short comes out at Flush, as Decode gives it.
  EXPECT_EQ(decoder.Push(3 + 0xE4), "");
  EXPECT_EQ(decoder.Push(3 + 0xBD), "");
  EXPECT_EQ(decoder.Flush(), "\xE4\xBD");
  // Invalid bytes are not held.
  EXPECT_EQ(decoder.Push(3 + 0xFF), "\xFF");
  EXPECT_EQ(decoder.Flush(), "");
}

// Prime: generated text reads as the continuation of the prompt. After a
// prompt of BOS alone the first piece loses its dummy-prefix space (as
// llama2.c prints it); after a prompt with text it keeps it.
TEST(StreamingDecoderTest, PrimeDecodesGeneratedTextInThePromptsContext) {
  Expected<gguf::File> file = gguf::File::Open(testing::VocabDataPath("ggml-vocab-llama-spm.gguf"));
  ASSERT_TRUE(file.ok());
  Expected<std::unique_ptr<Tokenizer>> tok = Tokenizer::FromGguf(*file);
  ASSERT_TRUE(tok.ok());
  const TokenId bos = (*tok)->vocab().special().bos;
  const std::vector<TokenId> hello = {15043};  // "▁Hello"

  StreamingDecoder after_bos(**tok, {});
  after_bos.Prime(std::vector<TokenId>{bos});
  EXPECT_EQ(after_bos.Push(hello[0]), "Hello");

  StreamingDecoder after_text(**tok, {});
  after_text.Prime(std::vector<TokenId>{bos, hello[0]});
  EXPECT_EQ(after_text.Push(hello[0]), " Hello");

  StreamingDecoder after_nothing(**tok, {});
  after_nothing.Prime({});
  EXPECT_EQ(after_nothing.Push(hello[0]), "Hello");
}

TEST(StreamingDecoderTest, WordPieceHoldsSpacesUntilTheNextPieceDecides) {
  Expected<gguf::File> file = gguf::File::Open(testing::VocabDataPath("ggml-vocab-bert-bge.gguf"));
  ASSERT_TRUE(file.ok());
  Expected<std::unique_ptr<Tokenizer>> tok = Tokenizer::FromGguf(*file);
  ASSERT_TRUE(tok.ok());
  const std::vector<TokenId> ids = (*tok)->Encode("it's here.", {.add_special = false});  // it ' s here .
  const std::vector<std::string> chunks = CheckStream(**tok, ids, {}, "bert");
  ASSERT_EQ(chunks.size(), ids.size() + 1);
  EXPECT_EQ(chunks[0], " it");  // "▁it"
  EXPECT_EQ(chunks[1], "");     // " '": " ' " or " 's" may follow
  EXPECT_EQ(chunks[2], "'s");   // " ' s": the apostrophe joins both sides
  std::string all;
  for (const std::string& c : chunks) all += c;
  EXPECT_EQ(all, " it's here.");
}

}  // namespace
}  // namespace trit::tokenizer
