// plan.json, the description of an accelerator pack (docs/PACKS.md, "The
// plan"): which weights the pack carries, which device family runs it, the
// row widths its kernels were built for, and for each weight matrix of the
// model the kernel file of each kernel-set generation that computes it.
//
// A pack is a directory: plan.json, the model (a GGUF file) and the kernel
// files. The reader checks every field's type and range and names the field
// (`ops[3].kernels[1].M`) of what is wrong; unknown keys are refused, so a
// misspelt key is never silently ignored. Versions newer than this reader
// are refused by name. The plan is data from anywhere: `pack_plan_fuzz`
// runs the reader.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace trit::pack {

inline constexpr const char* kPlanFileName = "plan.json";
inline constexpr const char* kPlanFormat = "trit-pack";
inline constexpr int64_t kPlanVersion = 1;

// The two kernel-set generations device toolchains ship.
//  sealed:   one ELF per op shape, full_i8_<op>_K<K>_N<N>.elf or SEALED-<name>.elf
//  per-role: the older set layer_ctx<M>.elf, lmhead.elf and layer.pdi
enum class Generation { kSealed, kPerRole };

const char* GenerationName(Generation g);  // "sealed", "per-role"
std::optional<Generation> ParseGeneration(std::string_view name);

// One kernel file that computes an op, for one generation and one width.
struct KernelRef {
  Generation generation = Generation::kSealed;
  std::string file;  // relative to the pack, no directory part
  int64_t m = 0;     // the activation rows one launch computes
};

// A weight matrix of the model, in each layer of a range (or once, for a
// tensor outside the layers), and the kernels that compute it.
struct PlanOp {
  std::string op;       // "matmul", "lmhead"
  std::string tensors;  // the tensor name; "{layer}" stands for the layer number
  std::optional<int64_t> first_layer, last_layer;  // inclusive; both or neither, with "{layer}"
  int64_t k = 0;        // the matrix's columns (GGUF ne[0]: the dot products' length)
  int64_t n = 0;        // its rows (ne[1]: the outputs)
  std::vector<KernelRef> kernels;

  // The tensor names the op covers, layer by layer.
  std::vector<std::string> TensorNames() const;
  // "matmul blk.{layer}.attn_q.weight (layers 0-4)"
  std::string Describe() const;
};

struct PackPlan {
  int64_t version = kPlanVersion;
  std::string model;   // the weights, a GGUF file, relative to the pack
  std::string device;  // the device family, e.g. "xdna2"
  std::optional<Generation> generation;  // the generation the plan was made for
  std::optional<int64_t> decode_m;       // the row widths the kernels were built for
  std::optional<int64_t> prefill_m;
  std::vector<PlanOp> ops;
};

// Parses plan.json's text. Errors are kCorrupt and name the field.
Expected<PackPlan> ParsePlan(std::string_view json_text);
// The plan as JSON text (2-space indented, keys in the documented order);
// ParsePlan(EncodePlan(p)) gives p back.
std::string EncodePlan(const PackPlan& plan);

// "decode_m=1, prefill_m=4", the widths the plan states; "no widths stated".
std::string DescribeWidths(const PackPlan& plan);

// Reads <dir>/plan.json; errors name the file.
Expected<PackPlan> ReadPlan(const std::string& dir);

// Whether `name` may name a file inside a pack: a plain file name, no
// directory part, not "." or "..", no NUL, 1-255 bytes.
bool IsPlainFileName(std::string_view name);

}  // namespace trit::pack
