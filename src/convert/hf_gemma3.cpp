// Gemma3ForCausalLM (text only) as llama.cpp's Gemma3Model writes it: every
// *norm.weight stored as 1 + w (Gemma3RMSNorm multiplies by 1 + weight),
// sandwich norms, q/k norms, tied embeddings, and its own defaults for keys
// a config may omit (context 131072, 8 heads, 4 kv heads, head_dim 256),
// plus attention.sliding_window and final_logit_softcapping when set.
// The vocabulary: tokenizer.model (SentencePiece) with add_space_prefix false.
#include "convert/hf_decoder.h"

namespace trit::convert {
namespace {

constexpr std::string_view kHfNames[] = {"Gemma3ForCausalLM"};
constexpr HfDecoderVariant kVariant = {.qk_norm = true, .sandwich_norms = true, .norm_plus_one = true};
const HfDecoderDefaults kDefaults = {.n_ctx = 131072, .n_head = 8, .n_head_kv = 4, .head_dim = 256};

std::string NormalizeName(std::string_view name) { return std::string(name); }

Expected<std::vector<HfTensorSpec>> Tensors(const HfModelInfo& info) {
  return DecoderTensors(info, kVariant, kDefaults);
}

Status WriteMetadata(const HfModelInfo& info, gguf::Writer& w) {
  const HfModelConfig& c = info.config;
  if (c.Float("attn_logit_softcapping").ok()) {
    return Error(ErrorCode::kUnsupported, "config.json: attn_logit_softcapping is set; Gemma 3 has none (llama.cpp "
                                          "refuses it too)");
  }
  Expected<HfDecoderDims> d = ReadDecoderDims(c, kDefaults);
  if (!d.ok()) return d.status();
  if (Status s = WriteDecoderMetadata("gemma3", *d, c, w); !s.ok()) return s;
  if (Expected<double> cap = c.Float("final_logit_softcapping"); cap.ok()) {
    if (Status s = w.SetMetadata("gemma3.final_logit_softcapping", gguf::Value(static_cast<float>(*cap))); !s.ok()) {
      return s;
    }
  }
  // Written unless every layer is global (sliding_window_pattern 1).
  Expected<int64_t> pattern = c.Int("sliding_window_pattern");
  if (!pattern.ok() || *pattern != 1) {
    Expected<int64_t> window = c.Int("sliding_window");
    if (!window.ok()) return window.status();
    return w.SetMetadata("gemma3.attention.sliding_window", gguf::Value(static_cast<uint32_t>(*window)));
  }
  return Status::Ok();
}

}  // namespace

const HfArchitecture& Gemma3Architecture() {
  static const HfArchitecture kGemma3 = {
      .gguf_arch = "gemma3",
      .hf_names = kHfNames,
      .normalize_name = NormalizeName,
      .dropped = DecoderDropped,
      .tensors = Tensors,
      .write_metadata = WriteMetadata,
      .vocab_source = HfVocabSource::kSentencePieceFirst,
      .spm_no_space_prefix = true,
  };
  return kGemma3;
}

}  // namespace trit::convert
