#include "base/check.h"

#include <cstdio>
#include <cstdlib>

namespace trit::internal {

void CheckFailed(const char* file, int line, const char* condition) {
  std::fprintf(stderr, "trit: internal check failed at %s:%d: %s\n", file, line, condition);
  std::abort();
}

}  // namespace trit::internal
