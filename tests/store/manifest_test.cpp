#include "store/manifest.h"

#include <gtest/gtest.h>

namespace trit::store {
namespace {

const std::string kSha(64, 'a');

TEST(Manifest, RoundTrips) {
  const Manifest m{"stories260k", "https://example.com/s.gguf", 1185376, kSha, "2026-11-30T08:12:05Z"};
  Expected<Manifest> back = ManifestFromJson(ManifestToJson(m));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->name, m.name);
  EXPECT_EQ(back->source, m.source);
  EXPECT_EQ(back->size, m.size);
  EXPECT_EQ(back->sha256, m.sha256);
  EXPECT_EQ(back->added, m.added);
}

TEST(Manifest, RefusesBadFieldsByName) {
  auto error_of = [](const std::string& json) { return ManifestFromJson(json).status().message(); };
  EXPECT_NE(error_of("[]").find("not a JSON object"), std::string::npos);
  EXPECT_NE(error_of("{").find("not a JSON object"), std::string::npos);
  const std::string ok_rest = R"("source":"s","sha256":")" + kSha + R"(","added":"t")";
  EXPECT_NE(error_of(R"({"name":"../x","size":1,)" + ok_rest + "}").find("'name'"), std::string::npos);
  EXPECT_NE(error_of(R"({"name":"x","size":-1,)" + ok_rest + "}").find("'size'"), std::string::npos);
  EXPECT_NE(error_of(R"({"name":"x","size":1,"source":"s","sha256":"zz","added":"t"})").find("'sha256'"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"size":1,)" + ok_rest + "}").find("'name'"), std::string::npos);
}

TEST(Manifest, UtcNowLooksLikeIso8601) {
  const std::string now = UtcNowIso8601();
  ASSERT_EQ(now.size(), 20u);
  EXPECT_EQ(now[4], '-');
  EXPECT_EQ(now[10], 'T');
  EXPECT_EQ(now.back(), 'Z');
}

}  // namespace
}  // namespace trit::store
