// The small JSON file beside each model in the store: where it came from
// and what it must be. Written only after the model file is in place, so a
// manifest never describes a file that was not complete (docs/MODELS.md).
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"

namespace trit::store {

struct Manifest {
  std::string name;     // the model's name, also its file stem
  std::string source;   // the URL fetched, or the absolute local path copied
  uint64_t size = 0;    // bytes of the model file
  std::string sha256;   // 64 lower-case hex digits of the model file
  std::string added;    // UTC time of the pull, ISO 8601 ("2026-11-30T08:12:05Z")
};

// The manifest as one JSON object.
std::string ManifestToJson(const Manifest& manifest);

// Parses and validates (name a valid model name, sha256 64 hex digits).
// Errors name the field.
Expected<Manifest> ManifestFromJson(std::string_view text);

// Reads `path`; errors are prefixed with it.
Expected<Manifest> ReadManifest(const std::string& path);

// Writes `path` atomically (temporary file, then rename).
Status WriteManifest(const std::string& path, const Manifest& manifest);

// Now, as Manifest::added wants it.
std::string UtcNowIso8601();

}  // namespace trit::store
