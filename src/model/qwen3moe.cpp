// Architecture 'qwen3moe'. Qwen3-MoE (Qwen3-30B-A3B, 235B-A22B): qwen3's
// attention (RMS norms on q and k per head, neox rope, no biases) and in every
// layer a mixture of experts (model/moe.h): softmax over all experts, the top
// expert_used_count, their weights renormalised to sum to 1 (llama.cpp's
// qwen3moe always renormalises, as the published configs' norm_topk_prob says).
#include "model/architecture.h"
#include "model/decoder.h"
#include "model/moe.h"

namespace trit::model {
namespace {

Expected<std::unique_ptr<Model>> LoadQwen3Moe(gguf::File file, const LoadOptions& load) {
  TRIT_ASSIGN_OR_RETURN(HParams h, ReadHParams(file, "qwen3moe", kernels::RopeMode::kNeox));
  TRIT_RETURN_IF_ERROR(ReadMoeHParams(file, h));
  DecoderOptions options;
  options.qk_norm = true;
  options.moe = true;
  options.moe_options = {.gating = MoeGating::kSoftmax, .normalize_weights = true};
  return BuildDecoder(std::move(file), std::move(h), options, load);
}

}  // namespace

const Architecture& Qwen3MoeArchitecture() {
  static const Architecture kArchitecture{"qwen3moe", &LoadQwen3Moe};
  return kArchitecture;
}

}  // namespace trit::model
