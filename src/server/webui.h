// The web chat page that `trit serve` answers `/` with: HTML, CSS and plain
// JavaScript from src/server/webui/, compiled into the binary at build time
// (cmake/embed_files.cmake), and the security headers that keep model output
// inert in the browser.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>
#include <vector>

namespace trit::server {

// One file of src/server/webui/ as the build embedded it.
struct EmbeddedFile {
  const char* name;  // relative to src/server/webui/, e.g. "app.js"
  const unsigned char* data;
  size_t size;
};
extern const EmbeddedFile kEmbeddedFiles[];
extern const size_t kEmbeddedFileCount;

struct WebAsset {
  std::string_view name;          // the file under src/server/webui/
  std::string_view content_type;  // with charset for text
  std::string_view body;
};

// The asset a GET of `path` answers with: "/" is index.html, "/webui/NAME"
// an embedded file; nullopt for any other path.
std::optional<WebAsset> FindWebAsset(std::string_view path);

// Every embedded file (the tests compare them with the source tree).
std::vector<WebAsset> WebAssets();

// The page's Content-Security-Policy: script and style only from the
// server's own files (no inline script or handler attribute runs, so markup
// that a reply smuggles into the page cannot execute), fetches only to the
// same origin, nothing loaded from anywhere else, no framing.
inline constexpr std::string_view kWebUiContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

}  // namespace trit::server
