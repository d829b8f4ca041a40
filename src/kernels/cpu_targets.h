// The SIMD targets (Highway) the optimized kernels were compiled for, which
// of them this CPU runs, and which one they run on now.
//
// The build compiles a fixed list (src/kernels/CMakeLists.txt,
// docs/KERNELS.md): on x86-64 the portable baseline (EMU128), SSE4, AVX2 and
// AVX3 (AVX-512 F/BW/DQ/VL); on arm64 NEON. Every x86-64 or arm64 CPU runs at
// least the baseline, so the optimized kernels never run code the CPU lacks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace trit::kernels {

// Targets compiled into this binary that this CPU supports, best first
// (Highway target bits).
std::vector<int64_t> RunnableTargets();
// "AVX2", "AVX3", "NEON", "EMU128", ...
std::string TargetName(int64_t target);
// The target the optimized kernels dispatch to now.
std::string ActiveTargetName();
// Ok when this CPU can run at least one compiled target; otherwise an error
// naming what the binary was built for (never garbage results).
Status CheckCpuSupport();
// Tests: makes the kernels dispatch to `target` (one of RunnableTargets());
// 0 restores the normal choice. Not thread-safe against running kernels.
void PinTargetForTest(int64_t target);

}  // namespace trit::kernels
