// Names of H13 task-descriptor registers and their fields, from the field map
// tinygrad extracted from Apple's compiler (tools/ane/aneregs.json, turned
// into h13_registers.cpp by tools/gen_ane_registers.py). Registers are keyed
// by hardware address; an address the map does not name is "unknown@0xADDR".
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace trit::hwx {

struct RegisterField {
  const char* name;
  uint8_t lo;     // lowest bit
  uint8_t width;  // bits
};

struct RegisterInfo {
  uint32_t address;   // register address (header words: the word index 0..9)
  const char* block;  // "KernelDMASrc", "NE", ... ("TD" for header words)
  const char* name;   // "CoeffDMAConfig[3]", "KernelCfg", "Header[8]"
  const RegisterField* fields;
  uint32_t n_fields;
};

// Both sorted by address. Generated.
std::span<const RegisterInfo> H13Registers();
std::span<const RegisterInfo> H13HeaderWords();

// The register at `address`, or nullptr.
const RegisterInfo* FindH13Register(uint32_t address);
const RegisterInfo* FindH13HeaderWord(uint32_t index);

// "Block.Name" or "unknown@0xADDR".
std::string RegisterName(uint32_t address);
// "TD.Header[i]".
std::string HeaderWordName(uint32_t index);

struct FieldValue {
  std::string name;
  uint32_t value = 0;
};

// The value split into the register's named fields; bits no field covers are
// returned as one "unnamed" entry when non-zero.
std::vector<FieldValue> DecodeFields(const RegisterInfo* info, uint32_t value);

// The register block an address belongs to, by the 0x800-byte window of the
// blocks the map names (KernelDMASrc is 0x1f800..0x1ffff); "" when none.
// Used to treat the map's unnamed words inside a block as part of it.
std::string BlockOf(uint32_t address);

}  // namespace trit::hwx
