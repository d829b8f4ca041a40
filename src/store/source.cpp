#include "store/source.h"

#include <cctype>
#include <filesystem>
#include <vector>

namespace trit::store {
namespace {

bool StartsWithNoCase(std::string_view text, std::string_view prefix) {
  if (text.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
  }
  return true;
}

}  // namespace

bool IsHttpUrl(std::string_view text) {
  return StartsWithNoCase(text, "http://") || StartsWithNoCase(text, "https://");
}

bool IsHubPath(std::string_view text) {
  return StartsWithNoCase(text, "hf.co/") || StartsWithNoCase(text, "huggingface.co/");
}

Expected<std::string> HubDownloadUrl(std::string_view hub_path) {
  if (!IsHubPath(hub_path)) {
    return Error(ErrorCode::kInvalidArgument, "'{}' is not a Hub path (hf.co/ORG/REPO/FILE.gguf)", hub_path);
  }
  std::string_view rest = hub_path.substr(hub_path.find('/') + 1);
  std::vector<std::string_view> parts;
  while (!rest.empty()) {
    const size_t slash = rest.find('/');
    parts.push_back(rest.substr(0, slash));
    if (slash == std::string_view::npos) break;
    rest = rest.substr(slash + 1);
  }
  if (parts.size() < 3) {
    return Error(ErrorCode::kInvalidArgument,
                 "Hub path '{}' needs an organisation, a repository and a file: hf.co/ORG/REPO/FILE.gguf", hub_path);
  }
  for (std::string_view p : parts) {
    if (p.empty() || p == "." || p == "..") {
      return Error(ErrorCode::kInvalidArgument, "Hub path '{}' has an empty, '.' or '..' segment", hub_path);
    }
    for (char c : p) {
      if (std::isspace(static_cast<unsigned char>(c)) != 0 || c == '?' || c == '#' || c == '%') {
        return Error(ErrorCode::kInvalidArgument, "Hub path '{}' has a character not allowed in it ('{}')",
                     hub_path, c);
      }
    }
  }
  std::string url = fmt::format("https://huggingface.co/{}/{}/resolve/main", parts[0], parts[1]);
  for (size_t i = 2; i < parts.size(); ++i) url += fmt::format("/{}", parts[i]);
  return url;
}

Expected<PullSource> ParsePullSource(std::string_view source) {
  if (IsHttpUrl(source)) return PullSource{PullSource::Kind::kUrl, std::string(source)};
  if (IsHubPath(source)) {
    Expected<std::string> url = HubDownloadUrl(source);
    if (!url.ok()) return url.status();
    return PullSource{PullSource::Kind::kUrl, *url};
  }
  std::error_code ec;
  const std::filesystem::path path{std::string(source)};
  if (!std::filesystem::exists(path, ec)) {
    return Error(ErrorCode::kNotFound,
                 "'{}' is not an http(s):// URL, an hf.co/ORG/REPO/FILE.gguf path, or an existing file", source);
  }
  if (!std::filesystem::is_regular_file(path, ec)) {
    return Error(ErrorCode::kInvalidArgument, "'{}' is not a regular file", source);
  }
  return PullSource{PullSource::Kind::kLocalFile, std::string(source)};
}

}  // namespace trit::store
