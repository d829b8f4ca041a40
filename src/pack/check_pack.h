// `trit pack check DIR`: whether a pack can run, and if not, what to fix.
// It names the kernel set that runs (and why, by kernel_set.h's rule), and
// refuses, naming the op and the file:
//  - a weights file that is not a readable GGUF model;
//  - an op whose tensor is missing from the model or whose K/N disagree
//    with it, and a model matrix that no op covers;
//  - an op with no kernel of the running generation, or a kernel whose M is
//    neither of the plan's widths;
//  - a kernel file that is missing, unreadable or not a valid ELF file (the
//    header and section table checked by trit's ELF reader), and layer.pdi
//    missing or empty for the per-role set;
//  - a kernel whose trit.kernel note disagrees with the plan: its M for
//    every kernel; its op, K and N for a sealed kernel (a per-role layer
//    kernel runs a whole layer, so its K and N are not an op's).
// A kernel without a note declares nothing: it is reported, not refused.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "formats/elf/kernel_note.h"
#include "formats/pack/plan.h"
#include "pack/kernel_set.h"

namespace trit::pack {

struct PackProblem {
  std::string op;    // PlanOp::Describe(), or "" for the pack as a whole
  std::string file;  // the file concerned, or ""
  std::string message;
  bool missing_kernel = false;  // the kernel file is absent (a host run goes on without it)
};

struct KernelFileState {
  std::string file;
  int64_t m = 0;
  size_t ops = 0;                      // how many ops use it
  std::string state;                   // "ok", "missing", "unreadable", "not ELF", "no note", "mismatch"
  std::optional<elf::KernelNote> note;
};

struct PackCheck {
  PackPlan plan;
  std::string weights_path;
  KernelSetScan scan;
  GenerationChoice choice;
  std::vector<KernelFileState> kernels;  // the running generation's files (layer.pdi included for per-role)
  std::vector<PackProblem> problems;     // refusals
  std::vector<std::string> notes;        // things worth knowing that are not refusals

  bool ok() const { return problems.empty(); }
  size_t missing_kernels() const { return MissingKernelFiles().size(); }
  std::vector<std::string> MissingKernelFiles() const;  // the running set's absent files
};

// Errors only when the pack cannot be read at all (no plan.json, or one that
// does not parse, or a directory that cannot be listed); everything else is a
// problem in the report.
Expected<PackCheck> CheckPack(const std::string& dir, std::optional<Generation> pin);

}  // namespace trit::pack
