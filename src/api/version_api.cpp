// Versions and the error strings of the C API.
#include "api/errors.h"

#include <cstring>

extern "C" {

uint32_t trit_abi_version(void) { return TRIT_ABI_VERSION; }

const char* trit_version(void) { return TRIT_VERSION_STRING " (commit " TRIT_GIT_COMMIT ")"; }

const char* trit_status_string(trit_status status) {
  // A C caller may pass any int here (C's enums are ints); in C++ a load of
  // an enum outside its enumerators' range is undefined, so read it as one.
  int code = 0;
  static_assert(sizeof code == sizeof status);
  std::memcpy(&code, &status, sizeof code);
  switch (code) {
    case TRIT_STATUS_OK: return "ok";
    case TRIT_STATUS_INVALID_ARGUMENT: return "invalid argument";
    case TRIT_STATUS_NOT_FOUND: return "not found";
    case TRIT_STATUS_IO: return "input/output error";
    case TRIT_STATUS_CORRUPT: return "corrupt data";
    case TRIT_STATUS_UNSUPPORTED: return "unsupported";
    case TRIT_STATUS_BUFFER_TOO_SMALL: return "buffer too small";
    case TRIT_STATUS_OUT_OF_MEMORY: return "out of memory";
    case TRIT_STATUS_INTERNAL: return "internal error";
  }
  return "unknown status";
}

const char* trit_last_error(void) { return trit::api::LastError(); }

}  // extern "C"
