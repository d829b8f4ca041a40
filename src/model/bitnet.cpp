// Architecture 'bitnet' (llama.cpp's LLM_ARCH_BITNET: BitNet b1.58), as
// llama.cpp runs it: the llama block with an RMSNorm on the attention output
// before Wo (attn_sub_norm, n_embd) and on the gated FFN product before Wd
// (ffn_sub_norm, n_ff); optional per-tensor scales `blk.N.<weight>.scale` (1)
// multiplying each projection's output; SwiGLU; neox rope; no biases;
// logits from token_embd. Weights may be of any type trit dequantizes,
// TQ1_0 and TQ2_0 included. llama.cpp takes the FFN activation from
// bitnet.hidden_activation when present (silu by default; "relu2" is not
// among the names it maps, so it too falls back to silu): trit accepts the
// names that mean silu and refuses others rather than guess.
//
// Architecture 'bitnet-b1.58' (bitnet.cpp's name for BitNet b1.58 2B4T, the
// checkpoint Microsoft ships as I2_S GGUF): the same block with the
// squared-ReLU feed-forward of Hugging Face's BitNetForCausalLM (hidden_act
// "relu2": relu(gate)^2 * up, then ffn_sub_norm), logits from output.weight
// when the file has one and from token_embd otherwise (2B4T ties them).
// I2_S weights (quant/i2s_quants.h) are read by both: their per-tensor scale
// is each projection's output scale.
#include <string>

#include "model/architecture.h"
#include "model/decoder.h"

namespace trit::model {
namespace {

Expected<std::unique_ptr<Model>> LoadBitnet(gguf::File file, const LoadOptions& load) {
  Expected<HParams> h = ReadHParams(file, "bitnet", kernels::RopeMode::kNeox);
  if (!h.ok()) return h.status();
  if (h->q_dim() != h->n_embd) {
    return Error(ErrorCode::kUnsupported, "bitnet: head_count * key_length is {}, expected embedding_length {}",
                 h->q_dim(), h->n_embd);
  }
  if (file.Find("bitnet.hidden_activation") != nullptr) {
    Expected<std::string> act = file.GetString("bitnet.hidden_activation");
    if (!act.ok()) return act.status();
    if (*act != "silu" && *act != "swish" && *act != "swiglu") {
      return Error(ErrorCode::kUnsupported, "metadata 'bitnet.hidden_activation' is '{}', expected silu", *act);
    }
  }
  DecoderOptions options;
  options.sub_norms = true;
  options.weight_scales = true;
  options.embd_output = true;
  options.ffn_activation = FfnActivation::kSilu;
  return BuildDecoder(std::move(file), std::move(*h), options, load);
}

Expected<std::unique_ptr<Model>> LoadBitnetB158(gguf::File file, const LoadOptions& load) {
  Expected<HParams> h = ReadHParams(file, "bitnet-b1.58", kernels::RopeMode::kNeox);
  if (!h.ok()) return h.status();
  if (h->q_dim() != h->n_embd) {
    return Error(ErrorCode::kUnsupported, "bitnet-b1.58: head_count * key_length is {}, expected embedding_length {}",
                 h->q_dim(), h->n_embd);
  }
  DecoderOptions options;
  options.sub_norms = true;
  options.weight_scales = true;
  options.ffn_activation = FfnActivation::kReluSquared;
  return BuildDecoder(std::move(file), std::move(*h), options, load);
}

}  // namespace

const Architecture& BitnetArchitecture() {
  static const Architecture kArchitecture{"bitnet", &LoadBitnet};
  return kArchitecture;
}

const Architecture& BitnetB158Architecture() {
  static const Architecture kArchitecture{"bitnet-b1.58", &LoadBitnetB158};
  return kArchitecture;
}

}  // namespace trit::model
