// Architecture 'gpt-oss' (OpenAI's gpt-oss-20b and -120b; llama.cpp's
// LLM_ARCH_OPENAI_MOE), as llama.cpp runs it:
//   - attention with biases on q, k, v and the output, a learned sink logit
//     per query head (blk.N.attn_sinks), neox rope with YaRN (the files'
//     rope.scaling.type yarn, factor 32 over 4096 positions), and every
//     other layer local: layers with il % 2 == 0 see the last
//     gpt-oss.attention.sliding_window keys (llama.cpp's swa pattern 2);
//   - the feed-forward input norm named post_attention_norm;
//   - in every layer a mixture of experts (model/moe.h) with a biased router:
//     the top expert_used_count logits, a softmax over just those
//     (kSoftmaxWeight, not renormalised), biased experts and the clamped
//     swiglu_oai activation.
#include "model/architecture.h"
#include "model/decoder.h"
#include "model/moe.h"

namespace trit::model {
namespace {

Expected<std::unique_ptr<Model>> LoadGptOss(gguf::File file, const LoadOptions& load) {
  TRIT_ASSIGN_OR_RETURN(HParams h, ReadHParams(file, "gpt-oss", kernels::RopeMode::kNeox));
  TRIT_RETURN_IF_ERROR(ReadMoeHParams(file, h));
  TRIT_RETURN_IF_ERROR(ReadIntKey(file, "gpt-oss.attention.sliding_window", 1, int64_t{1} << 24, &h.n_swa, true));
  h.swa_layers = SwaLayerPattern(h.n_layer, 2);
  h.rope_swa = h.rope;
  TRIT_RETURN_IF_ERROR(ReadPositiveFloatKey(file, "gpt-oss.rope.freq_base_swa", &h.rope_swa.freq_base));
  DecoderOptions options;
  options.qkv_bias = true;
  options.out_bias = true;
  options.attn_sinks = true;
  options.ffn_norm_name = "post_attention_norm.weight";
  options.moe = true;
  options.moe_options = {.gating = MoeGating::kSoftmaxWeight,
                         .normalize_weights = false,
                         .activation = MoeActivation::kSwiGluOai,
                         .biases = true};
  return BuildDecoder(std::move(file), std::move(h), options, load);
}

}  // namespace

const Architecture& GptOssArchitecture() {
  static const Architecture kArchitecture{"gpt-oss", &LoadGptOss};
  return kArchitecture;
}

}  // namespace trit::model
