// What `trit pull SOURCE` was given: an http(s) URL, a Hugging Face file
// path (hf.co/ORG/REPO/FILE.gguf), or a local file.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace trit::store {

struct PullSource {
  enum class Kind { kUrl, kLocalFile };
  Kind kind = Kind::kUrl;
  std::string location;  // the URL to fetch (Hub paths already resolved), or the local path
};

// True for "http://..." and "https://..." (case-insensitive scheme).
bool IsHttpUrl(std::string_view text);

// True for "hf.co/..." and "huggingface.co/..." without a scheme.
bool IsHubPath(std::string_view text);

// hf.co/ORG/REPO/PATH/FILE.gguf -> https://huggingface.co/ORG/REPO/resolve/main/PATH/FILE.gguf
// ("huggingface.co/" works the same). An error naming what is missing when
// the path has no org, repo or file, or a segment is "." or "..".
Expected<std::string> HubDownloadUrl(std::string_view hub_path);

// Classifies `source`: a URL or Hub path becomes a URL, anything else must
// be an existing regular file.
Expected<PullSource> ParsePullSource(std::string_view source);

}  // namespace trit::store
