#include "pack/kernel_set.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

namespace trit::pack {

namespace {

// Whether s[at..) starts with one or more digits followed by `tail`, and nothing after.
bool DigitsThen(std::string_view s, size_t at, std::string_view tail) {
  size_t i = at;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  return i > at && s.substr(i) == tail;
}

bool IsSealedShapeFile(std::string_view name) {
  // full_i8_<op>_K<digits>_N<digits>.elf
  if (!name.starts_with("full_i8_") || !name.ends_with(".elf")) return false;
  const size_t k = name.rfind("_K");
  if (k == std::string_view::npos || k <= 8) return false;
  const size_t n = name.find("_N", k + 2);
  if (n == std::string_view::npos) return false;
  return DigitsThen(name.substr(0, n), k + 2, "") && DigitsThen(name, n + 2, ".elf");
}

}  // namespace

std::string SealedKernelFile(std::string_view op, int64_t k, int64_t n) {
  return fmt::format("full_i8_{}_K{}_N{}.elf", op, k, n);
}

std::string SealedNamedFile(std::string_view name) { return fmt::format("SEALED-{}.elf", name); }

std::string PerRoleLayerFile(int64_t m) { return fmt::format("layer_ctx{}.elf", m); }

std::optional<Generation> ClassifyKernelFile(std::string_view name) {
  if (IsSealedShapeFile(name)) return Generation::kSealed;
  if (name.starts_with("SEALED-") && name.ends_with(".elf") && name.size() > 11) return Generation::kSealed;
  if (name == kPerRoleLmHead || name == kPerRoleImage) return Generation::kPerRole;
  if (name.starts_with("layer_ctx") && DigitsThen(name, 9, ".elf")) return Generation::kPerRole;
  return std::nullopt;
}

Expected<KernelSetScan> ScanKernelSets(const std::string& dir) {
  KernelSetScan scan;
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return Error(ErrorCode::kIo, "{}: cannot list the pack directory: {}", dir, ec.message());
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) return Error(ErrorCode::kIo, "{}: cannot list the pack directory: {}", dir, ec.message());
    const std::string name = it->path().filename().string();
    if (std::optional<Generation> g = ClassifyKernelFile(name)) {
      (*g == Generation::kSealed ? scan.sealed : scan.per_role).push_back(name);
    }
  }
  std::sort(scan.sealed.begin(), scan.sealed.end());
  std::sort(scan.per_role.begin(), scan.per_role.end());
  return scan;
}

std::string DescribeKernelSet(Generation g, const KernelSetScan& scan) {
  const std::vector<std::string>& files = scan.Of(g);
  const bool image = std::find(files.begin(), files.end(), kPerRoleImage) != files.end();
  const size_t elf = files.size() - (image ? 1 : 0);
  return fmt::format("{} kernel set, {} ELF file{}{}", GenerationName(g), elf, elf == 1 ? "" : "s",
                     image ? fmt::format(" and {}", kPerRoleImage) : "");
}

GenerationChoice ChooseGeneration(const KernelSetScan& scan, const PackPlan& plan, std::optional<Generation> pin) {
  if (pin) return {*pin, fmt::format("--generation {} pins it", GenerationName(*pin))};
  const bool sealed = !scan.sealed.empty(), per_role = !scan.per_role.empty();
  if (sealed != per_role) {
    const Generation present = sealed ? Generation::kSealed : Generation::kPerRole;
    std::string reason = fmt::format("only the {} set's files are present", GenerationName(present));
    if (plan.generation && *plan.generation != present) {
      reason += fmt::format(" (plan.json's generation is {}, whose files are absent)", GenerationName(*plan.generation));
    }
    return {present, reason};
  }
  if (sealed && per_role) {
    if (plan.generation) {
      return {*plan.generation,
              fmt::format("both sets are present and plan.json's generation is {} (pin the other with --generation)",
                          GenerationName(*plan.generation))};
    }
    return {Generation::kSealed,
            "both sets are present and plan.json states no generation: the newer, sealed, runs (pin with --generation)"};
  }
  if (plan.generation) {
    return {*plan.generation,
            fmt::format("no kernel files are present; plan.json's generation is {}", GenerationName(*plan.generation))};
  }
  bool names[2] = {false, false};
  for (const PlanOp& op : plan.ops) {
    for (const KernelRef& k : op.kernels) names[k.generation == Generation::kSealed ? 0 : 1] = true;
  }
  if (names[0] != names[1]) {
    const Generation g = names[0] ? Generation::kSealed : Generation::kPerRole;
    return {g, fmt::format("no kernel files are present and plan.json's ops name only {} kernels", GenerationName(g))};
  }
  return {Generation::kSealed, "no kernel files are present and plan.json states no generation: sealed, the newer"};
}

}  // namespace trit::pack
