// Versions and the error strings of the C API.
#include "api/errors.h"

extern "C" {

uint32_t trit_abi_version(void) { return TRIT_ABI_VERSION; }

const char* trit_version(void) { return TRIT_VERSION_STRING " (commit " TRIT_GIT_COMMIT ")"; }

const char* trit_status_string(trit_status status) {
  switch (status) {
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
