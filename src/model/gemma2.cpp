// Architecture 'gemma2', as llama.cpp runs it: gemma (embeddings scaled by
// sqrt(n_embd), GeGLU, neox rope, logits from token_embd, norms as stored)
// plus an RMSNorm after each block (post_attention_norm, post_ffw_norm),
// soft-capped attention scores (gemma2.attn_logit_softcapping, default 50)
// and logits (gemma2.final_logit_softcapping, default 30), and a sliding
// window (gemma2.attention.sliding_window, default 4096) on the even layers
// (llama.cpp's swa pattern 2). The query scale is 1/sqrt(head_dim), except
// for the 27B model (46 layers), where llama.cpp uses
// 1/sqrt(n_embd / n_head) (Gemma's query_pre_attn_scalar; llama.cpp does not
// read that key, it derives the value from the model size).
#include <cmath>

#include "model/architecture.h"
#include "model/decoder.h"

namespace trit::model {
namespace {

Expected<std::unique_ptr<Model>> LoadGemma2(gguf::File file, const LoadOptions& load) {
  Expected<HParams> h = ReadHParams(file, "gemma2", kernels::RopeMode::kNeox);
  if (!h.ok()) return h.status();
  h->embd_scale = std::sqrt(static_cast<float>(h->n_embd));
  h->attn_softcap = 50.0f;
  h->final_softcap = 30.0f;
  if (Status s = ReadPositiveFloatKey(file, "gemma2.attn_logit_softcapping", &h->attn_softcap); !s.ok()) return s;
  if (Status s = ReadPositiveFloatKey(file, "gemma2.final_logit_softcapping", &h->final_softcap); !s.ok()) return s;
  h->n_swa = 4096;
  if (Status s = ReadIntKey(file, "gemma2.attention.sliding_window", 1, int64_t{1} << 24, &h->n_swa, false);
      !s.ok()) {
    return s;
  }
  h->swa_layers = SwaLayerPattern(h->n_layer, 2);
  if (h->n_layer == 46) h->attn_scale = 1.0f / std::sqrt(static_cast<float>(h->n_embd / h->n_head));
  DecoderOptions options;
  options.post_norms = true;
  options.embd_output = true;
  options.ffn_activation = FfnActivation::kGelu;
  return BuildDecoder(std::move(file), std::move(*h), options, load);
}

}  // namespace

const Architecture& Gemma2Architecture() {
  static const Architecture kArchitecture{"gemma2", &LoadGemma2};
  return kArchitecture;
}

}  // namespace trit::model
