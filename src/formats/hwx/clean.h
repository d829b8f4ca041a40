// Normalizing the kernel-DMA and NE state that newer compilers leave in
// descriptors of ops that fetch no kernel (weights): macOS 14's compiler
// writes 0x80 into every coefficient DMA config, buffer sizes and NE
// KernelCfg/MACCfg values where macOS 12's wrote zeros, for the same MUL.
// Rules (H13 register names from registers.h):
//   1. every KernelDMASrc.CoeffDMAConfig[i] write is 0x80 or 0 -> every write
//      in the KernelDMASrc block (0x1f800..0x1ffff) becomes 0;
//   2. NE.KernelCfg == 0x80 and NE.MACCfg == 0x00100000 -> both 0.
// Values change in place: the file's layout (packets, sizes) is kept.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "formats/hwx/descriptor.h"

namespace trit::hwx {

// A coefficient DMA channel is enabled (CoeffDMAConfig[i].En): the op reads weights.
bool UsesKernelDma(const Descriptor& d);
// No channel enabled, yet some KernelDMASrc write is non-zero.
bool HasIdleKernelDmaState(const Descriptor& d);

struct CleanChange {
  size_t descriptor = 0;
  uint32_t address = 0;
  uint64_t offset = 0;  // of the value in the file
  uint32_t before = 0, after = 0;
  std::string rule;     // "kernel-dma" or "ne"
};

std::vector<CleanChange> PlanClean(const std::vector<Descriptor>& descriptors);

// Writes the changes into `bytes` (a copy of the file the descriptors were read from).
void ApplyClean(const std::vector<CleanChange>& changes, std::span<uint8_t> bytes);

}  // namespace trit::hwx
