#include "api/errors.h"

namespace trit::api {
namespace {

// One message per thread, so that threads sharing a model never read each
// other's errors (the C API's documented contract).
thread_local std::string t_last_error;

}  // namespace

trit_status ToCStatus(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return TRIT_STATUS_OK;
    case ErrorCode::kInvalidArgument: return TRIT_STATUS_INVALID_ARGUMENT;
    case ErrorCode::kNotFound: return TRIT_STATUS_NOT_FOUND;
    case ErrorCode::kIo: return TRIT_STATUS_IO;
    case ErrorCode::kCorrupt: return TRIT_STATUS_CORRUPT;
    case ErrorCode::kUnsupported: return TRIT_STATUS_UNSUPPORTED;
  }
  return TRIT_STATUS_INTERNAL;
}

trit_status Fail(trit_status status, std::string_view message) noexcept {
  try {
    t_last_error.assign(message);
  } catch (...) {
    t_last_error.clear();  // no memory for the message: the status still says what happened
  }
  return status;
}

trit_status Fail(const Status& status) noexcept {
  if (status.ok()) return Fail(TRIT_STATUS_INTERNAL, "internal error: a failure without a status");
  return Fail(ToCStatus(status.code()), status.message());
}

trit_status Succeed() noexcept {
  t_last_error.clear();
  return TRIT_STATUS_OK;
}

const char* LastError() noexcept { return t_last_error.c_str(); }

}  // namespace trit::api
