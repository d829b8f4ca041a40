// The configuration files of a Hugging Face model directory that `trit
// convert` reads besides the weights and the tokenizer:
//
//   config.json              transformers' hyper-parameters ("architectures",
//                            "model_type", "hidden_size", ...)
//   modules.json             sentence-transformers' module list; its
//   <path>/config.json       Pooling module's config says how token vectors
//                            are pooled into one embedding
//
// Every field is checked by name and type when present; which fields an
// architecture needs is the architecture's business (HfModelConfig::Int
// and friends say "config.json has no 'x'"). JSON stays in the .cpp.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace trit::convert {

// The kind of value a checked key of config.json must hold.
enum class HfConfigKind {
  kPositiveInt,    // an integer in [1, 2^31 - 1]
  kCount,          // an integer in [0, 2^31 - 1] (Gemma 4's num_kv_shared_layers: 0 on the 31B)
  kPositiveFloat,  // a finite number > 0
  kString,
  kBool,
  // A special token id as gguf-py's SpecialVocab reads it from config.json:
  // an integer >= 0 is taken, a negative one refused, any other value
  // ignored (Llama 3.1 writes a list of eos ids; SpecialVocab skips it).
  kTokenId,
  kIntList,     // an array of integers in [0, 2^31 - 1] (mrope_section)
  kStringList,  // an array of strings (layer_types)
};
// A key is a dotted path into nested objects ("rope_parameters.rope_theta").
struct HfConfigField {
  std::string_view key;
  HfConfigKind kind;
};
// The keys of config.json that converters read and ParseHfConfig checks when
// present, with their kinds: the one table behind HfModelConfig's getters
// (the tests and fuzz/hf_config_fuzz.cpp walk it).
std::span<const HfConfigField> HfConfigFields();

// The hyper-parameters of config.json that converters read. Keys outside the
// table (HfConfigFields) are ignored (config.json carries many that only
// training uses); keys inside it are checked when present.
class HfModelConfig {
 public:
  std::string architecture;  // "architectures"[0], e.g. "BertModel"
  std::string model_type;    // e.g. "bert"

  // The value of an integer key of the table (a positive integer below
  // 2^31, or for the *_token_id keys an id >= 0); kNotFound "config.json
  // has no 'key'" when absent (or, for a token id, not an integer). A key
  // that is not in the table's integer rows is a bug (TRIT_CHECK).
  Expected<int64_t> Int(std::string_view key) const;
  // The value of a float key of the table (a finite number > 0).
  Expected<double> Float(std::string_view key) const;
  // The value of a string key of the table.
  Expected<std::string> String(std::string_view key) const;
  // The value of a boolean key of the table.
  Expected<bool> Bool(std::string_view key) const;
  // The value of a list key of the table.
  Expected<std::vector<int64_t>> IntList(std::string_view key) const;
  Expected<std::vector<std::string>> StringList(std::string_view key) const;
  // A dotted key ("rope_parameters.rope_theta") names a member of a nested
  // object; a key whose value (or any parent's) is null counts as absent.

  // Gemma 4's per_layer_config ({"<layer>": {"head_dim": 512, ...}}, where
  // transformers 5 keeps the full-attention layers' sizes): an integer
  // member of one layer's entry; kNotFound when the layer or the member is
  // absent. Integer members are checked as positive integers below 2^31.
  Expected<int64_t> PerLayerInt(int64_t layer, std::string_view member) const;

 private:
  friend Expected<HfModelConfig> ParseHfConfig(std::string_view json_text);
  std::map<std::string, int64_t, std::less<>> ints_;
  std::map<std::string, double, std::less<>> floats_;
  std::map<std::string, std::string, std::less<>> strings_;
  std::map<std::string, bool, std::less<>> bools_;
  std::map<std::string, std::vector<int64_t>, std::less<>> int_lists_;
  std::map<std::string, std::vector<std::string>, std::less<>> string_lists_;
  std::map<std::pair<int64_t, std::string>, int64_t, std::less<>> per_layer_;
};

// Parses config.json's text. Errors are kCorrupt and name the key: not JSON,
// not an object, "architectures" missing or not a non-empty array of
// strings, "model_type" missing or not a string, a table key of the wrong
// type or out of range ("hidden_size: expected a positive integer below
// 2^31, found -3").
Expected<HfModelConfig> ParseHfConfig(std::string_view json_text);

// The pooling of sentence embeddings, as llama.cpp stores it in
// "<arch>.pooling_type" (gguf-py constants.PoolingType).
enum class PoolingType : uint32_t { kNone = 0, kMean = 1, kCls = 2, kLast = 3 };
std::string_view PoolingTypeName(PoolingType type);  // "none", "mean", "cls", "last"

// The "path" of the first module of type "sentence_transformers.models.Pooling"
// in modules.json's text ("1_Pooling"), nullopt when there is none. The path
// must be relative and stay inside the model directory (no "..", no leading
// '/', no '\'); errors are kCorrupt and name the module's index.
Expected<std::optional<std::string>> ParsePoolingModulePath(std::string_view modules_json);

// A sentence-transformers Pooling config.json: the first of
// pooling_mode_mean_tokens, pooling_mode_cls_token, pooling_mode_lasttoken
// that is true, in that order (llama.cpp's converter's order). A missing key
// counts as false; a key present must be a boolean. kUnsupported when none is
// true (max, mean-sqrt-len and weighted-mean pooling have no GGUF pooling type).
Expected<PoolingType> ParsePoolingConfig(std::string_view json_text);

// The text of a small file of a model directory (config files, tokenizer.json),
// at most `max_bytes`. kNotFound naming the path when it is not there.
Expected<std::string> ReadHfTextFile(const std::string& path, uint64_t max_bytes = 256ull << 20);

// ParseHfConfig of dir/config.json; errors are prefixed with the path.
Expected<HfModelConfig> ReadHfConfig(const std::string& dir);

// The pooling that dir/modules.json and the Pooling module's config.json
// say; nullopt when there is no modules.json or it lists no Pooling module.
// Errors are prefixed with the file's path.
Expected<std::optional<PoolingType>> ReadSentenceTransformersPooling(const std::string& dir);

}  // namespace trit::convert
