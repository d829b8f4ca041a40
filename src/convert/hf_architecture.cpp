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
                                               &Qwen35Architecture(), &Gemma4Architecture()};
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

std::string SupportedHfArchitectures() {
  std::string out;
  for (const HfArchitecture* arch : Registry()) {
    for (std::string_view name : arch->hf_names) out += fmt::format("{}{}", out.empty() ? "" : ", ", name);
  }
  return out;
}

}  // namespace trit::convert
