// Architecture 'gemma3' (text), as llama.cpp runs it: gemma2's block (scaled
// embeddings, post-norms, GeGLU, neox rope, logits from token_embd, norms as
// stored) plus per-head RMS norms on q and k before rope, and no
// soft-capping. Five of every six layers are local (llama.cpp's swa pattern
// 6: layer il is local when il % 6 < 5): they use the sliding window
// (gemma3.attention.sliding_window, required) and rope with freq base 10000
// and no scaling; the global layers use gemma3.rope.freq_base and the
// file's linear rope scaling. The query scale is 1/sqrt(head_dim), except for
// the 27B model (62 layers): 1/sqrt(n_embd / n_head).
#include <cmath>

#include "model/architecture.h"
#include "model/decoder.h"

namespace trit::model {
namespace {

Expected<std::unique_ptr<Model>> LoadGemma3(gguf::File file, const LoadOptions& load) {
  Expected<HParams> h = ReadHParams(file, "gemma3", kernels::RopeMode::kNeox);
  if (!h.ok()) return h.status();
  h->embd_scale = std::sqrt(static_cast<float>(h->n_embd));
  if (Status s = ReadIntKey(file, "gemma3.attention.sliding_window", 1, int64_t{1} << 24, &h->n_swa, true);
      !s.ok()) {
    return s;
  }
  h->swa_layers = SwaLayerPattern(h->n_layer, 6);
  h->rope_swa = h->rope;
  h->rope_swa.freq_base = 10000.0f;
  h->rope_swa.freq_scale = 1.0f;
  if (h->n_layer == 62) h->attn_scale = 1.0f / std::sqrt(static_cast<float>(h->n_embd / h->n_head));
  DecoderOptions options;
  options.qk_norm = true;
  options.post_norms = true;
  options.embd_output = true;
  options.ffn_activation = FfnActivation::kGelu;
  return BuildDecoder(std::move(file), std::move(*h), options, load);
}

}  // namespace

const Architecture& Gemma3Architecture() {
  static const Architecture kArchitecture{"gemma3", &LoadGemma3};
  return kArchitecture;
}

}  // namespace trit::model
