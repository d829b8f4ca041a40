#include "engines/model_format.h"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <system_error>

#include "formats/pack/plan.h"

namespace trit::engines {

namespace {

std::string Printable(const unsigned char* bytes, size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += fmt::format("{}{:02x}", i == 0 ? "" : " ", bytes[i]);
  return out;
}

}  // namespace

Expected<std::string> SniffModelFormat(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(st)) return Error(ErrorCode::kNotFound, "{}: no such file or directory", path);
  if (std::filesystem::is_directory(st)) {
    if (std::filesystem::is_regular_file(std::filesystem::path(path) / "plan.json", ec)) return std::string(kFormatPack);
    return Error(ErrorCode::kUnsupported, "{}: a directory without plan.json is not a model (expected a GGUF file or a pack)",
                 path);
  }
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return Error(ErrorCode::kIo, "{}: cannot open for reading", path);
  unsigned char magic[4] = {};
  const size_t n = std::fread(magic, 1, sizeof magic, f.get());
  if (n == 4 && magic[0] == 'G' && magic[1] == 'G' && magic[2] == 'U' && magic[3] == 'F') return std::string(kFormatGguf);
  return Error(ErrorCode::kUnsupported, "{}: unknown model format: first bytes [{}], expected the GGUF magic \"GGUF\"",
               path, Printable(magic, n));
}

Expected<std::string> WeightsFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_directory(path, ec)) return path;
  Expected<std::string> format = SniffModelFormat(path);  // a directory is a model only as a pack
  if (!format.ok()) return format.status();
  Expected<pack::PackPlan> plan = pack::ReadPlan(path);
  if (!plan.ok()) return plan.status();
  return (std::filesystem::path(path) / plan->model).string();
}

}  // namespace trit::engines
