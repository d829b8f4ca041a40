// `trit pack make MODEL DIR`: a pack directory for a GGUF model. Writes
// plan.json (an op for each weight matrix role and shape, over the range of
// layers that share it, with the kernel file of each generation that
// computes it) and places the weights beside it. It never writes kernel
// files: it lists the ones the device toolchain must provide.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "formats/gguf/reader.h"
#include "formats/pack/plan.h"

namespace trit::pack {

struct MakeOptions {
  std::string device;        // the device family (a device-lock name: [A-Za-z0-9._-])
  int64_t prefill_m = 0;     // rows per prefill pass the kernels are built for (>= 1)
  int64_t decode_m = 1;      // rows per decode pass (>= 1, <= prefill_m)
  Generation generation = Generation::kSealed;  // the set the plan prefers
};

// One kernel file a generation needs, and the ops that use it.
struct RequiredKernel {
  std::string file;
  int64_t m = 0;
  std::vector<std::string> ops;  // PlanOp::Describe() of each op that uses it
};

// The plan for `file`'s matrices; `model_file` is the weights' name in the pack.
Expected<PackPlan> PlanForModel(const gguf::File& file, const std::string& model_file, const MakeOptions& options);

// The distinct kernel files of generation `g` the plan's ops name, in the
// order first named.
std::vector<RequiredKernel> RequiredKernels(const PackPlan& plan, Generation g);

struct MadePack {
  PackPlan plan;
  std::string weights_path;
  bool weights_linked = false;  // a hard link (same file system), else a copy
};

// Makes `dir` (which must not hold a plan.json already), places the weights
// (a hard link where the file system allows, else a copy) and writes
// plan.json last, atomically: a pack directory with a plan is complete.
Expected<MadePack> MakePack(const std::string& model_path, const std::string& dir, const MakeOptions& options);

}  // namespace trit::pack
