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

// The GGUF file holding the weights, tokenizer and metadata of the model at
// `path`, for the commands that read those besides loading the model: a file
// is its own (opening it as GGUF reports what is wrong with it); a pack
// directory's is <dir>/<plan.json "model">. A directory that is not a pack,
// or whose plan cannot be read, is an error naming it (and the plan's field).
Expected<std::string> WeightsFile(const std::string& path);

}  // namespace trit::engines
