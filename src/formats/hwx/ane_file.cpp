#include "formats/hwx/ane_file.h"

#include <fmt/format.h>

#include <cstring>

#include "formats/binfmt/binary_view.h"

namespace trit::hwx {
namespace {

constexpr uint64_t kTilesOffset = 0x28, kNchwOffset = 0xa8, kHeaderEnd = kNchwOffset + kAneSlots * 48;
constexpr uint64_t kMaxTiles = 0xffff;

uint64_t RoundUp(uint64_t x, uint64_t to) { return (x + to - 1) / to * to; }

Expected<AneHeader> ReadHeader(const binfmt::BinaryView& v) {
  AneHeader h;
  TRIT_RETURN_IF_ERROR(v.Need(0, kAneHeaderSize, ".ane header"));
  TRIT_RETURN_IF_ERROR(v.Read<uint64_t>(0x00, &h.size, "size"));
  TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(0x08, &h.td_size, "td_size"));
  TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(0x0c, &h.td_count, "td_count"));
  TRIT_RETURN_IF_ERROR(v.Read<uint64_t>(0x10, &h.tsk_size, "tsk_size"));
  TRIT_RETURN_IF_ERROR(v.Read<uint64_t>(0x18, &h.krn_size, "krn_size"));
  TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(0x20, &h.src_count, "src_count"));
  TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(0x24, &h.dst_count, "dst_count"));
  for (int i = 0; i < kAneSlots; ++i) {
    TRIT_RETURN_IF_ERROR(v.Read<uint32_t>(kTilesOffset + 4 * i, &h.tiles[i], "tiles"));
    for (int k = 0; k < 6; ++k) {
      TRIT_RETURN_IF_ERROR(v.Read<uint64_t>(kNchwOffset + 48 * i + 8 * k, &h.nchw[i][k], "nchw"));
    }
  }
  return h;
}

void Put32(std::vector<uint8_t>& out, uint64_t at, uint32_t value) {
  for (int i = 0; i < 4; ++i) out[at + i] = static_cast<uint8_t>(value >> (8 * i));
}
void Put64(std::vector<uint8_t>& out, uint64_t at, uint64_t value) {
  for (int i = 0; i < 8; ++i) out[at + i] = static_cast<uint8_t>(value >> (8 * i));
}

}  // namespace

bool LooksLikeAne(std::span<const uint8_t> bytes) {
  binfmt::BinaryView v(bytes, binfmt::ByteOrder::kLittle);
  Expected<AneHeader> h = ReadHeader(v);
  return h.ok() && h->size > 0 && h->tsk_size > 0 && h->size == RoundUp(h->tsk_size, 16) + h->krn_size &&
         h->size <= bytes.size() - kAneHeaderSize;
}

Expected<AneFile> ReadAne(std::span<const uint8_t> bytes) {
  binfmt::BinaryView v(bytes, binfmt::ByteOrder::kLittle);
  Expected<AneHeader> h = ReadHeader(v);
  if (!h.ok()) return h.status();
  AneFile f;
  f.header = *h;
  if (h->tsk_size == 0 || h->tsk_size > h->size || h->size - h->tsk_size < h->krn_size ||
      h->size != RoundUp(h->tsk_size, 16) + h->krn_size) {
    return Error(ErrorCode::kCorrupt, ".ane header: size {:#x} is not round_up(tsk_size {:#x}, 16) + krn_size {:#x}",
                 h->size, h->tsk_size, h->krn_size);
  }
  TRIT_RETURN_IF_ERROR(v.Need(kAneHeaderSize, h->size, ".ane payload (size at byte 0)"));
  if (h->td_size > h->tsk_size) {
    return Error(ErrorCode::kCorrupt, ".ane td_size at byte 8: {:#x} is larger than tsk_size {:#x}", h->td_size,
                 h->tsk_size);
  }
  Expected<std::vector<Descriptor>> chain = ParseChain(v, kAneHeaderSize, h->tsk_size, h->td_size);
  if (!chain.ok()) return chain.status();
  f.descriptors = std::move(*chain);
  if (f.descriptors.size() != h->td_count) {
    return Error(ErrorCode::kCorrupt, ".ane td_count at byte 12: {}, the descriptor chain has {}", h->td_count,
                 f.descriptors.size());
  }
  return f;
}

Expected<AneConversion> ConvertToAne(const HwxFile& hwx, std::span<const uint8_t> bytes, SlotConvention convention) {
  if (hwx.descriptors.empty()) return Error(ErrorCode::kCorrupt, "no task descriptors to convert");
  AneConversion c;
  // anecc: intermediates from slot 3, outputs from 4, inputs after the outputs,
  // each group in load-command order.
  uint32_t n_src = 0, n_dst = 0, n_itm = 0;
  for (const Buffer& b : hwx.buffers) {
    n_src += b.role == BufferRole::kInput;
    n_dst += b.role == BufferRole::kOutput;
    n_itm += b.role == BufferRole::kIntermediate;
  }
  uint32_t i_src = 0, i_dst = 0, i_itm = 0;
  for (const Buffer& b : hwx.buffers) {
    int slot = -1;
    switch (b.role) {
      case BufferRole::kInput: slot = static_cast<int>(4 + n_dst + i_src++); break;
      case BufferRole::kOutput: slot = static_cast<int>(4 + i_dst++); break;
      case BufferRole::kIntermediate: slot = static_cast<int>(3 + i_itm++); break;
      case BufferRole::kUnknown:
        return Error(ErrorCode::kUnsupported, "buffer '{}' has no known role (input/output), cannot be given a slot",
                     binfmt::Printable(b.name));
    }
    c.anecc_slots.push_back(slot);
    c.slots.push_back(b.bar);
    if (b.bar != slot) c.matches_anecc = false;
  }
  if (n_itm > 1 && convention == SlotConvention::kAnecc) {
    return Error(ErrorCode::kUnsupported, "{} intermediate buffers: the reference converter's layout has one slot (3)",
                 n_itm);
  }
  const std::vector<int>& use = convention == SlotConvention::kAnecc ? c.anecc_slots : c.slots;
  const uint64_t krn = hwx.weights_size;
  const uint64_t size = RoundUp(hwx.task_size, 16) + krn;
  if (hwx.task_size > bytes.size() || hwx.task_offset > bytes.size() - hwx.task_size ||
      (krn > 0 && (krn > bytes.size() || hwx.weights_offset > bytes.size() - krn))) {
    return Error(ErrorCode::kCorrupt, "task or weights lie outside the file");
  }
  AneHeader h;
  h.size = size;
  h.td_size = hwx.descriptors.front().size;
  h.td_count = static_cast<uint32_t>(hwx.descriptors.size());
  h.tsk_size = hwx.task_size;
  h.krn_size = krn;
  h.src_count = n_src;
  h.dst_count = n_dst;
  h.tiles[0] = static_cast<uint32_t>(RoundUp(size, kAneTileSize) / kAneTileSize);
  for (size_t i = 0; i < hwx.buffers.size(); ++i) {
    const Buffer& b = hwx.buffers[i];
    const int slot = use[i];
    if (slot < 1 || slot >= kAneSlots) {
      return Error(ErrorCode::kUnsupported, "buffer '{}' has no usable slot ({}): it is not in the BAR table",
                   binfmt::Printable(b.name), slot);
    }
    if (h.tiles[slot] != 0) {
      return Error(ErrorCode::kCorrupt, "buffer '{}': slot {} is already taken", binfmt::Printable(b.name), slot);
    }
    if (b.size == 0 || b.size % kAneTileSize != 0 || b.size / kAneTileSize > kMaxTiles) {
      return Error(ErrorCode::kUnsupported, "buffer '{}': size {:#x} is not a whole number of 0x4000-byte tiles",
                   binfmt::Printable(b.name), b.size);
    }
    if (!b.shape) {
      return Error(ErrorCode::kUnsupported, "buffer '{}': no N_GSYM shape, the .ane header needs N, C, H, W",
                   binfmt::Printable(b.name));
    }
    h.tiles[slot] = static_cast<uint32_t>(b.size / kAneTileSize);
    const TensorStab& s = *b.shape;
    h.nchw[slot] = {s.extent[0], s.extent[1], s.extent[2], s.extent[3], s.stride[1], s.stride[2]};
  }
  std::vector<uint8_t>& out = c.bytes;
  out.assign(kAneHeaderSize + size, 0);
  Put64(out, 0x00, h.size);
  Put32(out, 0x08, h.td_size);
  Put32(out, 0x0c, h.td_count);
  Put64(out, 0x10, h.tsk_size);
  Put64(out, 0x18, h.krn_size);
  Put32(out, 0x20, h.src_count);
  Put32(out, 0x24, h.dst_count);
  for (int i = 0; i < kAneSlots; ++i) {
    Put32(out, kTilesOffset + 4 * i, h.tiles[i]);
    for (int k = 0; k < 6; ++k) Put64(out, kNchwOffset + 48 * i + 8 * k, h.nchw[i][k]);
  }
  static_assert(kHeaderEnd <= kAneHeaderSize);
  std::memcpy(out.data() + kAneHeaderSize, bytes.data() + hwx.task_offset, hwx.task_size);
  if (krn > 0) std::memcpy(out.data() + kAneHeaderSize + RoundUp(hwx.task_size, 16), bytes.data() + hwx.weights_offset, krn);
  return c;
}

}  // namespace trit::hwx
