// HugeBuffer (base/huge_buffer.h): the bytes asked for, zeroed, writable, on
// a 2 MiB boundary (where the kernel can back them with huge pages), and
// owned by exactly one object through moves.
#include "base/huge_buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

namespace trit {
namespace {

constexpr uintptr_t kHugePage = uintptr_t{2} << 20;

TEST(HugeBuffer, GivesZeroedWritableBytesOnA2MiBBoundary) {
  // Not a multiple of the page: the last bytes asked for are usable too.
  const size_t size = (size_t{3} << 20) + 12345;
  HugeBuffer b(size);
  ASSERT_NE(b.data(), nullptr);
  EXPECT_EQ(b.size(), size);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % kHugePage, 0u);
  uint64_t sum = 0;
  for (size_t i = 0; i < size; i += 4096) sum += b.data()[i];
  sum += b.data()[size - 1];
  EXPECT_EQ(sum, 0u);
  b.data()[0] = 1;
  b.data()[size - 1] = 2;
  EXPECT_EQ(b.data()[0] + b.data()[size - 1], 3);
}

TEST(HugeBuffer, AnEmptyBufferHoldsNothing) {
  HugeBuffer empty(0);
  EXPECT_EQ(empty.data(), nullptr);
  EXPECT_EQ(empty.size(), 0u);
  HugeBuffer defaulted;
  EXPECT_EQ(defaulted.data(), nullptr);
}

TEST(HugeBuffer, MovesHandOverTheBytes) {
  HugeBuffer a(100);
  uint8_t* bytes = a.data();
  bytes[99] = 7;
  HugeBuffer b(std::move(a));
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(b.data(), bytes);
  EXPECT_EQ(b.data()[99], 7);
  HugeBuffer c(200);
  c = std::move(b);  // c's own bytes are unmapped, b's move in
  EXPECT_EQ(c.data(), bytes);
  EXPECT_EQ(c.size(), 100u);
  EXPECT_EQ(b.data(), nullptr);  // NOLINT(bugprone-use-after-move)
}

}  // namespace
}  // namespace trit
