// trit_model_load: paths, store names, engine pins, and every refusal naming what was wrong.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "api/api_test_util.h"
#include "store/model_store.h"
#include "store/pull.h"

namespace trit::testing {
namespace {

trit_status Load(const char* model, const char* engine, trit_model** out) {
  trit_model_options o;
  trit_model_options_default(&o);
  o.model = model;
  o.engine = engine;
  return trit_model_load(&o, out);
}

std::string LastError() { return trit_last_error(); }

TEST(ApiModelLoadTest, BundledModelLoadsOnTheRegistrysChoice) {
  trit_model* m = nullptr;
  ASSERT_EQ(Load(BundledModelPath().c_str(), nullptr, &m), TRIT_STATUS_OK) << LastError();
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(LastError(), "");
  EXPECT_STREQ(trit_model_engine(m), "cpu");
  EXPECT_EQ(std::string(trit_model_path(m)), BundledModelPath());
  trit_model_free(m);
  trit_model_free(nullptr);  // accepted
}

// A pack directory is a model: the pack engine loads the weights file its
// plan names, and the tokenizer is read from that file.
TEST(ApiModelLoadTest, APackDirectoryLoadsOnThePackEngine) {
  namespace fs = std::filesystem;
  const fs::path pack = fs::temp_directory_path() / ("trit-api-pack-" + std::to_string(::getpid()));
  fs::remove_all(pack);
  fs::create_directories(pack);
  std::ofstream(pack / "plan.json") << R"({"format":"trit-pack","version":1,"model":"m.gguf","device":"xdna2","ops":[]})";
  fs::create_symlink(BundledModelPath(), pack / "m.gguf");
  trit_model* m = nullptr;
  ASSERT_EQ(Load(pack.c_str(), nullptr, &m), TRIT_STATUS_OK) << LastError();
  EXPECT_STREQ(trit_model_engine(m), "pack");
  EXPECT_EQ(std::string(trit_model_path(m)), pack.string());
  trit_model_free(m);
  fs::remove_all(pack);
}

TEST(ApiModelLoadTest, MissingFileNamesTheFile) {
  trit_model* m = reinterpret_cast<trit_model*>(0x1);
  const trit_status s = Load("/nonexistent/dir/model.gguf", nullptr, &m);
  EXPECT_NE(s, TRIT_STATUS_OK);
  EXPECT_EQ(m, nullptr);  // cleared on failure
  EXPECT_NE(LastError().find("/nonexistent/dir/model.gguf"), std::string::npos) << LastError();
}

TEST(ApiModelLoadTest, EnginePinHonouredOrRefusedNamingWhatCan) {
  trit_model* m = nullptr;
  ASSERT_EQ(Load(BundledModelPath().c_str(), "reference", &m), TRIT_STATUS_OK) << LastError();
  EXPECT_STREQ(trit_model_engine(m), "reference");
  trit_model_free(m);

  EXPECT_EQ(Load(BundledModelPath().c_str(), "no-such-engine", &m), TRIT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(m, nullptr);
  const std::string e = LastError();
  EXPECT_EQ(e.find("trit_model_options.engine no-such-engine"), 0u) << e;
  EXPECT_NE(e.find("cpu"), std::string::npos) << e;  // what can
}

TEST(ApiModelLoadTest, BadOptionsAreRefusedByName) {
  trit_model* m = nullptr;
  EXPECT_EQ(trit_model_load(nullptr, &m), TRIT_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(Load(nullptr, nullptr, &m), TRIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("trit_model_options.model"), std::string::npos) << LastError();
  const std::string path = BundledModelPath();  // outlives every call below (the options keep a pointer)
  trit_model_options o;
  trit_model_options_default(&o);
  o.model = path.c_str();
  EXPECT_EQ(trit_model_load(&o, nullptr), TRIT_STATUS_INVALID_ARGUMENT);
  o.n_threads = -1;
  EXPECT_EQ(trit_model_load(&o, &m), TRIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("n_threads -1"), std::string::npos) << LastError();
  o.n_threads = 0;
  o.reserved = 1;
  EXPECT_EQ(trit_model_load(&o, &m), TRIT_STATUS_UNSUPPORTED);
  EXPECT_NE(LastError().find("reserved"), std::string::npos) << LastError();
  o.reserved = 0;
  o.struct_size = 0;  // not initialised by trit_model_options_default
  EXPECT_EQ(trit_model_load(&o, &m), TRIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("struct_size"), std::string::npos) << LastError();
}

TEST(ApiModelLoadTest, UrlsAreNotDownloaded) {
  trit_model* m = nullptr;
  EXPECT_EQ(Load("https://example.com/m.gguf", nullptr, &m), TRIT_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(LastError().find("trit pull https://example.com/m.gguf"), std::string::npos) << LastError();
  EXPECT_EQ(Load("hf.co/org/repo/m.gguf", nullptr, &m), TRIT_STATUS_INVALID_ARGUMENT);
}

// TRIT_HOME pointing at a fresh store for one test.
class ApiStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = std::filesystem::temp_directory_path() / ("trit-api-store-" + std::to_string(::getpid()));
    std::filesystem::create_directories(home_);
    ASSERT_EQ(::setenv("TRIT_HOME", home_.c_str(), 1), 0);
  }
  void TearDown() override {
    ::unsetenv("TRIT_HOME");
    std::filesystem::remove_all(home_);
  }
  std::filesystem::path home_;
};

TEST_F(ApiStoreTest, StoreNameLoadsTheStoresFile) {
  Expected<store::ModelStore> st = store::ModelStore::OpenDefault();
  ASSERT_TRUE(st.ok()) << st.status().message();
  store::PullOptions po;
  po.name = "tiny-stories";
  Expected<store::PullResult> pulled = store::Pull(*st, BundledModelPath(), po, [](const store::PullEvent&) {});
  ASSERT_TRUE(pulled.ok()) << pulled.status().message();

  trit_model* m = nullptr;
  ASSERT_EQ(Load("tiny-stories", nullptr, &m), TRIT_STATUS_OK) << LastError();
  EXPECT_EQ(std::string(trit_model_path(m)), pulled->path);
  trit_model_free(m);

  EXPECT_EQ(Load("not-pulled", nullptr, &m), TRIT_STATUS_NOT_FOUND);
  EXPECT_NE(LastError().find("'not-pulled'"), std::string::npos) << LastError();
}

}  // namespace
}  // namespace trit::testing
