// The row (de)quantizers' shared precondition: n elements are a whole number
// of blocks (n >= 0, a multiple of block_size), checked, and that number.
#pragma once

#include <cstdint>

#include "base/check.h"

namespace trit::quant {

inline int64_t BlockCount(int64_t n, int64_t block_size) {
  TRIT_CHECK(n >= 0 && n % block_size == 0);
  return n / block_size;
}

}  // namespace trit::quant
