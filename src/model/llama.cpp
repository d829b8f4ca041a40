// Architecture 'llama'. Llama (and llama2.c / TinyLlama / Mistral-style GGUFs): no biases, rope in normal (adjacent pairs) mode; llama.cpp's converter permutes q/k rows so this matches the original interleaving.
#include "model/architecture.h"
#include "model/decoder.h"

namespace trit::model {
namespace {

Expected<std::unique_ptr<Model>> LoadLlama(gguf::File file, const LoadOptions& load) {
  DecoderOptions options;
  options.qkv_bias = false;
  options.qk_norm = false;
  return LoadDecoder(std::move(file), "llama", kernels::RopeMode::kNormal, options, load);
}

}  // namespace

const Architecture& LlamaArchitecture() {
  static const Architecture kArchitecture{"llama", &LoadLlama};
  return kArchitecture;
}

}  // namespace trit::model
