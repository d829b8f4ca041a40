// Anonymous memory for large copies made once at load (weights repacked into
// another layout, kernels/repack.h), asked of the kernel in 2 MiB huge pages
// where it has them. Why: a 4 KiB page fault per 4 KiB zeroed was most of
// loading a 2.2 GB f16 model once its matrices were repacked (a decode
// step's streams also cross fewer TLB entries; no speed change in decode was
// measurable on the machine this was written on).
// Move-only; unmaps on destruction.
#pragma once

#include <cstddef>
#include <cstdint>

namespace trit {

class HugeBuffer {
 public:
  // `size` bytes, zeroed, aligned to 2 MiB; huge pages are advice
  // (madvise(MADV_HUGEPAGE)): without them the buffer works the same.
  // Throws std::bad_alloc, as new does, when the memory cannot be had.
  explicit HugeBuffer(size_t size);

  HugeBuffer() = default;
  HugeBuffer(HugeBuffer&& other) noexcept;
  HugeBuffer& operator=(HugeBuffer&& other) noexcept;
  HugeBuffer(const HugeBuffer&) = delete;
  HugeBuffer& operator=(const HugeBuffer&) = delete;
  ~HugeBuffer();

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void Reset();

  uint8_t* data_ = nullptr;
  size_t size_ = 0;    // what was asked for
  size_t mapped_ = 0;  // what is mapped at data_ (size_ rounded up to 2 MiB)
};

}  // namespace trit
