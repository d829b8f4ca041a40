// The caller-buffer protocol of the C API: the size needed always goes to
// *n_out; the data is written only when it fits.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "api/errors.h"

namespace trit::api {

// Text and a NUL into out[0..capacity); *n_out = text.size() (without the
// NUL). TRIT_STATUS_BUFFER_TOO_SMALL (nothing written) when capacity <= size.
trit_status WriteText(std::string_view text, char* out, size_t capacity, size_t* n_out) noexcept;

// Ids into out[0..capacity); *n_out = ids.size(). TRIT_STATUS_BUFFER_TOO_SMALL
// (nothing written) when capacity < size.
trit_status WriteIds(std::span<const int32_t> ids, int32_t* out, size_t capacity, size_t* n_out) noexcept;

}  // namespace trit::api
