// The registry of architectures `trit convert` reads: one row per
// architecture file.
#include "convert/hf_architecture.h"

#include <fmt/format.h>

#include "convert/hf_bert.h"
#include "convert/hf_decoder.h"

namespace trit::convert {
namespace {

std::span<const HfArchitecture* const> Registry() {
  static const HfArchitecture* const kAll[] = {&BertArchitecture(), &LlamaArchitecture(), &Qwen2Architecture(),
                                               &Qwen3Architecture(), &Qwen3MoeArchitecture(), &Gemma3Architecture(),
                                               &Qwen35Architecture(), &Gemma4Architecture(),
                                               &GptOssArchitecture(), &BitnetArchitecture()};
  return kAll;
}

}  // namespace

const HfArchitecture* FindHfArchitecture(std::string_view hf_architecture) {
  for (const HfArchitecture* arch : Registry()) {
    for (std::string_view name : arch->hf_names) {
      if (name == hf_architecture) return arch;
    }
  }
  return nullptr;
}

std::string StackPartName(const HfTensorSpec& spec, int64_t index) {
  return fmt::format(fmt::runtime(spec.hf_name), index);
}

std::vector<int64_t> HfOutputShape(const HfTensorSpec& spec) {
  std::vector<int64_t> shape = spec.shape;
  const size_t n = shape.size();
  if (spec.pick.transpose && n >= 2) std::swap(shape[n - 1], shape[n - 2]);
  if (spec.pick.stride > 1 && n >= 2) shape[1] /= spec.pick.stride;
  return shape;
}

std::string SupportedHfArchitectures() {
  std::string out;
  for (const HfArchitecture* arch : Registry()) {
    for (std::string_view name : arch->hf_names) out += fmt::format("{}{}", out.empty() ? "" : ", ", name);
  }
  return out;
}

}  // namespace trit::convert
