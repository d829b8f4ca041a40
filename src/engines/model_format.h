// Which format a model is, read from its bytes, never from its name: the
// registry matches it against the formats engines accept.
#pragma once

#include <string>

#include "base/status.h"

namespace trit::engines {

inline constexpr const char* kFormatGguf = "gguf";  // a file starting with the magic "GGUF"
inline constexpr const char* kFormatPack = "pack";  // a directory holding plan.json (an NPU kernel pack)

// "gguf" or "pack"; an error naming the path and the bytes found otherwise
// (or why it could not be read).
Expected<std::string> SniffModelFormat(const std::string& path);

}  // namespace trit::engines
