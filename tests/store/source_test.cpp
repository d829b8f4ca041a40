#include "store/source.h"

#include <gtest/gtest.h>

#include "test_paths.h"

namespace trit::store {
namespace {

TEST(Source, HubPathsBecomeResolveUrls) {
  EXPECT_EQ(*HubDownloadUrl("hf.co/Qwen/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf"),
            "https://huggingface.co/Qwen/Qwen3-0.6B-GGUF/resolve/main/Qwen3-0.6B-Q8_0.gguf");
  EXPECT_EQ(*HubDownloadUrl("huggingface.co/org/repo/sub/dir/f.gguf"),
            "https://huggingface.co/org/repo/resolve/main/sub/dir/f.gguf");
  EXPECT_EQ(*HubDownloadUrl("HF.CO/o/r/f.gguf"), "https://huggingface.co/o/r/resolve/main/f.gguf");
}

TEST(Source, BadHubPathsAreRefused) {
  for (const char* bad : {"hf.co/org/repo", "hf.co/org", "hf.co/", "hf.co/o//f.gguf", "hf.co/o/r/../f.gguf",
                          "hf.co/o/r/f.gguf?x=1", "hf.co/o/r/a b.gguf", "example.com/o/r/f.gguf"}) {
    EXPECT_FALSE(HubDownloadUrl(bad).ok()) << bad;
  }
}

TEST(Source, Classifies) {
  Expected<PullSource> url = ParsePullSource("HTTPS://example.com/m.gguf");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->kind, PullSource::Kind::kUrl);
  Expected<PullSource> hub = ParsePullSource("hf.co/o/r/m.gguf");
  ASSERT_TRUE(hub.ok());
  EXPECT_EQ(hub->location, "https://huggingface.co/o/r/resolve/main/m.gguf");
  Expected<PullSource> local = ParsePullSource(testing::BundledModelPath());
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local->kind, PullSource::Kind::kLocalFile);
  EXPECT_EQ(ParsePullSource("/no/such/file.gguf").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(ParsePullSource("/tmp").status().code(), ErrorCode::kInvalidArgument);
  EXPECT_FALSE(ParsePullSource("ftp://example.com/m.gguf").ok());
  EXPECT_FALSE(IsHttpUrl("file:///etc/passwd"));
}

}  // namespace
}  // namespace trit::store
