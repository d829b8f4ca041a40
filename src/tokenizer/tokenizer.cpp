#include "tokenizer/tokenizer.h"

#include <list>

#include "tokenizer/algorithms.h"

namespace trit::tokenizer {

Expected<std::unique_ptr<Tokenizer>> Tokenizer::FromGguf(const gguf::File& file) {
  Expected<Vocab> vocab = Vocab::FromGguf(file);
  if (!vocab.ok()) return vocab.status();
  switch (vocab->model()) {
    case ModelType::kSpm: return MakeSpmTokenizer(std::move(vocab).value());
    case ModelType::kBpe: return MakeBpeTokenizer(std::move(vocab).value());
    case ModelType::kWpm: return MakeWpmTokenizer(std::move(vocab).value());
  }
  return Error(ErrorCode::kUnsupported, "unknown tokenizer model");
}

Expected<std::unique_ptr<Tokenizer>> Tokenizer::FromGgufPath(const std::string& path) {
  Expected<gguf::File> file = gguf::File::Open(path);
  if (!file.ok()) return file.status();
  Expected<std::unique_ptr<Tokenizer>> tok = FromGguf(*file);
  if (!tok.ok()) return tok.status().WithContext(path);
  return tok;
}

std::vector<Fragment> Tokenizer::SplitSpecial(std::string_view text, bool parse_special) const {
  // As llama.cpp's tokenizer_st_partition: special tokens are taken longest
  // first; each splits every plain-text fragment at all its occurrences.
  std::list<Fragment> fragments;
  if (!text.empty()) fragments.push_back({text, kNoToken});
  for (TokenId id : vocab_.special_tokens_by_length()) {
    const TokenType type = vocab_.type(id);
    if (!parse_special && (type == TokenType::kControl || type == TokenType::kUnknown)) continue;
    const std::string& needle = vocab_.text(id);
    for (auto it = fragments.begin(); it != fragments.end();) {
      if (it->token != kNoToken) {
        ++it;
        continue;
      }
      std::string_view rest = it->text;
      size_t pos = rest.find(needle);
      if (pos == std::string_view::npos) {
        ++it;
        continue;
      }
      // Replace this fragment by [text] token [text] token ... [tail], in place.
      const auto next = fragments.erase(it);
      while (pos != std::string_view::npos) {
        if (pos > 0) fragments.insert(next, {rest.substr(0, pos), kNoToken});
        fragments.insert(next, {std::string_view(), id});
        rest.remove_prefix(pos + needle.size());
        pos = rest.find(needle);
      }
      if (!rest.empty()) fragments.insert(next, {rest, kNoToken});
      it = next;
    }
  }
  return {fragments.begin(), fragments.end()};
}

std::vector<TokenId> Tokenizer::Encode(std::string_view text, const EncodeOptions& options) const {
  std::vector<TokenId> out;
  const SpecialIds& sp = vocab_.special();
  const bool wpm = vocab_.model() == ModelType::kWpm;
  if (options.add_special) {
    if (wpm) {
      const TokenId cls = sp.cls != kNoToken ? sp.cls : sp.bos;
      if (cls != kNoToken) out.push_back(cls);
    } else if (vocab_.add_bos() && sp.bos != kNoToken) {
      out.push_back(sp.bos);
    }
  }
  bool after_special = true;
  for (const Fragment& f : SplitSpecial(text, options.parse_special)) {
    if (f.token != kNoToken) {
      out.push_back(f.token);
      after_special = true;
    } else {
      EncodeFragment(f.text, after_special, &out);
      after_special = false;
    }
  }
  if (options.add_special) {
    if (wpm) {
      if (sp.sep != kNoToken) out.push_back(sp.sep);
    } else if (vocab_.add_eos() && sp.eos != kNoToken) {
      out.push_back(sp.eos);
    }
  }
  return out;
}

std::string Tokenizer::Decode(std::span<const TokenId> ids, const DecodeOptions& options) const {
  // As llama.cpp's llama_detokenize: the SentencePiece dummy-prefix space of
  // the first token is removed, unless a removed BOS came first.
  bool remove_space = vocab_.add_space_prefix();
  const SpecialIds& sp = vocab_.special();
  if (options.remove_special && vocab_.add_bos() && !ids.empty() && ids.front() == sp.bos) {
    remove_space = false;
    ids = ids.subspan(1);
  }
  if (options.remove_special && vocab_.add_eos() && !ids.empty() && ids.back() == sp.eos) {
    ids = ids.first(ids.size() - 1);
  }
  std::string text;
  for (TokenId id : ids) {
    text += TokenToPiece(id, options.render_special, remove_space);
    remove_space = false;
  }
  FinishDecode(&text);
  if (clean_spaces()) text = CleanSpaces(text);
  return text;
}

}  // namespace trit::tokenizer
