#include "kernels/kernel_set.h"

#include "kernels/activation.h"
#include "kernels/attention_optimized.h"
#include "kernels/elementwise_optimized.h"
#include "kernels/matmul_optimized.h"
#include "kernels/norm.h"

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
  static const Ops kReference{&MatMul,  &MatMulMany, &AttendQueries, &RmsNorm,   &SwiGlu,
                              &GeGlu,   &SwiGluOai,  &RopeApply,     &GeluErfRow};
  static const Ops kOptimized{&MatMulOptimized,    &MatMulOptimizedMany, &AttendQueriesOptimized,
                              &RmsNormOptimized,   &SwiGluOptimized,     &GeGluOptimized,
                              &SwiGluOaiOptimized, &RopeApplyOptimized,  &GeluErfRowOptimized};
  return set == KernelSet::kReference ? kReference : kOptimized;
}

}  // namespace trit::kernels
