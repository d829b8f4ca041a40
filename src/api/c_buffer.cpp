#include "api/c_buffer.h"

#include <cstring>
#include <string>

namespace trit::api {

trit_status WriteText(std::string_view text, char* out, size_t capacity, size_t* n_out) noexcept {
  if (n_out == nullptr) return Fail(TRIT_STATUS_INVALID_ARGUMENT, "n_out is NULL");
  *n_out = text.size();
  if (capacity <= text.size()) {
    return Fail(TRIT_STATUS_BUFFER_TOO_SMALL, "buffer of " + std::to_string(capacity) + " bytes: the text needs " +
                                                  std::to_string(text.size() + 1) + " (with its NUL)");
  }
  if (out == nullptr) return Fail(TRIT_STATUS_INVALID_ARGUMENT, "out is NULL with a capacity of " + std::to_string(capacity));
  if (!text.empty()) std::memcpy(out, text.data(), text.size());
  out[text.size()] = '\0';
  return Succeed();
}

trit_status WriteIds(std::span<const int32_t> ids, int32_t* out, size_t capacity, size_t* n_out) noexcept {
  if (n_out == nullptr) return Fail(TRIT_STATUS_INVALID_ARGUMENT, "n_out is NULL");
  *n_out = ids.size();
  if (capacity < ids.size()) {
    return Fail(TRIT_STATUS_BUFFER_TOO_SMALL, "buffer of " + std::to_string(capacity) + " ids: the text has " +
                                                  std::to_string(ids.size()) + " tokens");
  }
  if (ids.empty()) return Succeed();
  if (out == nullptr) return Fail(TRIT_STATUS_INVALID_ARGUMENT, "out_ids is NULL with a capacity of " + std::to_string(capacity));
  std::memcpy(out, ids.data(), ids.size() * sizeof(int32_t));
  return Succeed();
}

}  // namespace trit::api
