// The C API's error channel: a trit_status for the caller and this thread's
// message (trit_last_error), and the guard that keeps every exception on
// this side of the boundary.
#pragma once

#include <exception>
#include <new>
#include <string>
#include <string_view>

#include "base/status.h"
#include "trit/trit.h"

namespace trit::api {

// The C status for a library error code.
trit_status ToCStatus(ErrorCode code);

// Sets this thread's message to `message` and returns `status`.
trit_status Fail(trit_status status, std::string_view message) noexcept;
// The same for a library Status (not ok).
trit_status Fail(const Status& status) noexcept;
// Clears this thread's message and returns TRIT_STATUS_OK.
trit_status Succeed() noexcept;

// This thread's message; "" after a success.
const char* LastError() noexcept;

// Runs `body` (returning trit_status) so that nothing it throws crosses the
// C boundary: std::bad_alloc becomes TRIT_STATUS_OUT_OF_MEMORY, anything
// else TRIT_STATUS_INTERNAL with what it said.
template <typename Body>
trit_status Guarded(const char* function, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return Fail(TRIT_STATUS_OUT_OF_MEMORY, std::string(function) + ": out of memory");
  } catch (const std::exception& e) {
    return Fail(TRIT_STATUS_INTERNAL, std::string(function) + ": internal error: " + e.what());
  } catch (...) {
    return Fail(TRIT_STATUS_INTERNAL, std::string(function) + ": internal error (unknown exception)");
  }
}

}  // namespace trit::api
