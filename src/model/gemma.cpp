// Architecture 'gemma' (Gemma 1), as llama.cpp runs it: token embeddings
// scaled by sqrt(n_embd); GeGLU feed-forward (GELU, tanh approximation);
// rope in neox mode; q scaled by 1/sqrt(head_dim), head_dim from
// gemma.attention.key_length when present; logits always from token_embd.
// RMSNorm weights are used as stored: llama.cpp's converter already wrote
// Gemma's (1 + w) into the file.
#include <cmath>

#include "model/architecture.h"
#include "model/decoder.h"

namespace trit::model {
namespace {

Expected<std::unique_ptr<Model>> LoadGemma(gguf::File file, const LoadOptions& load) {
  Expected<HParams> h = ReadHParams(file, "gemma", kernels::RopeMode::kNeox);
  if (!h.ok()) return h.status();
  h->embd_scale = std::sqrt(static_cast<float>(h->n_embd));
  DecoderOptions options;
  options.embd_output = true;
  options.ffn_activation = FfnActivation::kGelu;
  return BuildDecoder(std::move(file), std::move(*h), options, load);
}

}  // namespace

const Architecture& GemmaArchitecture() {
  static const Architecture kArchitecture{"gemma", &LoadGemma};
  return kArchitecture;
}

}  // namespace trit::model
