#include "tokenizer/vocab.h"

#include <algorithm>
#include <array>

namespace trit::tokenizer {
namespace {

constexpr std::string_view kTokensKey = "tokenizer.ggml.tokens";

// Reads an optional token id; absent keeps `*id`. An id outside the
// vocabulary is an error naming the key (llama.cpp would read out of bounds).
Status ReadId(const gguf::File& file, std::string_view key, int32_t n_vocab, TokenId* id) {
  if (file.Find(key) == nullptr) return Status::Ok();
  Expected<int64_t> v = file.GetInt(key);
  if (!v.ok()) return v.status();
  // -1 and 0xFFFFFFFF (as uint32) both mean "no such token" in files in the wild.
  if (*v == -1 || *v == 0xFFFFFFFFll) {
    *id = kNoToken;
    return Status::Ok();
  }
  if (*v < 0 || *v >= n_vocab) {
    return Error(ErrorCode::kCorrupt, "metadata '{}': token id {} is outside the vocabulary (0..{})", key, *v,
                 n_vocab - 1);
  }
  *id = static_cast<TokenId>(*v);
  return Status::Ok();
}

Status ReadFlag(const gguf::File& file, std::string_view key, bool* flag) {
  if (file.Find(key) == nullptr) return Status::Ok();
  Expected<bool> v = file.GetBool(key);
  if (!v.ok()) return v.status();
  *flag = *v;
  return Status::Ok();
}

// Checks that an optional per-token array has one element per token and the expected element type.
Expected<const gguf::Array*> PerTokenArray(const gguf::File& file, std::string_view key, gguf::ValueType element,
                                           size_t n_vocab) {
  if (file.Find(key) == nullptr) return static_cast<const gguf::Array*>(nullptr);
  Expected<const gguf::Array*> a = file.GetArray(key);
  if (!a.ok()) return a.status();
  if ((*a)->element_type != element) {
    return Error(ErrorCode::kCorrupt, "metadata '{}': array of {}, expected array of {}", key,
                 gguf::ValueTypeName((*a)->element_type), gguf::ValueTypeName(element));
  }
  if ((*a)->size() != n_vocab) {
    return Error(ErrorCode::kCorrupt, "metadata '{}': {} elements, expected one per token ({})", key, (*a)->size(),
                 n_vocab);
  }
  return a;
}

}  // namespace

Expected<Vocab> Vocab::FromGguf(const gguf::File& file) {
  Vocab v;
  Expected<std::string> model = file.GetString("tokenizer.ggml.model");
  if (!model.ok()) return model.status();
  v.model_name_ = *model;
  if (*model == "llama") {
    v.model_ = ModelType::kSpm;
  } else if (*model == "gpt2" || *model == "gemma4") {
    v.model_ = ModelType::kBpe;
  } else if (*model == "bert") {
    v.model_ = ModelType::kWpm;
  } else {
    return Error(ErrorCode::kUnsupported,
                 "tokenizer model '{}' is not supported (supported: llama (SentencePiece), gpt2 (byte-level BPE), "
                 "gemma4 (BPE over '\u2581'-escaped text), bert (WordPiece))",
                 *model);
  }
  v.pre_ = "default";
  if (file.Find("tokenizer.ggml.pre") != nullptr) {
    Expected<std::string> pre = file.GetString("tokenizer.ggml.pre");
    if (!pre.ok()) return pre.status();
    v.pre_ = *pre;
  }
  // llama.cpp's loader takes model "gemma4" to mean its own pre type, whatever .pre says.
  if (*model == "gemma4") v.pre_ = "gemma4";

  Expected<const gguf::Array*> tokens = file.GetArray(kTokensKey);
  if (!tokens.ok()) return tokens.status();
  if ((*tokens)->element_type != gguf::ValueType::kString) {
    return Error(ErrorCode::kCorrupt, "metadata '{}': array of {}, expected array of string", kTokensKey,
                 gguf::ValueTypeName((*tokens)->element_type));
  }
  const size_t n = (*tokens)->size();
  if (n == 0 || n > static_cast<size_t>(INT32_MAX)) {
    return Error(ErrorCode::kCorrupt, "metadata '{}': {} tokens, expected 1..{}", kTokensKey, n, INT32_MAX);
  }
  v.tokens_ = (*tokens)->strings;

  Expected<const gguf::Array*> scores = PerTokenArray(file, "tokenizer.ggml.scores", gguf::ValueType::kFloat32, n);
  if (!scores.ok()) return scores.status();
  if (*scores != nullptr) {
    v.scores_.resize(n);
    for (size_t i = 0; i < n; ++i) v.scores_[i] = (*scores)->At<float>(i);
  }
  Expected<const gguf::Array*> types = PerTokenArray(file, "tokenizer.ggml.token_type", gguf::ValueType::kInt32, n);
  if (!types.ok()) return types.status();
  v.types_.assign(n, TokenType::kNormal);
  if (*types != nullptr) {
    for (size_t i = 0; i < n; ++i) {
      const int32_t t = (*types)->At<int32_t>(i);
      if (t < 0 || t > static_cast<int32_t>(TokenType::kByte)) {
        return Error(ErrorCode::kCorrupt, "metadata 'tokenizer.ggml.token_type': token {} has type {}, expected 0..6",
                     i, t);
      }
      v.types_[i] = static_cast<TokenType>(t);
    }
  }
  if (file.Find("tokenizer.ggml.merges") != nullptr) {
    Expected<const gguf::Array*> merges = file.GetArray("tokenizer.ggml.merges");
    if (!merges.ok()) return merges.status();
    if ((*merges)->element_type != gguf::ValueType::kString) {
      return Error(ErrorCode::kCorrupt, "metadata 'tokenizer.ggml.merges': array of {}, expected array of string",
                   gguf::ValueTypeName((*merges)->element_type));
    }
    v.merges_ = (*merges)->strings;
  }
  if (v.model_ == ModelType::kBpe && v.merges_.empty()) {
    return Error(ErrorCode::kCorrupt, "tokenizer model '{}' needs 'tokenizer.ggml.merges', which is missing or empty",
                 *model);
  }

  // Later duplicates do not replace the first id of a text, as in llama.cpp.
  v.index_.reserve(n);
  for (size_t i = 0; i < n; ++i) v.index_.emplace(v.tokens_[i], static_cast<TokenId>(i));

  // Defaults per model type (llama.cpp's), then the file's values.
  const int32_t n_vocab = static_cast<int32_t>(n);
  auto in_vocab = [&](TokenId id) { return id < n_vocab ? id : kNoToken; };
  switch (v.model_) {
    case ModelType::kSpm:
      v.special_.bos = in_vocab(1);
      v.special_.eos = in_vocab(2);
      v.special_.unk = in_vocab(0);
      v.add_bos_ = true;
      v.add_space_prefix_ = true;
      break;
    case ModelType::kBpe:
      if (*model == "gemma4") break;  // no default ids: the file names them (llama.cpp)
      v.special_.bos = in_vocab(11);
      v.special_.eos = in_vocab(11);
      break;
    case ModelType::kWpm:
      v.special_.bos = in_vocab(101);
      v.special_.unk = in_vocab(100);
      v.special_.sep = in_vocab(102);
      v.special_.pad = in_vocab(0);
      v.special_.mask = in_vocab(103);
      v.add_bos_ = true;
      v.add_sep_ = true;
      break;
  }
  const std::array<std::pair<std::string_view, TokenId*>, 9> ids = {{
      {"tokenizer.ggml.bos_token_id", &v.special_.bos},
      {"tokenizer.ggml.eos_token_id", &v.special_.eos},
      {"tokenizer.ggml.eot_token_id", &v.special_.eot},
      {"tokenizer.ggml.eom_token_id", &v.special_.eom},
      {"tokenizer.ggml.unknown_token_id", &v.special_.unk},
      {"tokenizer.ggml.seperator_token_id", &v.special_.sep},  // sic: the key GGUF uses
      {"tokenizer.ggml.padding_token_id", &v.special_.pad},
      {"tokenizer.ggml.cls_token_id", &v.special_.cls},
      {"tokenizer.ggml.mask_token_id", &v.special_.mask},
  }};
  for (const auto& [key, id] : ids) {
    if (Status s = ReadId(file, key, n_vocab, id); !s.ok()) return s;
  }
  const std::array<std::pair<std::string_view, bool*>, 5> flags = {{
      {"tokenizer.ggml.add_bos_token", &v.add_bos_},
      {"tokenizer.ggml.add_eos_token", &v.add_eos_},
      {"tokenizer.ggml.add_sep_token", &v.add_sep_},
      {"tokenizer.ggml.add_space_prefix", &v.add_space_prefix_},
      {"tokenizer.ggml.remove_extra_whitespaces", &v.remove_extra_whitespaces_},
  }};
  for (const auto& [key, flag] : flags) {
    if (Status s = ReadFlag(file, key, flag); !s.ok()) return s;
  }
  v.add_bos_in_file_ = file.Find("tokenizer.ggml.add_bos_token") != nullptr;

  // End of generation: the declared ids plus the texts llama.cpp's loader
  // takes as ends of a turn (llama-vocab.cpp's EOT, EOM and EOG lists).
  // It types each control whatever the file says ("control-looking token
  // ... its type will be overridden"): a converted checkpoint may type
  // Gemma's <end_of_turn> normal, and must still stop there and not match
  // it in plain text.
  static constexpr std::array<std::string_view, 22> kEndTexts = {
      "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>",
      "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]",
      "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
      "<\xef\xbd\x9c" "end\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>", "[e~["};
  for (TokenId id : {v.special_.eos, v.special_.eot, v.special_.eom}) {
    if (id != kNoToken) v.end_of_generation_.push_back(id);
  }
  for (std::string_view text : kEndTexts) {
    const TokenId id = v.Find(text);
    if (id == kNoToken) continue;
    v.types_[static_cast<size_t>(id)] = TokenType::kControl;
    v.end_of_generation_.push_back(id);
  }

  for (TokenId id = 0; id < n_vocab; ++id) {
    const TokenType t = v.type(id);
    if (t == TokenType::kControl || t == TokenType::kUserDefined || t == TokenType::kUnknown) {
      if (!v.text(id).empty()) v.special_by_length_.push_back(id);
    }
  }
  std::stable_sort(v.special_by_length_.begin(), v.special_by_length_.end(),
                   [&](TokenId a, TokenId b) { return v.text(a).size() > v.text(b).size(); });

  return v;
}

TokenId Vocab::Find(std::string_view text) const {
  auto it = index_.find(text);
  return it == index_.end() ? kNoToken : it->second;
}

bool Vocab::IsEndOfGeneration(TokenId id) const {
  return std::find(end_of_generation_.begin(), end_of_generation_.end(), id) != end_of_generation_.end();
}

}  // namespace trit::tokenizer
