#include "store/manifest.h"

#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "base/atomic_file.h"
#include "store/model_name.h"

namespace trit::store {

std::string ManifestToJson(const Manifest& m) {
  nlohmann::ordered_json j;
  j["name"] = m.name;
  j["source"] = m.source;
  j["size"] = m.size;
  j["sha256"] = m.sha256;
  j["added"] = m.added;
  return j.dump(2) + "\n";
}

Expected<Manifest> ManifestFromJson(std::string_view text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return Error(ErrorCode::kCorrupt, "manifest is not a JSON object");
  Manifest m;
  auto get_string = [&](const char* key, std::string* out) -> Status {
    auto it = j.find(key);
    if (it == j.end() || !it->is_string()) return Error(ErrorCode::kCorrupt, "manifest field '{}': expected a string", key);
    *out = it->get<std::string>();
    return Status::Ok();
  };
  for (auto [key, out] : {std::pair{"name", &m.name}, {"source", &m.source}, {"sha256", &m.sha256}, {"added", &m.added}}) {
    if (Status s = get_string(key, out); !s.ok()) return s;
  }
  auto size = j.find("size");
  if (size == j.end() || !size->is_number_unsigned()) {
    return Error(ErrorCode::kCorrupt, "manifest field 'size': expected a non-negative integer");
  }
  m.size = size->get<uint64_t>();
  if (Status s = ValidateModelName(m.name); !s.ok()) return s.WithContext("manifest field 'name'");
  bool hex = m.sha256.size() == 64;
  for (char c : m.sha256) hex = hex && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
  if (!hex) return Error(ErrorCode::kCorrupt, "manifest field 'sha256': expected 64 lower-case hex digits");
  return m;
}

Expected<Manifest> ReadManifest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(ErrorCode::kNotFound, "{}: cannot open", path);
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().size() > (1u << 20)) return Error(ErrorCode::kCorrupt, "{}: manifest larger than 1 MiB", path);
  Expected<Manifest> m = ManifestFromJson(text.str());
  if (!m.ok()) return m.status().WithContext(path);
  return m;
}

Status WriteManifest(const std::string& path, const Manifest& manifest) {
  Expected<AtomicFileWriter> w = AtomicFileWriter::Create(path);
  if (!w.ok()) return w.status();
  const std::string json = ManifestToJson(manifest);
  if (Status s = w->Write({reinterpret_cast<const uint8_t*>(json.data()), json.size()}); !s.ok()) return s;
  return w->Commit();
}

std::string UtcNowIso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace trit::store
