#include "formats/hwx/clean.h"

#include <cstring>

#include "base/check.h"
#include "formats/hwx/registers.h"

namespace trit::hwx {
namespace {

constexpr std::string_view kKdmaBlock = "KernelDMASrc";

bool IsCoeffDmaConfig(uint32_t address) {
  const RegisterInfo* r = FindH13Register(address);
  return r != nullptr && r->block == kKdmaBlock && std::string_view(r->name).starts_with("CoeffDMAConfig[");
}

uint32_t FieldOf(uint32_t address, std::string_view field, uint32_t value) {
  for (const hwx::FieldValue& f : DecodeFields(FindH13Register(address), value)) {
    if (f.name == field) return f.value;
  }
  return 0;
}

// The address of a register the map names, found by name (never a fixed offset).
uint32_t AddressOf(std::string_view block, std::string_view name) {
  for (const RegisterInfo& r : H13Registers()) {
    if (r.block == block && r.name == name) return r.address;
  }
  TRIT_CHECK(false && "register missing from the generated H13 table");
  return 0;
}

}  // namespace

bool UsesKernelDma(const Descriptor& d) {
  for (const RegisterWrite& w : d.writes) {
    if (IsCoeffDmaConfig(w.address) && FieldOf(w.address, "En", w.value) != 0) return true;
  }
  return false;
}

bool HasIdleKernelDmaState(const Descriptor& d) {
  if (UsesKernelDma(d)) return false;
  for (const RegisterWrite& w : d.writes) {
    if (BlockOf(w.address) == kKdmaBlock && w.value != 0) return true;
  }
  return false;
}

std::vector<CleanChange> PlanClean(const std::vector<Descriptor>& descriptors) {
  const uint32_t kernel_cfg = AddressOf("NE", "KernelCfg"), mac_cfg = AddressOf("NE", "MACCfg");
  std::vector<CleanChange> changes;
  for (size_t k = 0; k < descriptors.size(); ++k) {
    const Descriptor& d = descriptors[k];
    bool any_config = false, all_idle = true;
    const RegisterWrite* kcfg = nullptr;
    const RegisterWrite* mcfg = nullptr;
    for (const RegisterWrite& w : d.writes) {
      if (IsCoeffDmaConfig(w.address)) {
        any_config = true;
        all_idle = all_idle && (w.value == 0x80 || w.value == 0);
      }
      if (w.address == kernel_cfg) kcfg = &w;
      if (w.address == mac_cfg) mcfg = &w;
    }
    if (any_config && all_idle) {
      for (const RegisterWrite& w : d.writes) {
        if (BlockOf(w.address) == kKdmaBlock && w.value != 0) {
          changes.push_back({k, w.address, w.offset, w.value, 0, "kernel-dma"});
        }
      }
    }
    if (kcfg != nullptr && mcfg != nullptr && kcfg->value == 0x80 && mcfg->value == 0x00100000) {
      changes.push_back({k, kcfg->address, kcfg->offset, kcfg->value, 0, "ne"});
      changes.push_back({k, mcfg->address, mcfg->offset, mcfg->value, 0, "ne"});
    }
  }
  return changes;
}

void ApplyClean(const std::vector<CleanChange>& changes, std::span<uint8_t> bytes) {
  for (const CleanChange& c : changes) {
    TRIT_CHECK(c.offset + 4 <= bytes.size());
    for (int i = 0; i < 4; ++i) bytes[c.offset + i] = static_cast<uint8_t>(c.after >> (8 * i));
  }
}

}  // namespace trit::hwx
