// Reads Hugging Face tokenizer.json the way llama.cpp's converter sees it:
// the vocabulary as transformers' AutoTokenizer lists it (model.vocab plus
// added_tokens), token types as get_vocab_base assigns them, merges and
// special tokens as gguf-py's SpecialVocab loads them (gguf-py/gguf/vocab.py).
#include "tokenizer/hf_tokenizer_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <array>
#include <unordered_map>
#include <utility>

#include "base/json_nesting.h"
#include "tokenizer/sentencepiece_model.h"

namespace trit::tokenizer {
namespace {

using Json = nlohmann::json;

constexpr int kMaxNesting = 64;
// Bounds the id table before it is allocated; no real vocabulary is near it.
constexpr int64_t kMaxTokens = int64_t{1} << 24;
constexpr int32_t kNormal = 1, kControl = 3, kUserDefined = 4, kByte = 6;

// The Split regexes of pre-tokenizers trit can name, with the tokenizer.ggml.pre
// that llama.cpp's converter gives the same models (by the hash of a tokenization).
struct KnownSplit {
  std::string_view regex;
  std::string_view pre;
};
constexpr std::array<KnownSplit, 3> kKnownSplits = {{
    {R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
     "llama-bpe"},
    {R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
     "qwen2"},
    {R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)",
     "qwen35"},
}};

Expected<Json> ParseJson(std::string_view text, std::string_view what) {
  if (!JsonNestingWithin(text, kMaxNesting)) {
    return Error(ErrorCode::kCorrupt, "{}: JSON nests deeper than {} levels", what, kMaxNesting);
  }
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Error(ErrorCode::kCorrupt, "{}: not valid JSON", what);
  if (!j.is_object()) return Error(ErrorCode::kCorrupt, "{}: top level is {}, expected an object", what, j.type_name());
  return j;
}

// tokenizer_config.json's text; an empty object when there is none.
Expected<Json> ParseConfig(std::string_view text) {
  if (text.empty()) return Json::object();
  return ParseJson(text, "tokenizer_config.json");
}

// A token id: an integer 0..kMaxTokens-1.
Expected<int32_t> ReadId(const Json& v, const std::string& field) {
  if (!v.is_number_integer()) {
    return Error(ErrorCode::kCorrupt, "{}: id is {}, expected an integer", field, v.type_name());
  }
  const bool in_range = v.is_number_unsigned() ? v.get<uint64_t>() < static_cast<uint64_t>(kMaxTokens)
                                               : v.get<int64_t>() >= 0 && v.get<int64_t>() < kMaxTokens;
  if (!in_range) return Error(ErrorCode::kCorrupt, "{}: id {} is outside 0..{}", field, v.dump(), kMaxTokens - 1);
  return static_cast<int32_t>(v.get<int64_t>());
}

// A member that must be an object when present; nullptr when absent or null.
Expected<const Json*> OptionalObject(const Json& parent, const char* key, std::string_view field) {
  auto it = parent.find(key);
  if (it == parent.end() || it->is_null()) return static_cast<const Json*>(nullptr);
  if (!it->is_object()) return Error(ErrorCode::kCorrupt, "{}: is {}, expected an object", field, it->type_name());
  return &*it;
}

std::string StringOr(const Json& obj, const char* key, std::string fallback) {
  if (!obj.is_object()) return fallback;
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : fallback;
}

bool BoolOr(const Json& obj, const char* key, bool fallback) {
  if (!obj.is_object()) return fallback;
  auto it = obj.find(key);
  return it != obj.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

// gguf-py's TextModel.does_token_look_special: added tokens that ought to be control.
bool LooksSpecial(std::string_view t) {
  auto wraps = [&](std::string_view open, std::string_view close) {
    return t.size() >= open.size() + close.size() && t.starts_with(open) && t.ends_with(close);
  };
  return t == "<pad>" || t == "<mask>" || t == "<2mass>" || t == "[@BOS@]" || wraps("<|", "|>") ||
         wraps("<\xEF\xBD\x9C", "\xEF\xBD\x9C>") || wraps("<unused", ">");
}

// llama.cpp's BertModel.set_vocab "phantom space" form of a WordPiece token.
std::string Phantom(const std::string& tok) {
  if (tok.size() >= 2 && tok.front() == '[' && tok.back() == ']') return tok;
  if (tok.starts_with("##")) return tok.substr(2);
  return "\xE2\x96\x81" + tok;
}

std::string ReplaceAll(std::string s, std::string_view from, std::string_view to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

struct Entry {
  std::string text;
  bool added = false;
  bool special = false;
};

// The vocabulary: model.vocab then added_tokens, each id exactly once.
Status ReadVocab(const Json& root, const Json& model, std::vector<Entry>* entries,
                 std::unordered_map<std::string, int32_t>* model_vocab) {
  auto vocab_it = model.find("vocab");
  if (vocab_it == model.end() || !vocab_it->is_object()) {
    return Error(ErrorCode::kCorrupt, "model.vocab: {}, expected an object of token: id",
                 vocab_it == model.end() ? "missing" : vocab_it->type_name());
  }
  std::unordered_map<int32_t, Entry> by_id;
  for (auto it = vocab_it->begin(); it != vocab_it->end(); ++it) {
    const std::string field = fmt::format("model.vocab[{}]", Json(it.key()).dump());
    Expected<int32_t> id = ReadId(it.value(), field);
    if (!id.ok()) return id.status();
    auto [slot, fresh] = by_id.emplace(*id, Entry{it.key()});
    if (!fresh) {
      return Error(ErrorCode::kCorrupt, "{}: id {} is given twice (also to {})", field, *id,
                   Json(slot->second.text).dump());
    }
    model_vocab->emplace(it.key(), *id);
  }
  auto added_it = root.find("added_tokens");
  if (added_it != root.end() && !added_it->is_null()) {
    if (!added_it->is_array()) {
      return Error(ErrorCode::kCorrupt, "added_tokens: is {}, expected an array", added_it->type_name());
    }
    for (size_t i = 0; i < added_it->size(); ++i) {
      const Json& a = (*added_it)[i];
      const std::string field = fmt::format("added_tokens[{}]", i);
      if (!a.is_object()) return Error(ErrorCode::kCorrupt, "{}: is {}, expected an object", field, a.type_name());
      auto content = a.find("content");
      if (content == a.end() || !content->is_string()) {
        return Error(ErrorCode::kCorrupt, "{}.content: {}, expected a string", field,
                     content == a.end() ? "missing" : content->type_name());
      }
      auto id_it = a.find("id");
      if (id_it == a.end()) return Error(ErrorCode::kCorrupt, "{}.id: missing", field);
      Expected<int32_t> id = ReadId(*id_it, field + ".id");
      if (!id.ok()) return id.status();
      const std::string text = content->get<std::string>();
      auto [slot, fresh] = by_id.emplace(*id, Entry{text});
      if (!fresh && slot->second.added) {
        return Error(ErrorCode::kCorrupt, "{}: id {} is given twice (also to {})", field, *id,
                     Json(slot->second.text).dump());
      }
      if (!fresh && slot->second.text != text) {
        return Error(ErrorCode::kCorrupt, "{}: id {} is {} here but {} in model.vocab", field, *id, Json(text).dump(),
                     Json(slot->second.text).dump());
      }
      slot->second.added = true;
      slot->second.special = BoolOr(a, "special", false);
    }
  }
  const size_t n = by_id.size();
  if (n == 0) return Error(ErrorCode::kCorrupt, "model.vocab: empty, and no added_tokens");
  entries->assign(n, Entry{});
  std::vector<bool> seen(n, false);
  for (auto& [id, e] : by_id) {
    if (static_cast<size_t>(id) >= n) {
      size_t missing = 0;
      for (const auto& kv : by_id) {
        if (static_cast<size_t>(kv.first) < n) seen[kv.first] = true;
      }
      while (seen[missing]) ++missing;
      return Error(ErrorCode::kCorrupt,
                   "token ids have gaps: {} tokens but id {} is given ({}); id {} is missing (model.vocab and "
                   "added_tokens must cover 0..{})",
                   n, id, Json(e.text).dump(), missing, n - 1);
    }
    (*entries)[id] = std::move(e);
  }
  return Status::Ok();
}

// Splits one merge ("a b" or ["a", "b"]) and checks its tokens against model.vocab.
Expected<std::string> ReadMerge(const Json& m, size_t i, const std::unordered_map<std::string, int32_t>& vocab) {
  const std::string field = fmt::format("model.merges[{}]", i);
  std::string a, b;
  if (m.is_string()) {
    const std::string s = m.get<std::string>();
    const size_t space = s.find(' ');
    if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos) {
      return Error(ErrorCode::kCorrupt, "{}: {} is not two tokens separated by one space", field, Json(s).dump());
    }
    a = s.substr(0, space);
    b = s.substr(space + 1);
  } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
    a = m[0].get<std::string>();
    b = m[1].get<std::string>();
  } else {
    return Error(ErrorCode::kCorrupt, "{}: is {}, expected \"a b\" or [\"a\", \"b\"]", field, m.dump());
  }
  for (const std::string& t : {a, b, a + b}) {
    if (!vocab.contains(t)) {
      return Error(ErrorCode::kCorrupt, "{}: token {} is not in model.vocab", field, Json(t).dump());
    }
  }
  // gguf-py writes a space inside a token of the array form as U+0120 (its byte-level form).
  return ReplaceAll(a, " ", "\xC4\xA0") + " " + ReplaceAll(b, " ", "\xC4\xA0");
}

// The pre-tokenizer as a tokenizer.ggml.pre name, from a small table.
Expected<std::string> BytePre(const Json* pre) {
  auto is_byte_level = [](const Json& p) { return p.is_object() && StringOr(p, "type", "") == "ByteLevel"; };
  if (pre != nullptr && is_byte_level(*pre) && !BoolOr(*pre, "add_prefix_space", true) &&
      BoolOr(*pre, "use_regex", true)) {
    return std::string("gpt-2");
  }
  if (pre != nullptr && StringOr(*pre, "type", "") == "Sequence") {
    const auto seq_it = pre->find("pretokenizers");
    const Json& seq = seq_it != pre->end() ? *seq_it : Json::array();
    if (seq.is_array() && seq.size() == 2 && StringOr(seq[0], "type", "") == "Split" && is_byte_level(seq[1]) &&
        !BoolOr(seq[1], "use_regex", true) && !BoolOr(seq[1], "add_prefix_space", true) &&
        StringOr(seq[0], "behavior", "") == "Isolated" && !BoolOr(seq[0], "invert", false)) {
      const std::string regex = StringOr(seq[0].value("pattern", Json::object()), "Regex", "");
      for (const KnownSplit& k : kKnownSplits) {
        if (regex == k.regex) return std::string(k.pre);
      }
    }
  }
  return Error(ErrorCode::kUnsupported,
               "pre_tokenizer: {} is none that trit can name (ByteLevel without prefix space -> gpt-2; Split with the "
               "Llama 3 or Qwen2 regex, then ByteLevel -> llama-bpe, qwen2); llama.cpp names it by hashing a "
               "tokenization, which trit cannot run",
               pre == nullptr ? std::string("null") : pre->dump().substr(0, 200));
}

bool HasByteLevel(const Json* pre) {
  if (pre == nullptr) return false;
  if (StringOr(*pre, "type", "") == "ByteLevel") return true;
  const auto it = pre->find("pretokenizers");
  if (it == pre->end() || !it->is_array()) return false;
  return std::any_of(it->begin(), it->end(), [](const Json& p) { return StringOr(p, "type", "") == "ByteLevel"; });
}

// WordPiece's normalizer lowercases: BertNormalizer (lowercase, default true) or Lowercase, alone or in a Sequence.
bool Lowercases(const Json* norm) {
  if (norm == nullptr) return false;
  const std::string type = StringOr(*norm, "type", "");
  if (type == "BertNormalizer") return BoolOr(*norm, "lowercase", true);
  if (type == "Lowercase") return true;
  const auto it = norm->find("normalizers");
  if (type != "Sequence" || it == norm->end() || !it->is_array()) return false;
  return std::any_of(it->begin(), it->end(), [](const Json& n) { return Lowercases(&n); });
}

// The content of a *_token field of tokenizer_config.json: a string or {"content": string}.
std::string ConfigToken(const Json& config, const std::string& key) {
  auto it = config.find(key);
  if (it == config.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  return StringOr(*it, "content", "");
}

std::string TemplateSpecial(const Json& item) {
  return item.is_object() && item.contains("SpecialToken") ? StringOr(item["SpecialToken"], "id", "") : "";
}

std::string TemplateSequence(const Json& item) {
  return item.is_object() && item.contains("Sequence") ? StringOr(item["Sequence"], "id", "") : "";
}

enum Special { kBos, kEos, kUnk, kSep, kPad, kCls, kMask, kNumSpecial };
constexpr std::array<const char*, kNumSpecial> kSpecialNames = {"bos", "eos", "unk", "sep", "pad", "cls", "mask"};

// gguf-py SpecialVocab._try_load_from_tokenizer_json: the post-processor
// decides add_bos/add_eos/add_sep (and fills names the config lacks); ids are
// then looked up by content among added_tokens, only when a config is given.
// Not followed: the eot/eom fallback when a template's last token is not EOS.
void ReadSpecials(const Json& root, const Json& config, const std::vector<Entry>& entries, HfTokenizer* out) {
  const bool has_config = config.is_object() && !config.empty();
  std::array<std::string, kNumSpecial> name;
  for (int t = 0; t < kNumSpecial; ++t) name[t] = ConfigToken(config, std::string(kSpecialNames[t]) + "_token");
  if (has_config && name[kBos].empty()) name[kBos] = name[kCls];
  if (has_config && name[kEos].empty()) name[kEos] = name[kSep];

  const Json* post = root.contains("post_processor") && root["post_processor"].is_object() ? &root["post_processor"]
                                                                                             : nullptr;
  std::vector<const Json*> processors;
  if (post != nullptr) {
    const auto it = post->find("processors");
    if (it != post->end() && it->is_array()) {
      for (const Json& p : *it) processors.push_back(&p);
    } else {
      processors.push_back(post);
    }
  }
  for (const Json* p : processors) {
    const std::string type = StringOr(*p, "type", "");
    if (type == "ByteLevel") {  // SpecialVocab: adds neither bos nor eos unless something else says so
      if (!out->add_bos) out->add_bos = false;
      if (!out->add_eos) out->add_eos = false;
      continue;
    }
    if (type == "RobertaProcessing") {
      out->add_bos = out->add_eos = out->add_sep = true;
      auto first_of = [&](const char* key) {
        const auto it = p->find(key);
        return it != p->end() && it->is_array() && !it->empty() && (*it)[0].is_string() ? (*it)[0].get<std::string>()
                                                                                         : std::string();
      };
      if (name[kCls].empty() && has_config) name[kCls] = p->contains("cls") ? first_of("cls") : name[kBos];
      if (name[kSep].empty() && has_config) name[kSep] = p->contains("sep") ? first_of("sep") : name[kEos];
      continue;
    }
    if (type != "TemplateProcessing") continue;
    const Json empty = Json::array();
    const Json& single = p->contains("single") && (*p)["single"].is_array() ? (*p)["single"] : empty;
    const Json& pair = p->contains("pair") && (*p)["pair"].is_array() ? (*p)["pair"] : empty;
    std::string first, last;
    if (single.size() > 1) {
      first = TemplateSpecial(single.front());
      if (!first.empty()) {
        if (!has_config) name[kBos] = first;
        out->add_bos = first == name[kBos] || first == name[kCls];
      }
      last = TemplateSpecial(single.back());
      if (!last.empty()) {
        if (!has_config || last != name[kEos]) name[kEos] = last;
        out->add_eos = true;
      }
    }
    if (pair.empty()) continue;
    const size_t start = !first.empty() && TemplateSpecial(pair.front()) == first ? 1 : 0;
    const size_t stop = !last.empty() && TemplateSpecial(pair.back()) == last ? pair.size() - 1 : pair.size();
    if (stop <= start + 2 || TemplateSequence(pair[start]) != "A" || TemplateSequence(pair[stop - 1]) != "B") continue;
    // A [sep] [eos] B: the middle of the pair template.
    bool add_sep = false;
    const std::string e0 = TemplateSpecial(pair[start + 1]);
    if (!e0.empty() && (e0 == name[kSep] || e0 == name[kEos]) && last.empty()) add_sep = true;
    if (stop - start - 2 == 2) {
      const std::string e1 = TemplateSpecial(pair[start + 2]);
      if (!e1.empty() && (e1 == name[kSep] || e1 == name[kEos])) add_sep = true;
    }
    out->add_sep = add_sep;
    if (add_sep && name[kSep].empty() && has_config) name[kSep] = name[kEos];
  }
  if (!has_config) return;

  const std::array<std::optional<bool>*, kNumSpecial> flags = {&out->add_bos, &out->add_eos, nullptr, &out->add_sep,
                                                               nullptr,       nullptr,       nullptr};
  const std::array<std::optional<int32_t>*, kNumSpecial> ids = {
      &out->special.bos, &out->special.eos, &out->special.unk,  &out->special.sep,
      &out->special.pad, &out->special.cls, &out->special.mask};
  for (int t = 0; t < kNumSpecial; ++t) {
    const auto flag = config.find(std::string("add_") + kSpecialNames[t] + "_token");
    if (flags[t] != nullptr && flag != config.end() && flag->is_boolean()) *flags[t] = flag->get<bool>();
    if (name[t].empty()) continue;
    for (size_t id = 0; id < entries.size(); ++id) {
      if (entries[id].added && entries[id].text == name[t]) {
        *ids[t] = static_cast<int32_t>(id);
        break;
      }
    }
  }
}

Expected<HfTokenizer> Parse(const Json& root, const Json& config) {
  Expected<const Json*> model = OptionalObject(root, "model", "model");
  if (!model.ok()) return model.status();
  if (*model == nullptr) return Error(ErrorCode::kCorrupt, "model: missing");
  const Json& m = **model;
  auto type_it = m.find("type");
  if (type_it == m.end() || !type_it->is_string()) {
    return Error(ErrorCode::kCorrupt, "model.type: {}, expected a string",
                 type_it == m.end() ? "missing" : type_it->type_name());
  }
  const std::string type = type_it->get<std::string>();
  Expected<const Json*> pre = OptionalObject(root, "pre_tokenizer", "pre_tokenizer");
  if (!pre.ok()) return pre.status();
  Expected<const Json*> norm = OptionalObject(root, "normalizer", "normalizer");
  if (!norm.ok()) return norm.status();

  HfTokenizer out;
  if (type == "WordPiece") {
    out.model = "bert";
    // llama.cpp ignores tokenizer.ggml.pre for WordPiece (it uses its default pre type).
    out.pre = "default";
    const std::string prefix = StringOr(m, "continuing_subword_prefix", "##");
    if (prefix != "##") {
      return Error(ErrorCode::kUnsupported,
                   "model.continuing_subword_prefix: {} is not \"##\", the only prefix llama.cpp's WordPiece reads",
                   Json(prefix).dump());
    }
    out.lowercase = Lowercases(*norm);
  } else if (type == "BPE") {
    if (!HasByteLevel(*pre)) {
      if (BoolOr(m, "byte_fallback", false)) {
        return Error(ErrorCode::kUnsupported,
                     "model.type: BPE with byte_fallback (SentencePiece-style, tokenizer.ggml.model \"llama\") is not "
                     "supported yet");
      }
      return Error(ErrorCode::kUnsupported, "model.type: BPE without a ByteLevel pre_tokenizer is not supported");
    }
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
      if (!StringOr(m, key, "").empty()) {
        return Error(ErrorCode::kUnsupported, "model.{}: {} is not supported by byte-level BPE", key, m[key].dump());
      }
    }
    Expected<std::string> name = BytePre(*pre);
    if (!name.ok()) return name.status();
    out.model = "gpt2";
    out.pre = *name;
  } else if (type == "Unigram" || type == "WordLevel") {
    return Error(ErrorCode::kUnsupported, "model.type: {} is not supported (supported: WordPiece, byte-level BPE)",
                 type);
  } else {
    return Error(ErrorCode::kCorrupt, "model.type: {} is not a tokenizers model (BPE, WordPiece, Unigram, WordLevel)",
                 Json(type).dump());
  }

  std::vector<Entry> entries;
  std::unordered_map<std::string, int32_t> model_vocab;
  if (Status s = ReadVocab(root, m, &entries, &model_vocab); !s.ok()) return s;

  if (out.model == "gpt2") {
    auto merges = m.find("merges");
    if (merges == m.end() || !merges->is_array() || merges->empty()) {
      return Error(ErrorCode::kCorrupt, "model.merges: {}, expected a non-empty array",
                   merges == m.end() ? "missing" : merges->is_array() ? "empty" : merges->type_name());
    }
    out.merges.reserve(merges->size());
    for (size_t i = 0; i < merges->size(); ++i) {
      Expected<std::string> merge = ReadMerge((*merges)[i], i, model_vocab);
      if (!merge.ok()) return merge.status();
      out.merges.push_back(std::move(merge).value());
    }
  }

  // get_vocab_base's token types: added special (or special-looking) tokens
  // are control, other added tokens user-defined with "▁" as a space.
  out.tokens.reserve(entries.size());
  out.token_types.reserve(entries.size());
  for (const Entry& e : entries) {
    std::string text = e.text;
    int32_t t = kNormal;
    if (e.added) {
      t = e.special || LooksSpecial(text) ? kControl : kUserDefined;
      if (t == kUserDefined) text = ReplaceAll(text, "\xE2\x96\x81", " ");
    }
    out.tokens.push_back(out.model == "bert" ? Phantom(text) : std::move(text));
    out.token_types.push_back(t);
  }
  ReadSpecials(root, config, entries, &out);
  return out;
}

}  // namespace

Expected<HfTokenizer> ParseHfTokenizer(std::string_view tokenizer_json, std::string_view tokenizer_config_json) {
  Expected<Json> root = ParseJson(tokenizer_json, "tokenizer.json");
  if (!root.ok()) return root.status();
  Expected<Json> parsed_config = ParseConfig(tokenizer_config_json);
  if (!parsed_config.ok()) return parsed_config.status();
  const Json& config = *parsed_config;
  try {
    return Parse(*root, config);
  } catch (const Json::exception& e) {
    // A getter on an unexpected type; every field is checked first, so this is a bug's safety net.
    return Error(ErrorCode::kCorrupt, "tokenizer.json: {}", e.what());
  }
}

}  // namespace trit::tokenizer

namespace trit::tokenizer {

Expected<HfTokenizer> ParseSentencePieceTokenizer(std::string_view model_proto, std::string_view tokenizer_json,
                                                  std::string_view tokenizer_config_json, size_t n_vocab) {
  Expected<std::vector<SentencePiece>> pieces = ParseSentencePieceModel(model_proto);
  if (!pieces.ok()) return pieces.status();
  Expected<Json> parsed_config = ParseConfig(tokenizer_config_json);
  if (!parsed_config.ok()) return parsed_config.status();
  const Json& config = *parsed_config;
  HfTokenizer out;
  out.model = "llama";
  out.pre = "default";
  if (n_vocab == 0) n_vocab = pieces->size();
  out.tokens.resize(n_vocab);
  out.scores.assign(n_vocab, -10000.0f);
  out.token_types.assign(n_vocab, 5);  // unused
  for (size_t id = 0; id < n_vocab; ++id) out.tokens[id] = fmt::format("[PAD{}]", id);
  // Pieces past config.json's vocab_size are left out, as llama.cpp does.
  for (size_t id = 0; id < pieces->size() && id < n_vocab; ++id) {
    out.tokens[id] = (*pieces)[id].piece;
    out.scores[id] = (*pieces)[id].score;
    // _create_vocab_sentencepiece asks IsUnknown / IsControl / IsUnused /
    // IsByte only: a user-defined piece (Gemma's <start_of_turn>) stays
    // normal unless added_tokens_decoder below retypes it.
    const int32_t type = (*pieces)[id].type;
    out.token_types[id] = type == kUserDefined ? kNormal : type;
  }
  try {
    auto decoder = config.find("added_tokens_decoder");
    if (decoder != config.end() && decoder->is_object()) {
      for (auto it = decoder->begin(); it != decoder->end(); ++it) {
        const std::string field = fmt::format("tokenizer_config.json: added_tokens_decoder[{}]", Json(it.key()).dump());
        size_t id = 0;
        const auto [end, ec] = std::from_chars(it.key().data(), it.key().data() + it.key().size(), id);
        if (ec != std::errc() || end != it.key().data() + it.key().size()) {
          return Error(ErrorCode::kCorrupt, "{}: the key is not a token id", field);
        }
        if (id >= n_vocab) continue;  // llama.cpp ignores (with a warning) ids past the vocabulary
        const std::string content = StringOr(it.value(), "content", "");
        if (content.empty()) return Error(ErrorCode::kCorrupt, "{}: no content", field);
        if (BoolOr(it.value(), "special", false) || LooksSpecial(content)) {
          out.token_types[id] = kControl;
          out.tokens[id] = content;
        } else {
          out.token_types[id] = kUserDefined;
          out.tokens[id] = ReplaceAll(content, "\xE2\x96\x81", " ");
        }
        out.scores[id] = -1000.0f;
      }
    }
    const auto space = config.find("add_prefix_space");
    if (space != config.end() && space->is_boolean()) out.add_space_prefix = space->get<bool>();
    if (!tokenizer_json.empty()) {
      Expected<Json> root = ParseJson(tokenizer_json, "tokenizer.json");
      if (!root.ok()) return root.status();
      std::vector<Entry> entries;
      std::unordered_map<std::string, int32_t> model_vocab;
      Expected<const Json*> model = OptionalObject(*root, "model", "model");
      if (!model.ok()) return model.status();
      if (*model == nullptr) return Error(ErrorCode::kCorrupt, "tokenizer.json: model: missing");
      if (Status s = ReadVocab(*root, **model, &entries, &model_vocab); !s.ok()) return s.WithContext("tokenizer.json");
      ReadSpecials(*root, config, entries, &out);
      // SpecialVocab skips an id past the vocabulary (Gemma's tokenizer.json
      // adds tokens beyond tokenizer.model's); it is left unset here.
      for (std::optional<int32_t>* id : {&out.special.bos, &out.special.eos, &out.special.unk, &out.special.sep,
                                         &out.special.pad, &out.special.cls, &out.special.mask}) {
        if (id->has_value() && static_cast<size_t>(**id) >= n_vocab) id->reset();
      }
    }
  } catch (const Json::exception& e) {
    return Error(ErrorCode::kCorrupt, "tokenizer_config.json: {}", e.what());
  }
  return out;
}

}  // namespace trit::tokenizer

namespace trit::tokenizer {
namespace {

// <0xNN>: LlamaHfVocab's byte token.
bool IsByteToken(std::string_view t) {
  auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); };
  return t.size() == 6 && t.starts_with("<0x") && t.back() == '>' && hex(t[3]) && hex(t[4]);
}

// The content of a token value of tokenizer_config.json: a string or an
// AddedToken object ({"content": ...}); empty otherwise.
std::string TokenContent(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.is_object() ? StringOr(v, "content", "") : "";
}

// transformers 5's all_special_tokens, from tokenizer_config.json
// (tokenization_utils_base.py: SPECIAL_TOKENS_ATTRIBUTES, the auto-detected
// model-specific *_token keys, extra_special_tokens).
std::vector<std::string> AllSpecialTokens(const Json& config) {
  std::vector<std::string> out;
  if (!config.is_object()) return out;
  for (auto it = config.begin(); it != config.end(); ++it) {
    if (!it.key().ends_with("_token")) continue;
    if (std::string t = TokenContent(it.value()); !t.empty()) out.push_back(std::move(t));
  }
  // GemmaTokenizer's constructor defaults, where the config names none.
  if (StringOr(config, "tokenizer_class", "").starts_with("GemmaTokenizer")) {
    const std::pair<const char*, const char*> defaults[] = {
        {"unk_token", "<unk>"}, {"bos_token", "<bos>"}, {"eos_token", "<eos>"},
        {"pad_token", "<pad>"}, {"mask_token", "<mask>"}};
    for (const auto& [key, token] : defaults) {
      if (!config.contains(key)) out.emplace_back(token);
    }
  }
  auto extra = config.find("extra_special_tokens");
  if (extra != config.end() && (extra->is_array() || extra->is_object())) {
    for (const Json& v : *extra) {
      if (std::string t = TokenContent(v); !t.empty()) out.push_back(std::move(t));
    }
  }
  return out;
}

}  // namespace

Expected<HfTokenizer> ParseLlamaHfVocab(std::string_view tokenizer_json, std::string_view tokenizer_config_json) {
  Expected<Json> root = ParseJson(tokenizer_json, "tokenizer.json");
  if (!root.ok()) return root.status();
  Expected<Json> parsed_config = ParseConfig(tokenizer_config_json);
  if (!parsed_config.ok()) return parsed_config.status();
  const Json& config = *parsed_config;
  try {
    Expected<const Json*> model = OptionalObject(*root, "model", "model");
    if (!model.ok()) return model.status();
    if (*model == nullptr) return Error(ErrorCode::kCorrupt, "model: missing");
    const Json& m = **model;
    // LlamaHfVocab's own check ("Cannot find Llama BPE tokenizer").
    const std::string decoder = root->contains("decoder") ? StringOr((*root)["decoder"], "type", "") : "";
    if (StringOr(m, "type", "") != "BPE" || !BoolOr(m, "byte_fallback", false) || decoder != "Sequence") {
      return Error(ErrorCode::kUnsupported,
                   "model: type {}, byte_fallback {}, decoder {}: not a SentencePiece-style BPE tokenizer (BPE with "
                   "byte_fallback and a Sequence decoder), which this architecture's vocabulary is read as",
                   StringOr(m, "type", "?"), BoolOr(m, "byte_fallback", false), decoder.empty() ? "none" : decoder);
    }
    std::vector<Entry> entries;
    std::unordered_map<std::string, int32_t> model_vocab;
    if (Status s = ReadVocab(*root, m, &entries, &model_vocab); !s.ok()) return s;
    const size_t n_base = model_vocab.size();  // transformers' vocab_size: model.vocab's entries
    std::unordered_map<std::string, int32_t> ids;
    for (size_t id = 0; id < entries.size(); ++id) ids.emplace(entries[id].text, static_cast<int32_t>(id));
    std::vector<bool> special(entries.size(), false);
    std::unordered_map<std::string, bool> special_text;
    for (const std::string& t : AllSpecialTokens(config)) {
      special_text[t] = true;
      if (auto it = ids.find(t); it != ids.end()) special[static_cast<size_t>(it->second)] = true;
    }
    HfTokenizer out;
    out.model = "llama";
    out.tokens.reserve(entries.size());
    for (size_t id = 0; id < entries.size(); ++id) {
      const std::string& text = entries[id].text;
      int32_t type = kNormal;
      if (id < n_base) {
        type = IsByteToken(text) ? kByte : special[id] ? kControl : kNormal;
      } else {
        type = special_text.contains(text) ? kControl : kUserDefined;
      }
      out.tokens.push_back(text);
      out.token_types.push_back(type);
    }
    out.scores.assign(out.tokens.size(), -1000.0f);
    auto merges = m.find("merges");
    if (merges != m.end() && merges->is_array()) {
      for (size_t i = 0; i < merges->size(); ++i) {
        Expected<std::string> merge = ReadMerge((*merges)[i], i, model_vocab);
        if (!merge.ok()) return merge.status();
        out.merges.push_back(std::move(merge).value());
      }
    }
    ReadSpecials(*root, config, entries, &out);
    return out;
  } catch (const Json::exception& e) {
    return Error(ErrorCode::kCorrupt, "tokenizer.json: {}", e.what());
  }
}

}  // namespace trit::tokenizer
