#include "model/hparams.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace trit::model {
namespace {

// Sane bounds on sizes read from a file (no fixed capacities, but no
// allocation driven by a hostile number either).
constexpr int64_t kMaxDim = int64_t{1} << 20;
constexpr int64_t kMaxLayers = 4096;

Status CheckRange(const std::string& key, int64_t value, int64_t lo, int64_t hi) {
  if (value < lo || value > hi) {
    return Error(ErrorCode::kCorrupt, "metadata '{}' is {}, expected {}..{}", key, value, lo, hi);
  }
  return Status::Ok();
}

// Reads an integer key into `out`; when absent, an error if `required`, else `*out` (the default) is kept.
Status ReadInt(const gguf::File& file, const std::string& key, int64_t lo, int64_t hi, int64_t* out,
               bool required) {
  if (file.Find(key) == nullptr) {
    if (required) return Error(ErrorCode::kNotFound, "metadata '{}' is missing", key);
    return CheckRange(key, *out, lo, hi);
  }
  Expected<int64_t> v = file.GetInt(key);
  if (!v.ok()) return v.status();
  *out = *v;
  return CheckRange(key, *out, lo, hi);
}

Status ReadFloat(const gguf::File& file, const std::string& key, float* out) {
  if (file.Find(key) == nullptr) return Status::Ok();
  Expected<float> v = file.GetFloat(key);
  if (!v.ok()) return v.status();
  *out = *v;
  return Status::Ok();
}

// llama.cpp's YaRN for `{arch}.rope.scaling.type` = yarn (gpt-oss):
// rope.scaling.yarn_beta_fast and yarn_beta_slow (default 32 and 1), ext_factor 1, and attention factor
// rope.scaling.attn_factor (default 1) times the magnitude correction
// 1 + 0.1 ln(factor) that ggml's rope_yarn applies. DeepSeek's
// yarn_log_multiplier form is refused.
Status ReadYarn(const gguf::File& file, const std::string& p, HParams& h) {
  float log_mul = 0.0f;
  if (Status s = ReadFloat(file, p + "rope.scaling.yarn_log_multiplier", &log_mul); !s.ok()) return s;
  if (log_mul != 0.0f) {
    return Error(ErrorCode::kUnsupported, "metadata '{}rope.scaling.yarn_log_multiplier' is {}: that YaRN form is not "
                 "supported yet", p, log_mul);
  }
  int64_t n_ctx_orig = h.n_ctx_train;
  if (Status s = ReadInt(file, p + "rope.scaling.original_context_length", 1, int64_t{1} << 24, &n_ctx_orig, false);
      !s.ok()) {
    return s;
  }
  float attn_factor = 1.0f, beta_fast = 32.0f, beta_slow = 1.0f;
  if (Status s = ReadPositiveFloatKey(file, p + "rope.scaling.attn_factor", &attn_factor); !s.ok()) return s;
  if (Status s = ReadPositiveFloatKey(file, p + "rope.scaling.yarn_beta_fast", &beta_fast); !s.ok()) return s;
  if (Status s = ReadPositiveFloatKey(file, p + "rope.scaling.yarn_beta_slow", &beta_slow); !s.ok()) return s;
  if (h.rope.freq_scale < 1.0f) {
    h.rope.yarn_ext_factor = 1.0f;
    kernels::YarnCorrDims(h.rope.n_rot, n_ctx_orig, h.rope.freq_base, beta_fast, beta_slow, &h.rope.yarn_low,
                          &h.rope.yarn_high);
    h.rope.mscale = attn_factor * (1.0f + 0.1f * std::log(1.0f / h.rope.freq_scale));
  } else {
    h.rope.mscale = attn_factor;
  }
  return Status::Ok();
}

// Element i of an integer array, widened; false when the elements are not integers.
bool ArrayInt(const gguf::Array& a, size_t i, int64_t* out) {
  switch (a.element_type) {
    case gguf::ValueType::kUint8: *out = a.At<uint8_t>(i); return true;
    case gguf::ValueType::kInt8: *out = a.At<int8_t>(i); return true;
    case gguf::ValueType::kUint16: *out = a.At<uint16_t>(i); return true;
    case gguf::ValueType::kInt16: *out = a.At<int16_t>(i); return true;
    case gguf::ValueType::kUint32: *out = a.At<uint32_t>(i); return true;
    case gguf::ValueType::kInt32: *out = a.At<int32_t>(i); return true;
    case gguf::ValueType::kInt64: *out = a.At<int64_t>(i); return true;
    case gguf::ValueType::kUint64: {
      const uint64_t v = a.At<uint64_t>(i);
      *out = v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(v);
      return true;
    }
    default: return false;
  }
}

std::optional<int32_t> ReadTokenId(const gguf::File& file, const std::string& key, int64_t n_vocab) {
  Expected<int64_t> v = file.GetInt(key);
  if (!v.ok() || *v < 0 || *v >= n_vocab) return std::nullopt;
  return static_cast<int32_t>(*v);
}

}  // namespace

Expected<HParams> ReadHParams(const gguf::File& file, const std::string& arch, kernels::RopeMode rope_mode) {
  HParams h;
  h.architecture = arch;
  const std::string p = arch + ".";
  const gguf::TensorInfo* embd = file.FindTensor("token_embd.weight");
  if (embd == nullptr) return Error(ErrorCode::kNotFound, "tensor 'token_embd.weight' not found (architecture '{}')", arch);
  if (embd->shape.size() != 2) {
    return Error(ErrorCode::kCorrupt, "tensor 'token_embd.weight' has {} dimensions, expected 2", embd->shape.size());
  }
  h.n_vocab = embd->shape[1];
  if (Status s = CheckRange("vocabulary (token_embd.weight rows)", h.n_vocab, 1, int64_t{1} << 24); !s.ok()) return s;
  if (Status s = ReadInt(file, p + "embedding_length", 1, kMaxDim, &h.n_embd, true); !s.ok()) return s;
  if (Status s = ReadInt(file, p + "block_count", 1, kMaxLayers, &h.n_layer, true); !s.ok()) return s;
  if (Status s = ReadInt(file, p + "attention.head_count", 1, kMaxDim, &h.n_head, true); !s.ok()) return s;
  h.layer_n_head_kv.assign(static_cast<size_t>(h.n_layer), h.n_head);
  if (Status s = ReadLayerInts(file, p + "attention.head_count_kv", h.n_layer, 1, h.n_head, &h.layer_n_head_kv, false);
      !s.ok()) {
    return s;
  }
  for (const int64_t n_kv : h.layer_n_head_kv) {
    if (h.n_head % n_kv != 0) {
      return Error(ErrorCode::kCorrupt,
                   "metadata '{}attention.head_count' ({}) is not a multiple of head_count_kv ({})", p, h.n_head, n_kv);
    }
  }
  h.n_head_kv = *std::ranges::max_element(h.layer_n_head_kv);
  h.head_dim = h.n_embd / h.n_head;
  if (Status s = ReadInt(file, p + "attention.key_length", 1, kMaxDim, &h.head_dim, false); !s.ok()) return s;
  int64_t value_length = h.head_dim;
  if (Status s = ReadInt(file, p + "attention.value_length", 1, kMaxDim, &value_length, false); !s.ok()) return s;
  if (value_length != h.head_dim) {
    return Error(ErrorCode::kUnsupported, "metadata '{}attention.value_length' is {}, expected key_length {}", p,
                 value_length, h.head_dim);
  }
  if (Status s = ReadLayerInts(file, p + "feed_forward_length", h.n_layer, 1, kMaxDim * 8, &h.layer_n_ff, true);
      !s.ok()) {
    return s;
  }
  h.n_ff = *std::ranges::max_element(h.layer_n_ff);
  if (Status s = ReadInt(file, p + "context_length", 1, int64_t{1} << 24, &h.n_ctx_train, true); !s.ok()) return s;
  if (Status s = ReadFloat(file, p + "attention.layer_norm_rms_epsilon", &h.rms_eps); !s.ok()) return s;
  if (!(h.rms_eps > 0.0f && h.rms_eps < 1.0f)) {
    return Error(ErrorCode::kCorrupt, "metadata '{}attention.layer_norm_rms_epsilon' is {}, expected (0, 1)", p, h.rms_eps);
  }
  h.rope.mode = rope_mode;
  h.rope.n_rot = h.head_dim;
  if (Status s = ReadInt(file, p + "rope.dimension_count", 2, h.head_dim, &h.rope.n_rot, false); !s.ok()) return s;
  if (h.rope.n_rot % 2 != 0) {
    return Error(ErrorCode::kCorrupt, "metadata '{}rope.dimension_count' is {}, expected an even number", p, h.rope.n_rot);
  }
  if (Status s = ReadFloat(file, p + "rope.freq_base", &h.rope.freq_base); !s.ok()) return s;
  if (!(h.rope.freq_base > 1.0f)) {
    return Error(ErrorCode::kCorrupt, "metadata '{}rope.freq_base' is {}, expected > 1", p, h.rope.freq_base);
  }
  std::string scaling = "linear";
  if (file.Find(p + "rope.scaling.type") != nullptr) {
    Expected<std::string> type = file.GetString(p + "rope.scaling.type");
    if (!type.ok()) return type.status();
    if (*type != "none" && *type != "linear" && *type != "yarn") {
      return Error(ErrorCode::kUnsupported, "metadata '{}rope.scaling.type' is '{}', expected none, linear or yarn", p,
                   *type);
    }
    scaling = *type;
  }
  float factor = 0.0f;
  if (Status s = ReadFloat(file, p + "rope.scaling.factor", &factor); !s.ok()) return s;
  if (factor != 0.0f && scaling != "none") {
    if (!(factor > 0.0f)) {
      return Error(ErrorCode::kCorrupt, "metadata '{}rope.scaling.factor' is {}, expected > 0", p, factor);
    }
    h.rope.freq_scale = 1.0f / factor;
  }
  if (scaling == "yarn") {
    if (Status s = ReadYarn(file, p, h); !s.ok()) return s;
  }
  h.attn_scale = 1.0f / std::sqrt(static_cast<float>(h.head_dim));
  h.rope_swa = h.rope;
  h.swa_layers.assign(static_cast<size_t>(h.n_layer), 0);
  h.bos_id = ReadTokenId(file, "tokenizer.ggml.bos_token_id", h.n_vocab);
  h.eos_id = ReadTokenId(file, "tokenizer.ggml.eos_token_id", h.n_vocab);
  return h;
}

Status ReadIntKey(const gguf::File& file, const std::string& key, int64_t lo, int64_t hi, int64_t* out,
                  bool required) {
  return ReadInt(file, key, lo, hi, out, required);
}

Status ReadLayerInts(const gguf::File& file, const std::string& key, int64_t n_layer, int64_t lo, int64_t hi,
                     std::vector<int64_t>* out, bool required) {
  const gguf::Value* value = file.Find(key);
  if (value == nullptr) {
    if (required) return Error(ErrorCode::kNotFound, "metadata '{}' is missing", key);
    return Status::Ok();
  }
  const gguf::Array* array = value->get_if<gguf::Array>();
  if (array == nullptr) {
    int64_t v = 0;
    if (Status s = ReadInt(file, key, lo, hi, &v, true); !s.ok()) return s;
    out->assign(static_cast<size_t>(n_layer), v);
    return Status::Ok();
  }
  if (static_cast<int64_t>(array->size()) != n_layer) {
    return Error(ErrorCode::kCorrupt, "metadata '{}' has {} entries, expected one per layer ({})", key, array->size(),
                 n_layer);
  }
  out->assign(static_cast<size_t>(n_layer), 0);
  for (size_t i = 0; i < array->size(); ++i) {
    int64_t v = 0;
    if (!ArrayInt(*array, i, &v)) {
      return Error(ErrorCode::kCorrupt, "metadata '{}' is an array of {}, expected integers", key,
                   gguf::ValueTypeName(array->element_type));
    }
    if (v < lo || v > hi) {
      return Error(ErrorCode::kCorrupt, "metadata '{}' entry {} is {}, expected {}..{}", key, i, v, lo, hi);
    }
    (*out)[i] = v;
  }
  return Status::Ok();
}

Status ReadPositiveFloatKey(const gguf::File& file, const std::string& key, float* out) {
  if (file.Find(key) == nullptr) return Status::Ok();
  if (Status s = ReadFloat(file, key, out); !s.ok()) return s;
  if (!(*out > 0.0f) || !std::isfinite(*out)) {
    return Error(ErrorCode::kCorrupt, "metadata '{}' is {}, expected > 0", key, *out);
  }
  return Status::Ok();
}

std::vector<uint8_t> SwaLayerPattern(int64_t n_layer, int64_t period) {
  std::vector<uint8_t> swa(static_cast<size_t>(n_layer));
  for (int64_t il = 0; il < n_layer; ++il) swa[static_cast<size_t>(il)] = il % period < period - 1 ? 1 : 0;
  return swa;
}

}  // namespace trit::model
