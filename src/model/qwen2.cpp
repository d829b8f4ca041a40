// Architecture 'qwen2'. Qwen2 / Qwen2.5: biases on q, k and v; rope in neox (half-split) mode.
#include "model/architecture.h"
#include "model/decoder.h"

namespace trit::model {
namespace {

Expected<std::unique_ptr<Model>> LoadQwen2(gguf::File file, const LoadOptions& load) {
  DecoderOptions options;
  options.qkv_bias = true;
  options.qk_norm = false;
  return LoadDecoder(std::move(file), "qwen2", kernels::RopeMode::kNeox, options, load);
}

}  // namespace

const Architecture& Qwen2Architecture() {
  static const Architecture kArchitecture{"qwen2", &LoadQwen2};
  return kArchitecture;
}

}  // namespace trit::model
