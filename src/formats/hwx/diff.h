// Register-by-register comparison of two descriptor chains (from .hwx or
// .ane files), by hardware address: the same op compiled into different
// layouts (old vs compact packets) compares write for write. Descriptor k of
// one chain is compared with descriptor k of the other.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/hwx/descriptor.h"

namespace trit::hwx {

struct FieldChange {
  std::string name;
  uint32_t a = 0, b = 0;
};

struct Difference {
  size_t descriptor = 0;
  bool header = false;   // a header word (address is its index) rather than a register
  uint32_t address = 0;
  std::string name;      // "NE.KernelCfg", "unknown@0x1f8c8", "TD.Header[8]"
  std::optional<uint32_t> a, b;  // nullopt: not written by that side
  std::vector<FieldChange> fields;  // the named fields that differ (both sides written)
};

struct DiffOptions {
  // A register one side does not write compares as 0 (the compact layout
  // leaves out zero runs the old layout writes).
  bool absent_as_zero = false;
};

// The values a descriptor writes, last write per address winning; an address
// written twice is listed in `repeated`.
struct RegisterState {
  std::vector<std::pair<uint32_t, uint32_t>> values;  // sorted by address
  std::vector<uint32_t> repeated;
};
RegisterState StateOf(const Descriptor& d);

std::vector<Difference> DiffChains(const std::vector<Descriptor>& a, const std::vector<Descriptor>& b,
                                   const DiffOptions& options);

}  // namespace trit::hwx
