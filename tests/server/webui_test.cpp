// The chat page as compiled in (src/server/webui.*): every file of
// src/server/webui/ is embedded as it is in the tree, paths map to the right
// file and type, and the page keeps the promises its Content-Security-Policy
// relies on (no inline script or handler, relative URLs only, no HTML built
// from strings).
#include "server/webui.h"

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace trit::server {
namespace {

const std::filesystem::path kSourceDir = TRIT_WEBUI_DIR;

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string Asset(std::string_view path) {
  const std::optional<WebAsset> asset = FindWebAsset(path);
  EXPECT_TRUE(asset.has_value()) << path;
  return asset ? std::string(asset->body) : std::string();
}

TEST(WebUi, EveryFileOfTheSourceTreeIsEmbeddedAsItIs) {
  std::set<std::string> on_disk, embedded;
  for (const auto& entry : std::filesystem::directory_iterator(kSourceDir)) on_disk.insert(entry.path().filename());
  for (const WebAsset& a : WebAssets()) {
    embedded.insert(std::string(a.name));
    EXPECT_EQ(a.body, ReadFile(kSourceDir / a.name)) << a.name << " differs from the source tree";
  }
  EXPECT_EQ(embedded, on_disk) << "a file of src/server/webui/ is missing from TRIT_WEBUI_FILES";
}

TEST(WebUi, PathsMapToFilesAndTypes) {
  const std::optional<WebAsset> index = FindWebAsset("/");
  ASSERT_TRUE(index.has_value());
  EXPECT_EQ(index->name, "index.html");
  EXPECT_EQ(index->content_type, "text/html; charset=utf-8");
  EXPECT_EQ(FindWebAsset("/webui/app.js")->content_type, "text/javascript; charset=utf-8");
  EXPECT_EQ(FindWebAsset("/webui/style.css")->content_type, "text/css; charset=utf-8");
  for (const char* path : {"/index.html", "/webui/", "/webui", "/webui/../index.html", "/webui/missing.js",
                           "/webui/app.js/", "//webui/app.js", "/app.js", ""}) {
    EXPECT_FALSE(FindWebAsset(path).has_value()) << path;
  }
}

// The names of the attributes of every tag in `html` that are written
// `NAME=...`, each with its value (quotes removed). A scanner rather than
// std::regex: GCC 12 warns inside <regex> under the sanitizer build.
std::vector<std::pair<std::string, std::string>> Attributes(const std::string& html) {
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 0; i < html.size(); ++i) {
    if (!std::isspace(static_cast<unsigned char>(html[i]))) continue;
    size_t j = i + 1;
    while (j < html.size() && (std::isalnum(static_cast<unsigned char>(html[j])) || html[j] == '-')) ++j;
    if (j == i + 1 || j >= html.size() || html[j] != '=') continue;
    std::string name = html.substr(i + 1, j - i - 1);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::string value;
    if (j + 1 < html.size() && html[j + 1] == '"') {
      const size_t close = html.find('"', j + 2);
      value = html.substr(j + 2, close == std::string::npos ? std::string::npos : close - j - 2);
    } else {
      size_t k = j + 1;
      while (k < html.size() && !std::isspace(static_cast<unsigned char>(html[k])) && html[k] != '>') ++k;
      value = html.substr(j + 1, k - j - 1);
    }
    out.emplace_back(std::move(name), std::move(value));
  }
  return out;
}

TEST(WebUi, ThePageHasNoInlineScriptOrHandlerAndOnlyRelativeUrls) {
  const std::string html = Asset("/");
  // Every <script> loads a file and holds nothing itself.
  int n_scripts = 0;
  for (size_t at = html.find("<script"); at != std::string::npos; at = html.find("<script", at + 1), ++n_scripts) {
    const size_t end = html.find('>', at);
    ASSERT_NE(end, std::string::npos);
    EXPECT_NE(html.substr(at, end - at).find(" src="), std::string::npos) << html.substr(at, end - at);
    EXPECT_EQ(html.compare(end + 1, 9, "</script>"), 0) << html.substr(at, 80);
  }
  EXPECT_EQ(n_scripts, 2);
  // No on*= handler attribute, no style=; URLs are relative (the page works
  // under a proxy's path prefix) and local.
  int n_urls = 0;
  for (const auto& [name, value] : Attributes(html)) {
    EXPECT_FALSE(name.starts_with("on")) << name << "=" << value;
    EXPECT_NE(name, "style") << value;
    if (name == "src" || name == "href") {
      ++n_urls;
      EXPECT_TRUE(value.starts_with("webui/") || value == "data:,") << value;
    }
  }
  EXPECT_EQ(n_urls, 4);
}

TEST(WebUi, TheScriptsNeverBuildHtmlFromStrings) {
  for (const char* file : {"/webui/app.js", "/webui/render.js"}) {
    const std::string js = Asset(file);
    for (const char* sink : {"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                             "new Function", "http://", "https://"}) {
      EXPECT_EQ(js.find(sink), std::string::npos) << file << " uses " << sink;
    }
    // API calls are relative too.
    EXPECT_EQ(js.find("fetch(\"/"), std::string::npos) << file;
  }
}

TEST(WebUi, ThePolicyForbidsInlineScriptAndOtherOrigins) {
  const std::string_view csp = kWebUiContentSecurityPolicy;
  EXPECT_NE(csp.find("default-src 'none'"), std::string_view::npos);
  EXPECT_NE(csp.find("script-src 'self'"), std::string_view::npos);
  EXPECT_NE(csp.find("connect-src 'self'"), std::string_view::npos);
  EXPECT_EQ(csp.find("unsafe"), std::string_view::npos);
  EXPECT_EQ(csp.find('*'), std::string_view::npos);
}

}  // namespace
}  // namespace trit::server
