// TRIT_CHECK: a broken invariant of trit itself (never untrusted input, which
// gets a Status). Prints file:line and the condition, then aborts.
#pragma once

namespace trit::internal {
[[noreturn]] void CheckFailed(const char* file, int line, const char* condition);
}  // namespace trit::internal

#define TRIT_CHECK(condition) \
  ((condition) ? static_cast<void>(0) : ::trit::internal::CheckFailed(__FILE__, __LINE__, #condition))

#ifdef NDEBUG
#define TRIT_DCHECK(condition) static_cast<void>(0)
#else
#define TRIT_DCHECK(condition) TRIT_CHECK(condition)
#endif
