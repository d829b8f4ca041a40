// The kernel sets of the two generations device toolchains ship
// (docs/PACKS.md, "Kernel sets and which one runs"): the file names each
// uses, which sets a pack directory holds, and the one rule that says which
// set runs when the plan, the files on disk and --generation disagree.
//
//   sealed:   full_i8_<op>_K<K>_N<N>.elf per op shape, SEALED-<name>.elf
//   per-role: layer_ctx<M>.elf per width, lmhead.elf, and layer.pdi (the
//             device image the layer kernels run in; not an ELF file)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "formats/pack/plan.h"

namespace trit::pack {

inline constexpr const char* kPerRoleImage = "layer.pdi";

// The sealed kernel of a layer matrix: full_i8_matmul_K640_N2048.elf.
std::string SealedKernelFile(std::string_view op, int64_t k, int64_t n);
// A sealed kernel named for its role: SEALED-lmhead.elf.
std::string SealedNamedFile(std::string_view name);
// The per-role layer kernel built for m rows: layer_ctx17.elf.
std::string PerRoleLayerFile(int64_t m);
inline constexpr const char* kPerRoleLmHead = "lmhead.elf";

// Which generation's set a file name belongs to, if any.
std::optional<Generation> ClassifyKernelFile(std::string_view name);

// The kernel files found in a pack directory, by generation, sorted.
struct KernelSetScan {
  std::vector<std::string> sealed;
  std::vector<std::string> per_role;

  const std::vector<std::string>& Of(Generation g) const { return g == Generation::kSealed ? sealed : per_role; }
};
Expected<KernelSetScan> ScanKernelSets(const std::string& dir);

// "sealed kernel set, 8 ELF files"; "per-role kernel set, 4 ELF files and layer.pdi"
std::string DescribeKernelSet(Generation g, const KernelSetScan& scan);

struct GenerationChoice {
  Generation generation = Generation::kSealed;
  std::string reason;  // one sentence: why this set runs
};

// The rule, in order:
//  1. --generation (`pin`) decides;
//  2. when the files of exactly one set are present, that set runs, whatever
//     the plan's `generation` says (a plan is not refused for asking for a
//     set that no longer ships);
//  3. when both are present, the plan's `generation` decides; a plan that
//     states none runs the sealed set, the newer;
//  4. when neither is present, the plan's `generation`, else the one
//     generation its ops name kernels of, else sealed.
// The reason always says which case applied.
GenerationChoice ChooseGeneration(const KernelSetScan& scan, const PackPlan& plan, std::optional<Generation> pin);

}  // namespace trit::pack
