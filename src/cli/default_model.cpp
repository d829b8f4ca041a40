#include "cli/default_model.h"

#include <filesystem>
#include <system_error>

namespace trit::cli {

namespace {
constexpr const char* kBundledModel = "stories260K.gguf";
}  // namespace

std::vector<std::string> DefaultModelCandidates() {
  std::vector<std::string> out;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const std::filesystem::path dir = exe.parent_path();
    out.push_back((dir.parent_path() / "models" / kBundledModel).string());
    out.push_back((dir / "models" / kBundledModel).string());
  }
  out.push_back((std::filesystem::path(TRIT_SOURCE_DIR) / "models" / kBundledModel).string());
  return out;
}

Expected<std::string> DefaultModelPath() {
  const std::vector<std::string> candidates = DefaultModelCandidates();
  for (const std::string& c : candidates) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(c, ec)) return c;
  }
  std::string list;
  for (const std::string& c : candidates) list += (list.empty() ? "" : ", ") + c;
  return Error(ErrorCode::kNotFound, "no MODEL given and the bundled model is not at any of: {}", list);
}

}  // namespace trit::cli
