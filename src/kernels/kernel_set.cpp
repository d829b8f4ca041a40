#include "kernels/kernel_set.h"

namespace trit::kernels {

std::string_view KernelSetName(KernelSet set) {
  switch (set) {
    case KernelSet::kOptimized: return "optimized";
    case KernelSet::kReference: return "reference";
  }
  return "?";
}

std::optional<KernelSet> ParseKernelSet(std::string_view name) {
  if (name == "optimized") return KernelSet::kOptimized;
  if (name == "reference") return KernelSet::kReference;
  return std::nullopt;
}

const Ops& OpsFor(KernelSet set) {
  // Until a kernel has an optimized version, both sets share the reference one.
  static const Ops kReference{&MatMul};
  static const Ops kOptimized{&MatMul};
  return set == KernelSet::kReference ? kReference : kOptimized;
}

}  // namespace trit::kernels
