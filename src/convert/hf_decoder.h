// What llama.cpp's converter does alike for the Llama-shaped decoders
// (llama, qwen2, qwen3, gemma3): the tensor table of a pre-norm block with
// grouped-query attention and a gated MLP, and the "<arch>.*" keys
// TextModel.set_gguf_parameters writes. Each architecture file (hf_llama.cpp,
// hf_qwen.cpp, hf_gemma3.cpp) says which variant it is and adds its own keys.
// Facts from llama.cpp's conversion/base.py (TextModel), llama.py, qwen.py,
// gemma.py and gguf-py's tensor_mapping.py.
#pragma once

#include <string>
#include <string_view>

#include "convert/hf_architecture.h"

namespace trit::convert {

struct HfDecoderVariant {
  bool qkv_bias = false;       // qwen2: q/k/v projections have biases
  bool qk_norm = false;        // qwen3, gemma3: per-head RMSNorm of q and k (attn_q_norm, attn_k_norm)
  bool sandwich_norms = false; // gemma3: post_attention_norm, ffn_norm (pre-FFN), post_ffw_norm
  bool permute_qk = false;     // llama: LlamaModel.permute of q_proj and k_proj
  bool norm_plus_one = false;  // gemma3: every *norm.weight stored as 1 + w
  // qwen3moe: every layer's MLP a mixture of experts: mlp.gate (the router,
  // ffn_gate_inp) and mlp.experts.E.{gate,up,down}_proj stacked into
  // ffn_{gate,up,down}_exps (Qwen2MoeModel.modify_tensors).
  bool moe = false;
};

// The hyper-parameters the table and the common keys need, each required
// by name unless a default is given (Gemma 3's converter has defaults).
struct HfDecoderDims {
  int64_t n_vocab = 0, n_embd = 0, n_ff = 0, n_layer = 0, n_ctx = 0, n_head = 0, n_head_kv = 0, head_dim = 0;
  bool has_head_kv = false;   // num_key_value_heads present: head_count_kv written
  bool has_head_dim = false;  // head_dim present: key_length / value_length written
  bool tied = false;          // tie_word_embeddings: no output.weight
  // Mixture of experts (HfDecoderVariant::moe only): num_experts (or
  // num_local_experts), num_experts_per_tok, moe_intermediate_size.
  int64_t n_expert = 0, n_expert_used = 0, n_ff_exp = 0;
};

// The expert counts of a mixture-of-experts config into d, each required by
// name; refuses a config whose layers are not all sparse (decoder_sparse_step
// other than 1, or mlp_only_layers), which llama.cpp's qwen3moe cannot run.
Status ReadMoeDims(const HfModelConfig& config, HfDecoderDims* d);
struct HfDecoderDefaults {
  std::optional<int64_t> n_ctx, n_head, n_head_kv, head_dim;
  // tie_word_embeddings when config.json has none: the config class's
  // default (BitNetConfig: false); nullopt: PretrainedConfig's, true.
  std::optional<bool> tied = std::nullopt;
};
Expected<HfDecoderDims> ReadDecoderDims(const HfModelConfig& config, const HfDecoderDefaults& defaults = {});

// The checkpoint's tensors as the GGUF names them (model.layers.N.* -> blk.N.*).
Expected<std::vector<HfTensorSpec>> DecoderTensors(const HfModelInfo& info, const HfDecoderVariant& variant,
                                                   const HfDecoderDefaults& defaults = {});

// A multimodal checkpoint's text model (Qwen3_5ForConditionalGeneration,
// Gemma4ForConditionalGeneration) is model.language_model.*: read as model.*.
std::string TextModelName(std::string_view name);

// "rotary_emb.inv_freq" (a buffer) and, for tied models, "lm_head.weight".
std::optional<std::string_view> DecoderDropped(std::string_view name);

// The keys TextModel.set_gguf_parameters writes from config.json: block,
// context, embedding and feed-forward lengths, head counts, rope freq base
// (and the sliding layers' one), rms epsilon, key/value length when
// head_dim is given, and linear or YaRN rope scaling (YaRN with its
// original context and whichever of its factors config.json gives; other
// rope types are refused by name: llama3 needs tensors trit does not write yet).
Status WriteDecoderMetadata(std::string_view arch, const HfDecoderDims& dims, const HfModelConfig& config,
                            gguf::Writer& writer);

}  // namespace trit::convert

namespace trit::convert {

const HfArchitecture& LlamaArchitecture();   // hf_llama.cpp
const HfArchitecture& Qwen2Architecture();   // hf_qwen.cpp
const HfArchitecture& Qwen3Architecture();   // hf_qwen.cpp
const HfArchitecture& Qwen3MoeArchitecture();  // hf_qwen.cpp
const HfArchitecture& Gemma3Architecture();  // hf_gemma3.cpp
const HfArchitecture& Qwen35Architecture();  // hf_qwen35.cpp
const HfArchitecture& Gemma4Architecture();  // hf_gemma4.cpp
const HfArchitecture& GptOssArchitecture();  // hf_gpt_oss.cpp
const HfArchitecture& BitnetArchitecture();  // hf_bitnet.cpp

}  // namespace trit::convert
