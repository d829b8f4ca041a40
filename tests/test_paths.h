// Paths of test data, baked in by tests/CMakeLists.txt.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace trit::testing {

inline std::string SourcePath(const std::string& relative) {
  return std::string(TRIT_SOURCE_DIR) + "/" + relative;
}

// The bundled model, models/stories260K.gguf.
inline std::string BundledModelPath() { return SourcePath("models/stories260K.gguf"); }

// A file under the shared reference data (../shared/data); empty when the
// directory is not there. TRIT_SHARED_DATA overrides the configured path.
inline std::string SharedDataPath(const std::string& relative) {
  const char* env = std::getenv("TRIT_SHARED_DATA");
  const std::string root = env != nullptr ? env : TRIT_SHARED_DATA_DIR;
  const std::string path = root + "/" + relative;
  return std::filesystem::exists(path) ? path : std::string();
}

}  // namespace trit::testing
