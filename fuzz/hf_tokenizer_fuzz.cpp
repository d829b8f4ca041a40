// Hugging Face tokenizer.json as `trit convert` reads it: arbitrary text must
// parse or give an error (never a crash, a throw or unbounded recursion).
// The first line, up to a newline, is tokenizer_config.json's text; the rest
// is tokenizer.json. On a parse, the reader's promises are checked: ids
// 0..n-1 each once (one token and one type per id), token types in 1..6,
// every merge "a b" naming two tokens whose concatenation is a token
// (U+0120 standing for a space), special ids inside the vocabulary; and the
// metadata writes (or is refused with a message). The same input is also read
// as LlamaHfVocab (Gemma 4's reading), with its own promises.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_set>

#include "base/check.h"
#include "tokenizer/hf_tokenizer_json.h"

namespace {

std::string Unspace(std::string s) {
  for (size_t pos = s.find("\xC4\xA0"); pos != std::string::npos; pos = s.find("\xC4\xA0", pos + 1)) {
    s.replace(pos, 2, " ");
  }
  return s;
}

}  // namespace

namespace {

// Every special id that is set names a token of the vocabulary.
void CheckSpecialIds(const trit::tokenizer::HfTokenizer& tok) {
  for (const auto& id : {tok.special.bos, tok.special.eos, tok.special.unk, tok.special.sep, tok.special.pad,
                         tok.special.cls, tok.special.mask}) {
    TRIT_CHECK(!id.has_value() || (*id >= 0 && static_cast<size_t>(*id) < tok.tokens.size()));
  }
}

// ParseLlamaHfVocab: one token, type (1..6) and score (-1000) per id,
// special ids inside the vocabulary, and the metadata writes or is refused.
void CheckLlamaHfVocab(std::string_view json, std::string_view config) {
  trit::Expected<trit::tokenizer::HfTokenizer> tok = trit::tokenizer::ParseLlamaHfVocab(json, config);
  if (!tok) {
    TRIT_CHECK(!tok.status().message().empty());
    return;
  }
  const size_t n = tok->tokens.size();
  TRIT_CHECK(n > 0 && tok->token_types.size() == n && tok->scores.size() == n);
  TRIT_CHECK(tok->model == "llama" && tok->pre.empty());
  for (int32_t t : tok->token_types) TRIT_CHECK(t >= 1 && t <= 6);
  for (float score : tok->scores) TRIT_CHECK(score == -1000.0f);
  CheckSpecialIds(*tok);
  trit::gguf::Writer writer;
  trit::Status s = trit::tokenizer::WriteHfTokenizerMetadata(*tok, writer);
  TRIT_CHECK(s.ok() || !s.message().empty());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string_view config = newline == std::string_view::npos ? std::string_view() : input.substr(0, newline);
  const std::string_view json = newline == std::string_view::npos ? input : input.substr(newline + 1);
  CheckLlamaHfVocab(json, config);
  trit::Expected<trit::tokenizer::HfTokenizer> tok = trit::tokenizer::ParseHfTokenizer(json, config);
  if (!tok) {
    TRIT_CHECK(!tok.status().message().empty());
    return 0;
  }
  const size_t n = tok->tokens.size();
  TRIT_CHECK(n > 0 && tok->token_types.size() == n);
  TRIT_CHECK(tok->model == "bert" || tok->model == "gpt2");
  for (int32_t t : tok->token_types) TRIT_CHECK(t >= 1 && t <= 6);
  // A user-defined token's "▁" is written as a space, so its text may differ from model.vocab's.
  bool renamed = false;
  for (size_t i = 0; i < n; ++i) renamed |= tok->token_types[i] == 4 && tok->tokens[i].find(' ') != std::string::npos;
  if (tok->model == "gpt2") TRIT_CHECK(!tok->merges.empty());
  if (tok->model == "gpt2" && !renamed) {
    // Merges name the tokens as the vocabulary writes them (with U+0120 for a space in the array form).
    std::unordered_set<std::string> texts;
    for (const std::string& t : tok->tokens) {
      texts.insert(t);
      texts.insert(Unspace(t));
    }
    for (const std::string& m : tok->merges) {
      const size_t space = m.find(' ');
      TRIT_CHECK(space != std::string::npos && m.find(' ', space + 1) == std::string::npos);
      const std::string a = Unspace(m.substr(0, space)), b = Unspace(m.substr(space + 1));
      TRIT_CHECK(texts.contains(a) && texts.contains(b) && texts.contains(a + b));
    }
  }
  CheckSpecialIds(*tok);
  trit::gguf::Writer writer;
  trit::Status s = trit::tokenizer::WriteHfTokenizerMetadata(*tok, writer);
  TRIT_CHECK(s.ok() || !s.message().empty());
  if (s.ok()) {
    trit::Expected<std::vector<uint8_t>> bytes = writer.WriteBuffer();
    TRIT_CHECK(bytes.ok());
  }
  return 0;
}
