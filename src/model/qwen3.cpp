// Architecture 'qwen3'. Qwen3 (dense): RMS norms on q and k per head before rope; no biases; rope in neox mode; head_dim from attention.key_length.
#include "model/architecture.h"
#include "model/decoder.h"

namespace trit::model {
namespace {

Expected<std::unique_ptr<Model>> LoadQwen3(gguf::File file, const LoadOptions& load) {
  DecoderOptions options;
  options.qkv_bias = false;
  options.qk_norm = true;
  return LoadDecoder(std::move(file), "qwen3", kernels::RopeMode::kNeox, options, load);
}

}  // namespace

const Architecture& Qwen3Architecture() {
  static const Architecture kArchitecture{"qwen3", &LoadQwen3};
  return kArchitecture;
}

}  // namespace trit::model
