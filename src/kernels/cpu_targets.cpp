#include "kernels/cpu_targets.h"

#include <hwy/highway.h>
#include <hwy/targets.h>

namespace trit::kernels {

std::vector<int64_t> RunnableTargets() {
  std::vector<int64_t> out;
  const int64_t runnable = hwy::SupportedTargets() & HWY_TARGETS;
  // Lower bits are better targets in Highway's numbering.
  for (int64_t bit = 1; bit != 0 && bit <= runnable; bit <<= 1) {
    if ((runnable & bit) != 0) out.push_back(bit);
  }
  return out;
}

std::string TargetName(int64_t target) { return hwy::TargetName(target); }

std::string ActiveTargetName() {
  const std::vector<int64_t> targets = RunnableTargets();
  return targets.empty() ? "none" : TargetName(targets.front());
}

Status CheckCpuSupport() {
  if ((hwy::SupportedTargets() & HWY_TARGETS) != 0) return Status::Ok();
  std::string built;
  for (int64_t bit = 1; bit != 0; bit <<= 1) {
    if ((HWY_TARGETS & bit) != 0) built += (built.empty() ? "" : ", ") + std::string(hwy::TargetName(bit));
    if (bit == (int64_t{1} << 62)) break;
  }
  return Error(ErrorCode::kUnsupported,
               "this CPU supports none of the SIMD targets the kernels were built for ({}); "
               "run with --engine reference or rebuild for this CPU",
               built);
}

void PinTargetForTest(int64_t target) { hwy::SetSupportedTargetsForTest(target); }

}  // namespace trit::kernels
