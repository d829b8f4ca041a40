#include "formats/hwx/registers.h"

#include <fmt/format.h>

#include <algorithm>

namespace trit::hwx {
namespace {

const RegisterInfo* Find(std::span<const RegisterInfo> table, uint32_t address) {
  auto it = std::lower_bound(table.begin(), table.end(), address,
                             [](const RegisterInfo& r, uint32_t a) { return r.address < a; });
  return it != table.end() && it->address == address ? &*it : nullptr;
}

}  // namespace

const RegisterInfo* FindH13Register(uint32_t address) { return Find(H13Registers(), address); }
const RegisterInfo* FindH13HeaderWord(uint32_t index) { return Find(H13HeaderWords(), index); }

std::string RegisterName(uint32_t address) {
  const RegisterInfo* r = FindH13Register(address);
  return r != nullptr ? fmt::format("{}.{}", r->block, r->name) : fmt::format("unknown@{:#x}", address);
}

std::string HeaderWordName(uint32_t index) { return fmt::format("TD.Header[{}]", index); }

std::vector<FieldValue> DecodeFields(const RegisterInfo* info, uint32_t value) {
  std::vector<FieldValue> out;
  uint32_t covered = 0;
  if (info != nullptr) {
    for (uint32_t i = 0; i < info->n_fields; ++i) {
      const RegisterField& f = info->fields[i];
      const uint32_t mask = f.width >= 32 ? 0xffffffffu : ((1u << f.width) - 1u);
      out.push_back({f.name, (value >> f.lo) & mask});
      covered |= mask << f.lo;
    }
  }
  if ((value & ~covered) != 0) out.push_back({"unnamed", value & ~covered});
  return out;
}

std::string BlockOf(uint32_t address) {
  for (const RegisterInfo& r : H13Registers()) {
    if ((r.address & ~0x7ffu) == (address & ~0x7ffu)) return r.block;
  }
  return std::string();
}

}  // namespace trit::hwx
