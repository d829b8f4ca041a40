#include "store/model_store.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "store/download.h"
#include "store/models_home.h"
#include "store/pull.h"
#include "store/resolve.h"
#include "store/store_lock.h"
#include "test_paths.h"

namespace trit::store {
namespace {

namespace fs = std::filesystem;

class ModelStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / fs::path("trit-model-store-test-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    ::setenv("TRIT_HOME", root_.c_str(), 1);
  }
  void TearDown() override {
    ::unsetenv("TRIT_HOME");
    fs::remove_all(root_);
  }
  ModelStore Store() { return ModelStore((root_ / "models").string()); }
  fs::path root_;
};

TEST_F(ModelStoreTest, HomeComesFromTritHomeThenHome) {
  EXPECT_EQ(*ModelsHome(), root_.string());
  EXPECT_EQ(*ModelsDir(), (root_ / "models").string());
  ::unsetenv("TRIT_HOME");
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] != '\0') {
    EXPECT_EQ(*ModelsHome(), std::string(home) + "/.trit");
  }
}

TEST_F(ModelStoreTest, PullLocalFileThenFindResolveRemove) {
  const ModelStore store = Store();
  std::vector<PullEvent::Kind> kinds;
  Expected<PullResult> r = Pull(store, testing::BundledModelPath(), PullOptions{},
                                [&](const PullEvent& e) { kinds.push_back(e.kind); });
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_FALSE(r->already_present);
  EXPECT_EQ(r->manifest.name, "stories260k");
  EXPECT_EQ(r->manifest.size, fs::file_size(testing::BundledModelPath()));
  EXPECT_EQ(r->manifest.sha256, *FileSha256(testing::BundledModelPath()));
  EXPECT_EQ(kinds.front(), PullEvent::Kind::kStart);
  EXPECT_EQ(kinds.back(), PullEvent::Kind::kDone);

  Expected<StoreEntry> e = store.Find("stories260k");
  ASSERT_TRUE(e.ok());
  EXPECT_TRUE(e->present);
  EXPECT_EQ(*ResolveModelArgument("stories260k", {}), r->path);
  EXPECT_TRUE(LooksLikeModelArgument("stories260k"));
  EXPECT_FALSE(LooksLikeModelArgument("Once upon a time"));
  // Paths stay paths; unknown bare names are an error naming the directory.
  EXPECT_EQ(*ResolveModelArgument("some/file.gguf", {}), "some/file.gguf");
  EXPECT_NE(ResolveModelArgument("nosuchmodel", {}).status().message().find(store.dir()), std::string::npos);

  Expected<PullResult> again = Pull(store, testing::BundledModelPath(), PullOptions{}, {});
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->already_present);

  ASSERT_TRUE(store.Remove("stories260k").ok());
  EXPECT_FALSE(fs::exists(r->path));
  EXPECT_EQ(store.Find("stories260k").status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(store.Remove("stories260k").code(), ErrorCode::kNotFound);
}

// `trit run DIR` takes a pack directory (one holding plan.json) as the
// model, not as a prompt; any other directory stays text.
TEST_F(ModelStoreTest, APackDirectoryLooksLikeAModel) {
  const fs::path pack = root_ / "pack";
  const fs::path plain = root_ / "plain";
  fs::create_directories(pack);
  fs::create_directories(plain);
  std::ofstream(pack / "plan.json") << "{}";
  EXPECT_TRUE(LooksLikeModelArgument(pack.string()));
  EXPECT_FALSE(LooksLikeModelArgument(plain.string()));
  EXPECT_FALSE(LooksLikeModelArgument((plain / "plan.json").string()));
  EXPECT_EQ(*ResolveModelArgument(pack.string(), {}), pack.string());
}

TEST_F(ModelStoreTest, WrongShaLeavesNothing) {
  const ModelStore store = Store();
  PullOptions o;
  o.sha256 = std::string(64, '0');
  Expected<PullResult> r = Pull(store, testing::BundledModelPath(), o, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("sha256 mismatch"), std::string::npos);
  EXPECT_TRUE(store.Scan().empty());
  EXPECT_FALSE(fs::exists(store.PathsFor("stories260k").partial));
  o.sha256 = "xyz";
  EXPECT_EQ(Pull(store, testing::BundledModelPath(), o, {}).status().code(), ErrorCode::kInvalidArgument);
}

TEST_F(ModelStoreTest, NotGgufIsRefused) {
  const ModelStore store = Store();
  ASSERT_TRUE(store.EnsureDir().ok());
  const std::string junk = (root_ / "junk.gguf").string();
  std::ofstream(junk) << "<html>hello</html>";
  Expected<PullResult> r = Pull(store, junk, PullOptions{}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("HTML"), std::string::npos) << r.status().message();
  // Starts like GGUF but is cut short: the structure check refuses it.
  std::ofstream(junk, std::ios::trunc) << "GGUF\x03";
  r = Pull(store, junk, PullOptions{}, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not a complete GGUF"), std::string::npos) << r.status().message();
  EXPECT_TRUE(store.Scan().empty());
}

TEST_F(ModelStoreTest, StaleManifestsAreCleanedNotListed) {
  const ModelStore store = Store();
  ASSERT_TRUE(Pull(store, testing::BundledModelPath(), PullOptions{}, {}).ok());
  PullOptions o;
  o.name = "second";
  ASSERT_TRUE(Pull(store, testing::BundledModelPath(), o, {}).ok());
  fs::remove(store.PathsFor("stories260k").model);
  fs::resize_file(store.PathsFor("second").model, 100);
  std::vector<StoreEntry> scan = store.Scan();
  ASSERT_EQ(scan.size(), 2u);
  EXPECT_FALSE(scan[0].present);
  EXPECT_NE(scan[0].problem.find("has 100 bytes"), std::string::npos) << scan[0].problem;
  EXPECT_NE(scan[1].problem.find("gone"), std::string::npos);
  EXPECT_EQ(store.CleanStale().size(), 2u);
  EXPECT_TRUE(store.Scan().empty());
  EXPECT_FALSE(fs::exists(store.PathsFor("second").model));
}

TEST_F(ModelStoreTest, LockIsExclusiveAndNamesTheCase) {
  const ModelStore store = Store();
  ASSERT_TRUE(store.EnsureDir().ok());
  const std::string lock_path = store.PathsFor("x").lock;
  Expected<StoreLock> held = StoreLock::Acquire(lock_path, StoreLock::Wait::kNo);
  ASSERT_TRUE(held.ok());
  // flock locks belong to the open file description: a second open is a second holder.
  Expected<StoreLock> second = StoreLock::Acquire(lock_path, StoreLock::Wait::kNo);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find(kLockBusy), std::string::npos);
  EXPECT_TRUE(StoreLock::IsHeld(lock_path));
  std::ofstream(store.PathsFor("x").manifest) << "{}";
  EXPECT_NE(store.Remove("x").message().find("being pulled"), std::string::npos);
}

TEST_F(ModelStoreTest, FreeSpaceIsCheckedBeforeWriting) {
  // Against the real filesystem only figures no other writer can flip: the
  // free space of a shared /tmp moves while parallel tests run.
  const std::string dir = fs::temp_directory_path().string();
  Expected<uint64_t> free = FreeBytes(dir + "/x");
  ASSERT_TRUE(free.ok()) << free.status().message();
  EXPECT_TRUE(CheckFreeSpace(dir + "/x", 0, 0).ok());
  const Status s = CheckFreeSpace(dir + "/x", UINT64_MAX, 0);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("not enough free space in " + dir), std::string::npos) << s.message();
  // The verdict on fixed figures: the reserve counts too, and huge figures do not overflow.
  EXPECT_TRUE(FreeSpaceVerdict(dir + "/x", 100, 100, 0).ok());
  EXPECT_FALSE(FreeSpaceVerdict(dir + "/x", 100, 101, 0).ok());
  EXPECT_FALSE(FreeSpaceVerdict(dir + "/x", 100, 100, 1).ok());
  EXPECT_TRUE(FreeSpaceVerdict(dir + "/x", 100, 60, 40).ok());
  EXPECT_FALSE(FreeSpaceVerdict(dir + "/x", 100, UINT64_MAX, UINT64_MAX).ok());
  EXPECT_NE(FreeSpaceVerdict(dir + "/x", 100, 101, 7).message().find("101 bytes needed (+7 kept free), 100 available"),
            std::string::npos);
}

}  // namespace
}  // namespace trit::store
