#include "base/huge_buffer.h"

#include <sys/mman.h>

#include <new>
#include <utility>

namespace trit {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;

}  // namespace

HugeBuffer::HugeBuffer(size_t size) : size_(size) {
  if (size == 0) return;
  mapped_ = (size + kHugePage - 1) / kHugePage * kHugePage;
  // Map one huge page more than needed and trim both ends, so data_ starts
  // on a 2 MiB boundary (the kernel backs only aligned ranges with them).
  const size_t span = mapped_ + kHugePage;
  void* raw = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const uintptr_t begin = reinterpret_cast<uintptr_t>(raw);
  const uintptr_t aligned = (begin + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > begin) ::munmap(raw, aligned - begin);
  const uintptr_t end = begin + span;
  if (end > aligned + mapped_) ::munmap(reinterpret_cast<void*>(aligned + mapped_), end - (aligned + mapped_));
  data_ = reinterpret_cast<uint8_t*>(aligned);
  ::madvise(data_, mapped_, MADV_HUGEPAGE);  // advice: ignored where huge pages are off
}

HugeBuffer::HugeBuffer(HugeBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, 0)) {}

HugeBuffer& HugeBuffer::operator=(HugeBuffer&& other) noexcept {
  if (this != &other) {
    Reset();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, 0);
  }
  return *this;
}

HugeBuffer::~HugeBuffer() { Reset(); }

void HugeBuffer::Reset() {
  if (data_ != nullptr) ::munmap(data_, mapped_);
  data_ = nullptr;
  size_ = mapped_ = 0;
}

}  // namespace trit
