// The engines compiled into trit: `cpu` (the optimized kernels, the default)
// and `reference` (the scalar reference kernels, low priority, so any result
// can be cross-checked with --engine reference) for GGUF files, and `pack`,
// which runs an accelerator pack's weights on the CPU kernels (the host path).
#pragma once

#include <memory>

#include "engines/engine.h"
#include "kernels/kernel_set.h"

namespace trit::engines {

inline constexpr int32_t kCpuPriority = 100;
inline constexpr int32_t kReferencePriority = 10;
// The host path of packs: it runs on any machine, so it is what a pack gets
// when no device engine for its family is present. A device engine plugin
// for packs declares a priority above this one to win where it is available.
// (Below cpu is harmless: cpu does not accept packs.)
inline constexpr int32_t kPackHostPriority = 50;

std::unique_ptr<Engine> MakeCpuEngine();
std::unique_ptr<Engine> MakeReferenceEngine();
// "pack" (alias "pack-host"): loads a pack directory's weights file (its
// plan.json "model") with the optimized kernels, as `cpu` loads a GGUF file.
// Its NPU kernels are not used.
std::unique_ptr<Engine> MakePackEngine();

}  // namespace trit::engines
