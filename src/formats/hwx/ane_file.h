// The Linux driver's model file (.ane, eiln/ane's `struct anec`, as eiln/anecc
// writes it): a packed little-endian header
//   u64 size; u32 td_size, td_count; u64 tsk_size, krn_size;
//   u32 src_count, dst_count; u32 tiles[32]; u64 nchw[32][6];
// (size = round_up(tsk_size, 16) + krn_size; tiles: 0x4000-byte tiles per
// buffer slot, slot 0 the payload itself; nchw: N, C, H, W, plane stride, row
// stride per slot), zeros up to 0x1000, then the payload: the task
// descriptors, zeros to a multiple of 16, the weights.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "formats/hwx/descriptor.h"
#include "formats/hwx/hwx_file.h"

namespace trit::hwx {

constexpr uint64_t kAneHeaderSize = 0x1000;
constexpr uint64_t kAneTileSize = 0x4000;
constexpr int kAneSlots = 32;

struct AneHeader {
  uint64_t size = 0;
  uint32_t td_size = 0, td_count = 0;
  uint64_t tsk_size = 0, krn_size = 0;
  uint32_t src_count = 0, dst_count = 0;
  std::array<uint32_t, kAneSlots> tiles{};
  std::array<std::array<uint64_t, 6>, kAneSlots> nchw{};
};

struct AneFile {
  AneHeader header;
  std::vector<Descriptor> descriptors;  // offsets are in the .ane file
};

// Looks like an .ane header: sizes consistent with each other and the file.
bool LooksLikeAne(std::span<const uint8_t> bytes);
Expected<AneFile> ReadAne(std::span<const uint8_t> bytes);

enum class SlotConvention {
  kBarTable,  // each buffer at the slot its BAR table entry says (what the descriptors address)
  kAnecc,     // eiln/anecc's fixed order: intermediate at 3, outputs from 4, then inputs
};

struct AneConversion {
  std::vector<uint8_t> bytes;
  // Slot per buffer (same order as HwxFile::buffers) under each convention;
  // they differ when the HWX does not put outputs first.
  std::vector<int> slots, anecc_slots;
  bool matches_anecc = true;
};

// The .ane image of `hwx` (read from `bytes`). Errors name what cannot be
// represented (a buffer with no slot, a shape missing, a size over the format).
Expected<AneConversion> ConvertToAne(const HwxFile& hwx, std::span<const uint8_t> bytes, SlotConvention convention);

}  // namespace trit::hwx
