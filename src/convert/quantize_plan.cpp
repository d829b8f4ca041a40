#include "convert/quantize_plan.h"

#include <array>
#include <string_view>

namespace trit::convert {
namespace {

using quant::GgmlType;

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Weight matrices that llama-quantize leaves in their original type.
bool MustStayPrecise(std::string_view name) {
  static constexpr std::array<std::string_view, 6> kKeep = {
      "ffn_gate_inp.weight",  // mixture-of-experts router
      "pos_embd",             // learned position embeddings
      "token_types",          // BERT token-type embeddings
      "ssm_conv1d",           // state-space convolution kernels
      "time_mix_first",       // RWKV
      "attn_rel_b",           // relative attention bias
  };
  for (std::string_view k : kKeep) {
    if (name.find(k) != std::string_view::npos) return true;
  }
  return false;
}

// llama-quantize's substitute when the row length does not fit the block size.
GgmlType FallbackFor(GgmlType requested) {
  switch (requested) {
    case GgmlType::kTQ1_0:
    case GgmlType::kTQ2_0: return GgmlType::kQ4_0;
    case GgmlType::kQ2_K:
    case GgmlType::kQ3_K:
    case GgmlType::kQ4_K: return GgmlType::kQ5_0;
    case GgmlType::kQ5_K: return GgmlType::kQ5_1;
    case GgmlType::kQ6_K: return GgmlType::kQ8_0;
    case GgmlType::kIQ4_XS: return GgmlType::kIQ4_NL;
    default: return GgmlType::kF16;
  }
}

bool RowFits(const gguf::TensorInfo& t, const quant::TypeInfo& type) {
  return !t.shape.empty() && t.shape[0] % type.block_size == 0;
}

}  // namespace

bool IsQuantizeTarget(const quant::TypeInfo& type) {
  return type.quantize != nullptr || type.type == GgmlType::kI2_S;
}

bool IsBlockTernary(GgmlType type) { return type == GgmlType::kTQ1_0 || type == GgmlType::kTQ2_0; }

int EffectiveDims(const std::vector<int64_t>& shape) {
  int n = 1;
  for (size_t i = 1; i < shape.size(); ++i) {
    if (shape[i] > 1) n = static_cast<int>(i) + 1;
  }
  return n;
}

Expected<std::vector<TensorPlan>> PlanQuantization(const std::vector<gguf::TensorInfo>& tensors,
                                                   const quant::TypeInfo& requested, FallbackPolicy policy) {
  std::vector<TensorPlan> plans;
  plans.reserve(tensors.size());
  // From a BitNet I2_S file to tq1_0/tq2_0, the ternary matrices convert
  // exactly (quantize_file.cpp), and the embeddings are kept so that the
  // result is the same model, not one with a ternary embedding.
  bool has_i2s = false;
  for (const gguf::TensorInfo& t : tensors) has_i2s |= t.type->type == GgmlType::kI2_S;
  const bool i2s_to_ternary = has_i2s && IsBlockTernary(requested.type);
  for (const gguf::TensorInfo& t : tensors) {
    TensorPlan p;
    p.tensor = &t;
    p.target = t.type;
    if (!EndsWith(t.name, "weight") || EffectiveDims(t.shape) < 2) {
      p.reason = "not a weight matrix";
      plans.push_back(p);
      continue;
    }
    if (MustStayPrecise(t.name)) {
      p.reason = "kept precise, as llama-quantize does";
      plans.push_back(p);
      continue;
    }
    const bool i2s = requested.type == GgmlType::kI2_S;
    const bool embedding = t.name == "token_embd.weight" || t.name == "output.weight";
    if (i2s_to_ternary && embedding) {
      p.reason = "kept: the ternary types carry the i2_s file's matrices exactly, and its embeddings as they are";
      plans.push_back(p);
      continue;
    }
    if (i2s && embedding) {
      p.reason = "kept: i2_s holds one scale per tensor, which embedding rows do not apply (bitnet.cpp keeps them too)";
      plans.push_back(p);
      continue;
    }
    if (i2s && EffectiveDims(t.shape) > 2) {
      p.reason = "kept: trit reads i2_s for 2-D matrices only";
      plans.push_back(p);
      continue;
    }
    const quant::TypeInfo* target = &requested;
    if (!RowFits(t, *target)) {
      if (policy == FallbackPolicy::kRefuse) {
        return Error(ErrorCode::kInvalidArgument,
                     "tensor '{}': row length {} is not a multiple of {}'s block size {} "
                     "(drop --strict to fall back to a compatible type as llama-quantize does)",
                     t.name, t.shape[0], requested.name, requested.block_size);
      }
      const quant::TypeInfo* fallback = &quant::GetType(FallbackFor(requested.type));
      if (!RowFits(t, *fallback)) fallback = &quant::GetType(GgmlType::kF16);
      p.fallback = true;
      p.reason = fmt::format("row length {} is not a multiple of {} (block size {})", t.shape[0], requested.name,
                             requested.block_size);
      target = fallback;
    }
    p.target = target;
    if (target->type == t.type->type) {
      p.action = TensorAction::kCopy;
      if (p.reason.empty()) p.reason = "already this type";
    } else {
      // I2_S has no row dequantizer or quantizer (its scale is the
      // tensor's): quantize_file.cpp converts it whole.
      const bool whole_i2s = t.type->type == GgmlType::kI2_S;
      if (t.type->dequantize == nullptr && !whole_i2s) {
        return Error(ErrorCode::kUnsupported, "tensor '{}': cannot convert from type {} (trit has no dequantizer for it)",
                     t.name, t.type->name);
      }
      if (!IsQuantizeTarget(*target)) {
        return Error(ErrorCode::kUnsupported, "tensor '{}': trit has no quantizer for type {}", t.name, target->name);
      }
      p.action = TensorAction::kConvert;
    }
    plans.push_back(p);
  }
  return plans;
}

int LlamaFileType(GgmlType type) {
  switch (type) {
    case GgmlType::kF32: return 0;
    case GgmlType::kF16: return 1;
    case GgmlType::kQ4_0: return 2;
    case GgmlType::kQ4_1: return 3;
    case GgmlType::kQ8_0: return 7;
    case GgmlType::kQ5_0: return 8;
    case GgmlType::kQ5_1: return 9;
    case GgmlType::kQ2_K: return 10;
    case GgmlType::kQ3_K: return 11;  // Q3_K_S: every matrix q3_K
    case GgmlType::kQ4_K: return 14;  // Q4_K_S
    case GgmlType::kQ5_K: return 16;  // Q5_K_S
    case GgmlType::kQ6_K: return 18;
    case GgmlType::kIQ4_NL: return 25;
    case GgmlType::kIQ4_XS: return 30;
    case GgmlType::kBF16: return 32;
    case GgmlType::kTQ1_0: return 36;
    case GgmlType::kTQ2_0: return 37;
    // MOSTLY_MXFP4_MOE: llama-quantize's preset puts experts in mxfp4 and the
    // rest in q8_0, and with --pure (every matrix its default type, as trit
    // quantizes) it writes an all-mxfp4 file under this same number.
    case GgmlType::kMXFP4: return 38;
    case GgmlType::kI2_S: return 40;  // bitnet.cpp's LLAMA_FTYPE_MOSTLY_I2_S
    default: return -1;
  }
}

}  // namespace trit::convert
