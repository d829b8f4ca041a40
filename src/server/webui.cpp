#include "server/webui.h"

namespace trit::server {

namespace {

std::string_view ContentType(std::string_view name) {
  struct Type {
    std::string_view extension, content_type;
  };
  static constexpr Type kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".svg", "image/svg+xml"},
  };
  for (const Type& t : kTypes) {
    if (name.ends_with(t.extension)) return t.content_type;
  }
  return "application/octet-stream";
}

WebAsset ToAsset(const EmbeddedFile& f) {
  return {f.name, ContentType(f.name), std::string_view(reinterpret_cast<const char*>(f.data), f.size)};
}

}  // namespace

std::optional<WebAsset> FindWebAsset(std::string_view path) {
  constexpr std::string_view kPrefix = "/webui/";
  std::string_view name;
  if (path == "/") {
    name = "index.html";
  } else if (path.starts_with(kPrefix)) {
    name = path.substr(kPrefix.size());
  } else {
    return std::nullopt;
  }
  for (size_t i = 0; i < kEmbeddedFileCount; ++i) {
    if (name == kEmbeddedFiles[i].name) return ToAsset(kEmbeddedFiles[i]);
  }
  return std::nullopt;
}

std::vector<WebAsset> WebAssets() {
  std::vector<WebAsset> assets;
  for (size_t i = 0; i < kEmbeddedFileCount; ++i) assets.push_back(ToAsset(kEmbeddedFiles[i]));
  return assets;
}

}  // namespace trit::server
