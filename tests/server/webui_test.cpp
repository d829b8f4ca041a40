// The chat page as compiled in (src/server/webui.*): every file of
// src/server/webui/ is embedded as it is in the tree, paths map to the right
// file and type, and the page keeps the promises its Content-Security-Policy
// relies on (no inline script or handler, relative URLs only, no HTML built
// from strings).
#include "server/webui.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

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

TEST(WebUi, ThePageHasNoInlineScriptOrHandlerAndOnlyRelativeUrls) {
  const std::string html = Asset("/");
  // Every <script> loads a file; no on*= handler attribute, no style=.
  const std::regex script_tag(R"(<script\b([^>]*)>([^<]*)</script>)", std::regex::icase);
  int n_scripts = 0;
  for (std::sregex_iterator it(html.begin(), html.end(), script_tag), end; it != end; ++it, ++n_scripts) {
    EXPECT_NE((*it)[1].str().find("src="), std::string::npos) << it->str();
    EXPECT_EQ((*it)[2].str(), "") << it->str();
  }
  EXPECT_EQ(n_scripts, 2);
  EXPECT_FALSE(std::regex_search(html, std::regex(R"(\son[a-z]+\s*=)", std::regex::icase)));
  EXPECT_FALSE(std::regex_search(html, std::regex(R"(\sstyle\s*=)", std::regex::icase)));
  // URLs are relative (the page works under a proxy's path prefix) and local.
  const std::regex url_attr(R"re((?:src|href)\s*=\s*"([^"]*)")re", std::regex::icase);
  int n_urls = 0;
  for (std::sregex_iterator it(html.begin(), html.end(), url_attr), end; it != end; ++it, ++n_urls) {
    const std::string url = (*it)[1];
    EXPECT_TRUE(url.starts_with("webui/") || url == "data:,") << url;
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
