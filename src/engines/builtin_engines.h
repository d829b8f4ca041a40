// The engines compiled into trit: `cpu` (the optimized kernels, the default)
// and `reference` (the scalar reference kernels, low priority, so any result
// can be cross-checked with --engine reference).
#pragma once

#include <memory>

#include "engines/engine.h"
#include "kernels/kernel_set.h"

namespace trit::engines {

inline constexpr int32_t kCpuPriority = 100;
inline constexpr int32_t kReferencePriority = 10;

std::unique_ptr<Engine> MakeCpuEngine();
std::unique_ptr<Engine> MakeReferenceEngine();

}  // namespace trit::engines
