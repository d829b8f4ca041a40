// config.json, modules.json and the Pooling config, parsed with nlohmann's
// DOM after a nesting bound (base/json_nesting.h); each key checked against
// one table of names and kinds.
#include "convert/hf_config.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "base/check.h"
#include "base/json_nesting.h"

namespace trit::convert {
namespace {

constexpr int kMaxJsonDepth = 64;
constexpr int64_t kMaxInt = (int64_t{1} << 31) - 1;

// The keys of config.json that converters read, and what each must hold.
constexpr HfConfigField kFields[] = {
    {"hidden_size", HfConfigKind::kPositiveInt},
    {"num_hidden_layers", HfConfigKind::kPositiveInt},
    {"num_attention_heads", HfConfigKind::kPositiveInt},
    {"intermediate_size", HfConfigKind::kPositiveInt},
    {"max_position_embeddings", HfConfigKind::kPositiveInt},
    {"type_vocab_size", HfConfigKind::kPositiveInt},
    {"vocab_size", HfConfigKind::kPositiveInt},
    {"layer_norm_eps", HfConfigKind::kPositiveFloat},
    {"hidden_act", HfConfigKind::kString},
    // Decoders (llama, qwen2, qwen3, gemma3). A dotted key is a path into
    // nested objects: transformers 5 writes rope settings under
    // rope_parameters (per layer kind for Gemma 3), 4.x flat or under rope_scaling.
    {"num_key_value_heads", HfConfigKind::kPositiveInt},
    {"head_dim", HfConfigKind::kPositiveInt},
    {"sliding_window", HfConfigKind::kPositiveInt},
    {"sliding_window_pattern", HfConfigKind::kPositiveInt},
    {"rms_norm_eps", HfConfigKind::kPositiveFloat},
    {"rope_theta", HfConfigKind::kPositiveFloat},
    {"rope_local_base_freq", HfConfigKind::kPositiveFloat},
    {"final_logit_softcapping", HfConfigKind::kPositiveFloat},
    {"attn_logit_softcapping", HfConfigKind::kPositiveFloat},
    {"tie_word_embeddings", HfConfigKind::kBool},
    {"rope_parameters.rope_theta", HfConfigKind::kPositiveFloat},
    {"rope_parameters.rope_type", HfConfigKind::kString},
    {"rope_parameters.factor", HfConfigKind::kPositiveFloat},
    {"rope_parameters.full_attention.rope_theta", HfConfigKind::kPositiveFloat},
    {"rope_parameters.full_attention.rope_type", HfConfigKind::kString},
    {"rope_parameters.full_attention.factor", HfConfigKind::kPositiveFloat},
    {"rope_parameters.sliding_attention.rope_theta", HfConfigKind::kPositiveFloat},
    {"rope_scaling.rope_type", HfConfigKind::kString},
    {"rope_scaling.type", HfConfigKind::kString},
    {"rope_scaling.factor", HfConfigKind::kPositiveFloat},
    // YaRN (TextModel.set_gguf_parameters' rope_type "yarn"), in each place
    // the rope settings can be; original_max_position_embeddings also at the
    // top level, which the converter mirrors into them.
    {"original_max_position_embeddings", HfConfigKind::kPositiveInt},
    {"rope_parameters.original_max_position_embeddings", HfConfigKind::kPositiveInt},
    {"rope_parameters.full_attention.original_max_position_embeddings", HfConfigKind::kPositiveInt},
    {"rope_scaling.original_max_position_embeddings", HfConfigKind::kPositiveInt},
    {"rope_parameters.beta_fast", HfConfigKind::kPositiveFloat},
    {"rope_parameters.full_attention.beta_fast", HfConfigKind::kPositiveFloat},
    {"rope_scaling.beta_fast", HfConfigKind::kPositiveFloat},
    {"rope_parameters.beta_slow", HfConfigKind::kPositiveFloat},
    {"rope_parameters.full_attention.beta_slow", HfConfigKind::kPositiveFloat},
    {"rope_scaling.beta_slow", HfConfigKind::kPositiveFloat},
    {"rope_parameters.extrapolation_factor", HfConfigKind::kPositiveFloat},
    {"rope_parameters.full_attention.extrapolation_factor", HfConfigKind::kPositiveFloat},
    {"rope_scaling.extrapolation_factor", HfConfigKind::kPositiveFloat},
    {"rope_parameters.attention_factor", HfConfigKind::kPositiveFloat},
    {"rope_parameters.full_attention.attention_factor", HfConfigKind::kPositiveFloat},
    {"rope_scaling.attention_factor", HfConfigKind::kPositiveFloat},
    {"rope_parameters.attn_factor", HfConfigKind::kPositiveFloat},
    {"rope_parameters.full_attention.attn_factor", HfConfigKind::kPositiveFloat},
    {"rope_scaling.attn_factor", HfConfigKind::kPositiveFloat},
    // Qwen3.5 (Qwen3_5ForCausalLM): the Gated DeltaNet layers' sizes, which
    // layers are linear attention, and the partial, multi-section rope.
    {"linear_conv_kernel_dim", HfConfigKind::kPositiveInt},
    {"linear_key_head_dim", HfConfigKind::kPositiveInt},
    {"linear_value_head_dim", HfConfigKind::kPositiveInt},
    {"linear_num_key_heads", HfConfigKind::kPositiveInt},
    {"linear_num_value_heads", HfConfigKind::kPositiveInt},
    {"full_attention_interval", HfConfigKind::kPositiveInt},
    {"mtp_num_hidden_layers", HfConfigKind::kPositiveInt},
    {"attention_bias", HfConfigKind::kBool},
    {"layer_types", HfConfigKind::kStringList},
    // Gemma 4 (Gemma4TextConfig)
    {"num_kv_shared_layers", HfConfigKind::kCount},
    {"hidden_size_per_layer_input", HfConfigKind::kCount},
    {"vocab_size_per_layer_input", HfConfigKind::kPositiveInt},
    {"global_head_dim", HfConfigKind::kPositiveInt},
    {"num_global_key_value_heads", HfConfigKind::kPositiveInt},
    {"attention_k_eq_v", HfConfigKind::kBool},
    {"use_double_wide_mlp", HfConfigKind::kBool},
    {"enable_moe_block", HfConfigKind::kBool},
    // Mixture of experts (Qwen3MoeConfig; num_local_experts: Mixtral's name)
    {"num_experts", HfConfigKind::kCount},  // 0 in some dense configs
    {"num_local_experts", HfConfigKind::kCount},
    {"num_experts_per_tok", HfConfigKind::kPositiveInt},
    {"moe_intermediate_size", HfConfigKind::kPositiveInt},
    {"decoder_sparse_step", HfConfigKind::kPositiveInt},
    {"mlp_only_layers", HfConfigKind::kIntList},
    // gpt-oss (GptOssConfig): the clamped SwiGLU's constants, and the
    // published checkpoints' MXFP4 experts (quantization_config.quant_method "mxfp4").
    {"swiglu_alpha", HfConfigKind::kPositiveFloat},
    {"swiglu_limit", HfConfigKind::kPositiveFloat},
    {"quantization_config.quant_method", HfConfigKind::kString},
    // BitNet's packed checkpoints (BitNetQuantConfig): which linear class
    // reads weight_scale (bitlinear divides, autobitlinear multiplies), and
    // the options trit has no place for (an RMSNorm inside each BitLinear).
    {"quantization_config.linear_class", HfConfigKind::kString},
    {"quantization_config.quantization_mode", HfConfigKind::kString},
    {"quantization_config.use_rms_norm", HfConfigKind::kBool},
    {"rope_parameters.full_attention.partial_rotary_factor", HfConfigKind::kPositiveFloat},
    {"rope_parameters.sliding_attention.rope_type", HfConfigKind::kString},
    {"rope_parameters.sliding_attention.partial_rotary_factor", HfConfigKind::kPositiveFloat},
    {"partial_rotary_factor", HfConfigKind::kPositiveFloat},
    {"rope_parameters.partial_rotary_factor", HfConfigKind::kPositiveFloat},
    {"rope_parameters.mrope_section", HfConfigKind::kIntList},
    {"rope_scaling.mrope_section", HfConfigKind::kIntList},
    // Special token ids, the fallback SpecialVocab._try_load_from_config_json
    // uses for those tokenizer.json did not give; text_config's (multimodal
    // configs) when the top level has none.
    {"bos_token_id", HfConfigKind::kTokenId},
    {"eos_token_id", HfConfigKind::kTokenId},
    {"unk_token_id", HfConfigKind::kTokenId},
    {"sep_token_id", HfConfigKind::kTokenId},
    {"pad_token_id", HfConfigKind::kTokenId},
    {"cls_token_id", HfConfigKind::kTokenId},
    {"mask_token_id", HfConfigKind::kTokenId},
    {"text_config.bos_token_id", HfConfigKind::kTokenId},
    {"text_config.eos_token_id", HfConfigKind::kTokenId},
    {"text_config.unk_token_id", HfConfigKind::kTokenId},
    {"text_config.sep_token_id", HfConfigKind::kTokenId},
    {"text_config.pad_token_id", HfConfigKind::kTokenId},
    {"text_config.cls_token_id", HfConfigKind::kTokenId},
    {"text_config.mask_token_id", HfConfigKind::kTokenId},
};

// The value at a dotted path of `doc`; nullptr when any step is missing or
// null (config.json writes null for settings that are off).
const nlohmann::json* FindPath(const nlohmann::json& doc, std::string_view path) {
  const nlohmann::json* at = &doc;
  while (true) {
    const size_t dot = path.find('.');
    if (!at->is_object()) return nullptr;
    auto it = at->find(std::string(path.substr(0, dot)));
    if (it == at->end() || it->is_null()) return nullptr;
    at = &*it;
    if (dot == std::string_view::npos) return at;
    path.remove_prefix(dot + 1);
  }
}

const HfConfigField* FindField(std::string_view key) {
  for (const HfConfigField& f : kFields) {
    if (f.key == key) return &f;
  }
  return nullptr;
}

std::string Found(const nlohmann::json& v) {
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    if (s.size() > 60) s = s.substr(0, 60) + "...";
    return fmt::format("the string '{}'", s);
  }
  if (v.is_number()) return v.dump();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_null()) return "null";
  return v.is_array() ? "an array" : "an object";
}

Status Corrupt(std::string message) { return Status(ErrorCode::kCorrupt, std::move(message)); }

// Parses `text` as a JSON object; `what` names it in errors.
Expected<nlohmann::json> ParseObject(std::string_view text, std::string_view what) {
  if (!JsonNestingWithin(text, kMaxJsonDepth)) {
    return Corrupt(fmt::format("{} nests deeper than {} levels", what, kMaxJsonDepth));
  }
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Corrupt(fmt::format("{} is not valid JSON", what));
  if (!doc.is_object()) return Corrupt(fmt::format("{}: expected an object, found {}", what, Found(doc)));
  return doc;
}

bool IsPlainRelativePath(std::string_view path) {
  if (path.find('\\') != std::string_view::npos || path.find('\0') != std::string_view::npos) return false;
  if (!path.empty() && path.front() == '/') return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (path.substr(start, end - start) == "..") return false;
    start = end + 1;
  }
  return true;
}

}  // namespace

std::span<const HfConfigField> HfConfigFields() { return kFields; }

Expected<int64_t> HfModelConfig::Int(std::string_view key) const {
  const HfConfigField* f = FindField(key);
  TRIT_CHECK(f != nullptr && (f->kind == HfConfigKind::kPositiveInt || f->kind == HfConfigKind::kCount ||
                              f->kind == HfConfigKind::kTokenId));
  auto it = ints_.find(key);
  if (it == ints_.end()) return Error(ErrorCode::kNotFound, "config.json has no '{}'", key);
  return it->second;
}

Expected<double> HfModelConfig::Float(std::string_view key) const {
  const HfConfigField* f = FindField(key);
  TRIT_CHECK(f != nullptr && f->kind == HfConfigKind::kPositiveFloat);
  auto it = floats_.find(key);
  if (it == floats_.end()) return Error(ErrorCode::kNotFound, "config.json has no '{}'", key);
  return it->second;
}

Expected<std::string> HfModelConfig::String(std::string_view key) const {
  const HfConfigField* f = FindField(key);
  TRIT_CHECK(f != nullptr && f->kind == HfConfigKind::kString);
  auto it = strings_.find(key);
  if (it == strings_.end()) return Error(ErrorCode::kNotFound, "config.json has no '{}'", key);
  return it->second;
}

Expected<bool> HfModelConfig::Bool(std::string_view key) const {
  const HfConfigField* f = FindField(key);
  TRIT_CHECK(f != nullptr && f->kind == HfConfigKind::kBool);
  auto it = bools_.find(key);
  if (it == bools_.end()) return Error(ErrorCode::kNotFound, "config.json has no '{}'", key);
  return it->second;
}

Expected<std::vector<int64_t>> HfModelConfig::IntList(std::string_view key) const {
  const HfConfigField* f = FindField(key);
  TRIT_CHECK(f != nullptr && f->kind == HfConfigKind::kIntList);
  auto it = int_lists_.find(key);
  if (it == int_lists_.end()) return Error(ErrorCode::kNotFound, "config.json has no '{}'", key);
  return it->second;
}

Expected<std::vector<std::string>> HfModelConfig::StringList(std::string_view key) const {
  const HfConfigField* f = FindField(key);
  TRIT_CHECK(f != nullptr && f->kind == HfConfigKind::kStringList);
  auto it = string_lists_.find(key);
  if (it == string_lists_.end()) return Error(ErrorCode::kNotFound, "config.json has no '{}'", key);
  return it->second;
}

Expected<int64_t> HfModelConfig::PerLayerInt(int64_t layer, std::string_view member) const {
  auto it = per_layer_.find(std::pair<int64_t, std::string>(layer, member));
  if (it == per_layer_.end()) {
    return Error(ErrorCode::kNotFound, "config.json's per_layer_config has no '{}' for layer {}", member, layer);
  }
  return it->second;
}

namespace {

// per_layer_config (text_config's first): layer index -> integer members.
Status ParsePerLayerConfig(const nlohmann::json& doc, std::map<std::pair<int64_t, std::string>, int64_t, std::less<>>* out) {
  std::string where = "text_config.per_layer_config";
  const nlohmann::json* found = FindPath(doc, where);
  if (found == nullptr) {
    where = "per_layer_config";
    found = FindPath(doc, where);
  }
  if (found == nullptr) return Status::Ok();
  if (!found->is_object()) return Corrupt(fmt::format("{}: expected an object, found {}", where, Found(*found)));
  for (auto it = found->begin(); it != found->end(); ++it) {
    const std::string& key = it.key();
    int64_t layer = 0;
    const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), layer);
    if (key.empty() || ec != std::errc() || end != key.data() + key.size() || layer < 0 || layer > kMaxInt) {
      return Corrupt(fmt::format("{}: key '{}' is not a layer index", where, key));
    }
    if (!it.value().is_object()) {
      return Corrupt(fmt::format("{}.{}: expected an object, found {}", where, key, Found(it.value())));
    }
    for (auto m = it.value().begin(); m != it.value().end(); ++m) {
      const nlohmann::json& v = m.value();
      if (!v.is_number_integer()) continue;  // only integer members are read
      const bool ok = v.is_number_unsigned() ? v.get<uint64_t>() >= 1 && v.get<uint64_t>() <= kMaxInt
                                             : v.get<int64_t>() >= 1 && v.get<int64_t>() <= kMaxInt;
      if (!ok) {
        return Corrupt(fmt::format("{}.{}.{}: expected a positive integer below 2^31, found {}", where, key, m.key(),
                                   Found(v)));
      }
      out->emplace(std::pair<int64_t, std::string>(layer, m.key()), v.get<int64_t>());
    }
  }
  return Status::Ok();
}

}  // namespace

Expected<HfModelConfig> ParseHfConfig(std::string_view json_text) {
  Expected<nlohmann::json> doc = ParseObject(json_text, "config.json");
  if (!doc.ok()) return doc.status();
  HfModelConfig config;

  auto archs = doc->find("architectures");
  if (archs == doc->end()) return Corrupt("config.json has no 'architectures' (the model class, e.g. [\"BertModel\"])");
  if (!archs->is_array() || archs->empty() || !(*archs)[0].is_string()) {
    return Corrupt(fmt::format("architectures: expected a non-empty array of strings, found {}", Found(*archs)));
  }
  config.architecture = (*archs)[0].get<std::string>();
  auto model_type = doc->find("model_type");
  if (model_type == doc->end()) return Corrupt("config.json has no 'model_type'");
  if (!model_type->is_string()) {
    return Corrupt(fmt::format("model_type: expected a string, found {}", Found(*model_type)));
  }
  config.model_type = model_type->get<std::string>();

  for (const HfConfigField& f : kFields) {
    // Multimodal checkpoints keep the text model's settings under
    // text_config, which wins over the top level (llama.cpp's TextModel
    // moves it to the root); special ids keep SpecialVocab's order (the top
    // level, then text_config: their own table rows).
    std::string where(f.key);
    const nlohmann::json* found = nullptr;
    if (f.kind != HfConfigKind::kTokenId && !f.key.starts_with("text_config.")) {
      where = fmt::format("text_config.{}", f.key);
      found = FindPath(*doc, where);
    }
    if (found == nullptr) {
      where = std::string(f.key);
      found = FindPath(*doc, f.key);
    }
    if (found == nullptr) continue;
    const nlohmann::json& v = *found;
    switch (f.kind) {
      case HfConfigKind::kPositiveInt: {
        const bool ok = (v.is_number_unsigned() && v.get<uint64_t>() >= 1 && v.get<uint64_t>() <= kMaxInt) ||
                        (v.is_number_integer() && v.get<int64_t>() >= 1 && v.get<int64_t>() <= kMaxInt);
        if (!ok) return Corrupt(fmt::format("{}: expected a positive integer below 2^31, found {}", where, Found(v)));
        config.ints_.emplace(f.key, v.get<int64_t>());
        break;
      }
      case HfConfigKind::kCount: {
        const bool ok = (v.is_number_unsigned() && v.get<uint64_t>() <= kMaxInt) ||
                        (v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() <= kMaxInt);
        if (!ok) return Corrupt(fmt::format("{}: expected an integer in 0..2^31 - 1, found {}", where, Found(v)));
        config.ints_.emplace(f.key, v.get<int64_t>());
        break;
      }
      case HfConfigKind::kPositiveFloat: {
        const bool ok = v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() > 0;
        if (!ok) return Corrupt(fmt::format("{}: expected a finite number > 0, found {}", where, Found(v)));
        config.floats_.emplace(f.key, v.get<double>());
        break;
      }
      case HfConfigKind::kTokenId: {
        if (!v.is_number_integer()) break;  // a list, a string, a float: SpecialVocab skips it
        if (v.is_number_unsigned() ? v.get<uint64_t>() > kMaxInt : (v.get<int64_t>() < 0 || v.get<int64_t>() > kMaxInt)) {
          return Corrupt(fmt::format("{}: expected a token id (0 to 2^31 - 1), found {}", where, Found(v)));
        }
        config.ints_.emplace(f.key, v.get<int64_t>());
        break;
      }
      case HfConfigKind::kString:
        if (!v.is_string()) return Corrupt(fmt::format("{}: expected a string, found {}", where, Found(v)));
        config.strings_.emplace(f.key, v.get<std::string>());
        break;
      case HfConfigKind::kBool:
        if (!v.is_boolean()) return Corrupt(fmt::format("{}: expected true or false, found {}", where, Found(v)));
        config.bools_.emplace(f.key, v.get<bool>());
        break;
      case HfConfigKind::kIntList: {
        if (!v.is_array()) return Corrupt(fmt::format("{}: expected an array of integers, found {}", where, Found(v)));
        std::vector<int64_t> list;
        for (size_t i = 0; i < v.size(); ++i) {
          const nlohmann::json& e = v[i];
          const bool ok = (e.is_number_unsigned() && e.get<uint64_t>() <= kMaxInt) ||
                          (e.is_number_integer() && e.get<int64_t>() >= 0 && e.get<int64_t>() <= kMaxInt);
          if (!ok) {
            return Corrupt(fmt::format("{}[{}]: expected an integer in 0..2^31 - 1, found {}", where, i, Found(e)));
          }
          list.push_back(e.get<int64_t>());
        }
        config.int_lists_.emplace(f.key, std::move(list));
        break;
      }
      case HfConfigKind::kStringList: {
        if (!v.is_array()) return Corrupt(fmt::format("{}: expected an array of strings, found {}", where, Found(v)));
        std::vector<std::string> list;
        for (size_t i = 0; i < v.size(); ++i) {
          if (!v[i].is_string()) {
            return Corrupt(fmt::format("{}[{}]: expected a string, found {}", where, i, Found(v[i])));
          }
          list.push_back(v[i].get<std::string>());
        }
        config.string_lists_.emplace(f.key, std::move(list));
        break;
      }
    }
  }
  if (Status s = ParsePerLayerConfig(*doc, &config.per_layer_); !s.ok()) return s;
  return config;
}

std::string_view PoolingTypeName(PoolingType type) {
  switch (type) {
    case PoolingType::kNone: return "none";
    case PoolingType::kMean: return "mean";
    case PoolingType::kCls: return "cls";
    case PoolingType::kLast: return "last";
  }
  return "?";
}

Expected<std::optional<std::string>> ParsePoolingModulePath(std::string_view modules_json) {
  if (!JsonNestingWithin(modules_json, kMaxJsonDepth)) {
    return Corrupt(fmt::format("modules.json nests deeper than {} levels", kMaxJsonDepth));
  }
  nlohmann::json doc = nlohmann::json::parse(modules_json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Corrupt("modules.json is not valid JSON");
  if (!doc.is_array()) return Corrupt(fmt::format("modules.json: expected an array, found {}", Found(doc)));
  for (size_t i = 0; i < doc.size(); ++i) {
    const nlohmann::json& m = doc[i];
    if (!m.is_object()) return Corrupt(fmt::format("modules.json[{}]: expected an object, found {}", i, Found(m)));
    auto type = m.find("type");
    if (type == m.end() || !type->is_string()) {
      return Corrupt(fmt::format("modules.json[{}].type: expected a string, found {}", i,
                                 type == m.end() ? "nothing" : Found(*type)));
    }
    if (type->get<std::string>() != "sentence_transformers.models.Pooling") continue;
    auto path = m.find("path");
    if (path == m.end() || !path->is_string()) {
      return Corrupt(fmt::format("modules.json[{}].path: expected a string, found {}", i,
                                 path == m.end() ? "nothing" : Found(*path)));
    }
    std::string p = path->get<std::string>();
    if (!IsPlainRelativePath(p)) {
      return Corrupt(fmt::format("modules.json[{}].path: '{}' leaves the model directory (absolute, '..' or '\\')",
                                 i, p));
    }
    return std::optional<std::string>(std::move(p));
  }
  return std::optional<std::string>();
}

Expected<PoolingType> ParsePoolingConfig(std::string_view json_text) {
  Expected<nlohmann::json> doc = ParseObject(json_text, "the pooling config");
  if (!doc.ok()) return doc.status();
  constexpr std::pair<std::string_view, PoolingType> kModes[] = {
      {"pooling_mode_mean_tokens", PoolingType::kMean},
      {"pooling_mode_cls_token", PoolingType::kCls},
      {"pooling_mode_lasttoken", PoolingType::kLast},
  };
  std::optional<PoolingType> chosen;
  for (const auto& [key, type] : kModes) {
    auto it = doc->find(std::string(key));
    if (it == doc->end()) continue;
    if (!it->is_boolean()) return Corrupt(fmt::format("{}: expected true or false, found {}", key, Found(*it)));
    if (it->get<bool>() && !chosen) chosen = type;
  }
  if (!chosen) {
    std::string others;
    for (const auto& [key, v] : doc->items()) {
      if (key.rfind("pooling_mode_", 0) == 0 && v.is_boolean() && v.get<bool>()) {
        others += fmt::format("{}'{}'", others.empty() ? "" : ", ", key);
      }
    }
    return Error(ErrorCode::kUnsupported,
                 "none of pooling_mode_mean_tokens, pooling_mode_cls_token, pooling_mode_lasttoken is true{}: "
                 "GGUF's pooling types are mean, cls and last",
                 others.empty() ? std::string() : fmt::format(" (set: {})", others));
  }
  return *chosen;
}

Expected<std::string> ReadHfTextFile(const std::string& path, uint64_t max_bytes) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return Error(ErrorCode::kNotFound, "{}: no such file", path);
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) return Error(ErrorCode::kIo, "{}: {}", path, ec.message());
  if (size > max_bytes) {
    return Error(ErrorCode::kCorrupt, "{}: {} bytes, larger than the limit of {} bytes", path, size, max_bytes);
  }
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return Error(ErrorCode::kIo, "{}: read failed", path);
  return text;
}

Expected<HfModelConfig> ReadHfConfig(const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / "config.json").string();
  Expected<std::string> text = ReadHfTextFile(path);
  if (!text.ok()) {
    if (text.status().code() == ErrorCode::kNotFound) {
      return Error(ErrorCode::kNotFound, "{}: no such file; a Hugging Face model directory has a config.json", path);
    }
    return text.status();
  }
  Expected<HfModelConfig> config = ParseHfConfig(*text);
  if (!config.ok()) return config.status().WithContext(path);
  return config;
}

Expected<std::optional<PoolingType>> ReadSentenceTransformersPooling(const std::string& dir) {
  const std::filesystem::path root(dir);
  const std::string modules_path = (root / "modules.json").string();
  std::error_code ec;
  if (!std::filesystem::exists(modules_path, ec)) return std::optional<PoolingType>();
  Expected<std::string> modules = ReadHfTextFile(modules_path);
  if (!modules.ok()) return modules.status();
  Expected<std::optional<std::string>> module = ParsePoolingModulePath(*modules);
  if (!module.ok()) return module.status().WithContext(modules_path);
  if (!module->has_value()) return std::optional<PoolingType>();
  const std::string config_path = (root / **module / "config.json").string();
  Expected<std::string> text = ReadHfTextFile(config_path);
  if (!text.ok()) return text.status().WithContext("the Pooling module that modules.json names");
  Expected<PoolingType> type = ParsePoolingConfig(*text);
  if (!type.ok()) return type.status().WithContext(config_path);
  return std::optional<PoolingType>(*type);
}

}  // namespace trit::convert
