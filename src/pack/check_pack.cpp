#include "pack/check_pack.h"

#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <set>
#include <system_error>

#include "base/mapped_file.h"
#include "formats/elf/elf_reader.h"
#include "formats/gguf/reader.h"
#include "pack/make_pack.h"
#include "pack/model_matrices.h"

namespace trit::pack {

namespace fs = std::filesystem;

namespace {

// Past this many layers an op's range is refused rather than expanded.
constexpr int64_t kMaxLayersPerOp = 100000;

// The ops' tensors against the model's, and the model's matrices against the ops.
void CheckTensors(const gguf::File& model, PackCheck* c) {
  std::set<std::string> covered;
  for (const PlanOp& op : c->plan.ops) {
    if (op.first_layer && *op.last_layer - *op.first_layer >= kMaxLayersPerOp) {
      c->problems.push_back({op.Describe(), "", fmt::format("a range of more than {} layers", kMaxLayersPerOp)});
      continue;
    }
    std::vector<std::string> missing;
    for (const std::string& name : op.TensorNames()) {
      covered.insert(name);
      const gguf::TensorInfo* t = model.FindTensor(name);
      if (t == nullptr) {
        missing.push_back(name);
      } else if (t->shape.size() != 2 || t->shape[0] != op.k || t->shape[1] != op.n) {
        std::string shape;
        for (int64_t d : t->shape) shape += fmt::format("{}{}", shape.empty() ? "" : " x ", d);
        c->problems.push_back({op.Describe(), "",
                               t->shape.size() == 2
                                   ? fmt::format("{} is K={} N={} in the model; the plan says K={} N={} (remake the plan with trit pack make)", name,
                                                 t->shape[0], t->shape[1], op.k, op.n)
                                   : fmt::format("{} is not a matrix in the model (shape {})", name, shape)});
      }
    }
    if (!missing.empty()) {
      c->problems.push_back({op.Describe(), "",
                             missing.size() == 1 ? fmt::format("tensor {} is not in the model (is plan.json for this model?)", missing[0])
                                                 : fmt::format("tensor {} is not in the model, nor are {} more (is plan.json for this model?)",
                                                               missing[0], missing.size() - 1)});
    }
  }
  // Uncovered matrices, one problem per role.
  std::map<std::string, std::vector<const ModelMatrix*>> uncovered;
  std::vector<std::string> order;
  const std::vector<ModelMatrix> matrices = ModelMatrices(model);
  for (const ModelMatrix& m : matrices) {
    if (covered.count(m.name) != 0) continue;
    if (uncovered[m.role].empty()) order.push_back(m.role);
    uncovered[m.role].push_back(&m);
  }
  for (const std::string& role : order) {
    const std::vector<const ModelMatrix*>& list = uncovered[role];
    const ModelMatrix& m = *list[0];
    c->problems.push_back({"", "", fmt::format("the model's matrix {} (K={} N={}) has no op in the plan{} (trit pack make plans every matrix)", m.name, m.k,
                                               m.n, list.size() > 1 ? fmt::format(", nor do {} more of its role", list.size() - 1) : "")});
  }
}

// Each op's kernels of the running generation: present in the plan, at a width the plan runs.
void CheckWidths(PackCheck* c) {
  const Generation g = c->choice.generation;
  for (const PlanOp& op : c->plan.ops) {
    bool any = false;
    for (const KernelRef& k : op.kernels) {
      if (k.generation != g) continue;
      any = true;
      const bool stated = c->plan.decode_m || c->plan.prefill_m;
      if (stated && k.m != c->plan.decode_m.value_or(0) && k.m != c->plan.prefill_m.value_or(0)) {
        c->problems.push_back({op.Describe(), k.file,
                               fmt::format("M={} is none of the plan's widths ({}): build it for one of them or correct the widths", k.m, DescribeWidths(c->plan))});
      }
    }
    if (!any) c->problems.push_back({op.Describe(), "", fmt::format("the plan names no {} kernel for it: add one, or pin the other set with --generation", GenerationName(g))});
  }
}

// What the note of `file` says against every op that uses it.
void CheckNote(const std::string& file, const elf::KernelNote& note, PackCheck* c, KernelFileState* state) {
  for (const PlanOp& op : c->plan.ops) {
    for (const KernelRef& k : op.kernels) {
      if (k.generation != c->choice.generation || k.file != file) continue;
      std::vector<std::string> differ;
      if (note.m != k.m) differ.push_back(fmt::format("M={} (the plan says M={})", note.m, k.m));
      if (k.generation == Generation::kSealed) {
        if (note.op != op.op) differ.push_back(fmt::format("op={} (the plan says {})", note.op, op.op));
        if (note.k != op.k || note.n != op.n) {
          differ.push_back(fmt::format("K={} N={} (the plan says K={} N={})", note.k, note.n, op.k, op.n));
        }
      }
      if (differ.empty()) continue;
      std::string what;
      for (const std::string& d : differ) what += (what.empty() ? "" : ", ") + d;
      c->problems.push_back({op.Describe(), file, "its trit.kernel note declares " + what + ": rebuild the kernel for the plan's shape, or correct plan.json"});
      state->state = "mismatch";
    }
  }
}

void CheckFile(const std::string& dir, KernelFileState* state, const std::string& first_op, PackCheck* c) {
  const std::string path = (fs::path(dir) / state->file).string();
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    state->state = "missing";
    c->problems.push_back({first_op, state->file, "missing: the device toolchain must provide it (trit pack run --host runs without it)", true});
    return;
  }
  Expected<MappedFile> mapped = MappedFile::Open(path);
  if (!mapped.ok()) {
    state->state = "unreadable";
    c->problems.push_back({first_op, state->file, "unreadable: " + mapped.status().message() + " (check its permissions)"});
    return;
  }
  if (state->file == kPerRoleImage) {  // a device image, not an ELF file
    state->state = mapped->size() == 0 ? "empty" : "ok";
    if (mapped->size() == 0) c->problems.push_back({first_op, state->file, "empty: the per-role set's device image must come from the device toolchain"});
    return;
  }
  Expected<std::vector<elf::ElfNote>> notes = elf::ReadElfNotes(mapped->bytes());
  if (!notes.ok()) {
    state->state = "not ELF";
    c->problems.push_back({first_op, state->file, "not a valid ELF file (" + notes.status().message() + "): rebuild it with the device toolchain"});
    return;
  }
  Expected<elf::KernelNote> note = elf::FindKernelNote(*notes);
  if (!note.ok()) {
    if (note.status().code() == ErrorCode::kNotFound) {
      state->state = "no note";
      c->notes.push_back(fmt::format("{} carries no trit.kernel note: its op, shape and width are not checked", state->file));
    } else {
      state->state = "mismatch";
      c->problems.push_back({first_op, state->file, "its trit.kernel note: " + note.status().message() + " (docs/PACKS.md gives the layout)"});
    }
    return;
  }
  state->state = "ok";
  state->note = *note;
  CheckNote(state->file, *note, c, state);
}

}  // namespace

std::vector<std::string> PackCheck::MissingKernelFiles() const {
  std::vector<std::string> out;
  for (const KernelFileState& k : kernels) {
    if (k.state == "missing") out.push_back(k.file);
  }
  return out;
}

Expected<PackCheck> CheckPack(const std::string& dir, std::optional<Generation> pin) {
  Expected<PackPlan> plan = ReadPlan(dir);
  if (!plan.ok()) return plan.status();
  Expected<KernelSetScan> scan = ScanKernelSets(dir);
  if (!scan.ok()) return scan.status();
  PackCheck c;
  c.plan = std::move(plan).value();
  c.scan = std::move(scan).value();
  c.choice = ChooseGeneration(c.scan, c.plan, pin);
  c.weights_path = (fs::path(dir) / c.plan.model).string();

  Expected<gguf::File> model = gguf::File::Open(c.weights_path);
  if (model.ok()) {
    CheckTensors(*model, &c);
  } else {
    c.problems.push_back({"", c.plan.model, "the weights: " + model.status().message()});
  }
  CheckWidths(&c);
  std::vector<RequiredKernel> files = RequiredKernels(c.plan, c.choice.generation);
  if (c.choice.generation == Generation::kPerRole) files.push_back({kPerRoleImage, 0, {}});
  for (const RequiredKernel& r : files) {
    KernelFileState state{r.file, r.m, r.ops.size(), "", std::nullopt};
    CheckFile(dir, &state, r.ops.empty() ? "" : r.ops[0], &c);
    c.kernels.push_back(std::move(state));
  }
  if (!c.plan.prefill_m) c.notes.push_back("plan.json states no prefill_m: a run computes one row per pass");
  return c;
}

}  // namespace trit::pack
