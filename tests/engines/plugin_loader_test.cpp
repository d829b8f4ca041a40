// Plugin discovery and loading: where plugins are looked for, and that every
// kind of broken plugin is listed unavailable with its reason while the
// in-tree plugin runs the bundled model bit-identically to the built-in
// reference engine through the C ABI.
#include "engines/plugin_loader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "engines/builtin_engines.h"
#include "test_paths.h"

namespace trit::engines {
namespace {

std::string TestPlugin(const std::string& name) { return std::string(TRIT_TEST_PLUGIN_DIR) + "/lib" + name + ".so"; }

const Registry::Entry& Only(const Registry& r) {
  EXPECT_EQ(r.entries().size(), 1u);
  return r.entries().front();
}

TEST(PluginDirectoriesTest, ExeDirThenEnginePathSkippingEmptyItems) {
  const std::vector<PluginDirectory> d = PluginDirectories("/opt/trit/bin", "/a::/b/:");
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].path, "/opt/trit/bin/engines");
  EXPECT_EQ(d[0].source, "exe dir");
  EXPECT_EQ(d[1].path, "/a");
  EXPECT_EQ(d[1].source, "TRIT_ENGINE_PATH");
  EXPECT_EQ(d[2].path, "/b/");
  EXPECT_EQ(PluginDirectories("/x", nullptr).size(), 1u);
  EXPECT_EQ(PluginDirectories("/x", "").size(), 1u);  // an empty item is never the working directory
  EXPECT_TRUE(PluginDirectories("", nullptr).empty());
}

TEST(PluginFilesTest, SharedLibrariesByNameOnly) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("trit-plugin-files-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  std::filesystem::create_directories(dir / "sub.so");
  for (const char* n : {"b.so", "a.so", "readme.txt", "c.so.1"}) std::ofstream(dir / n) << "x";
  const std::vector<std::string> files = PluginFiles(dir.string());
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0], (dir / "a.so").string());
  EXPECT_EQ(files[1], (dir / "b.so").string());
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(PluginFiles((dir / "gone").string()).empty());
}

TEST(PluginLoaderTest, CorruptFileIsUnavailable) {
  const std::filesystem::path p = std::filesystem::temp_directory_path() /
                                  ("trit-corrupt-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".so");
  std::ofstream(p) << "this is not an ELF file";
  Registry r;
  LoadPluginFile(p.string(), &r);
  std::filesystem::remove(p);
  const Registry::Entry& e = Only(r);
  EXPECT_FALSE(e.availability.available);
  EXPECT_EQ(e.engine->info().origin, p.string());
  EXPECT_NE(e.availability.reason.find("cannot be loaded"), std::string::npos) << e.availability.reason;
  EXPECT_TRUE(e.engine->info().capabilities.empty());
}

TEST(PluginLoaderTest, MissingSymbolIsUnavailable) {
  Registry r;
  LoadPluginFile(TestPlugin("trit_test_plugin_missing_symbol"), &r);
  const Registry::Entry& e = Only(r);
  EXPECT_FALSE(e.availability.available);
  EXPECT_EQ(e.engine->info().name, "libtrit_test_plugin_missing_symbol");
  EXPECT_NE(e.availability.reason.find("does not export the symbol 'trit_engine_plugin'"), std::string::npos)
      << e.availability.reason;
}

TEST(PluginLoaderTest, WrongAbiVersionIsRefusedBeforeAnythingIsCalled) {
  Registry r;
  LoadPluginFile(TestPlugin("trit_test_plugin_wrong_abi"), &r);  // its register_engines aborts if called
  const Registry::Entry& e = Only(r);
  EXPECT_FALSE(e.availability.available);
  EXPECT_NE(e.availability.reason.find("built for engine ABI version 999, this trit speaks version 1"), std::string::npos)
      << e.availability.reason;
}

TEST(PluginLoaderTest, FailedRegistrationIsUnavailableAndAddsNoEngine) {
  Registry r;
  LoadPluginFile(TestPlugin("trit_test_plugin_failing_registration"), &r);
  const Registry::Entry& e = Only(r);
  EXPECT_FALSE(e.availability.available);
  EXPECT_NE(e.availability.reason.find("registration failed (code 7): libnpu-runtime.so.3 not found"), std::string::npos)
      << e.availability.reason;
  EXPECT_EQ(r.Find("half-registered"), nullptr);
}

TEST(PluginLoaderTest, DeviceEnginePluginIsListedWithItsFamily) {
  const std::string path = TestPlugin("trit_test_plugin_device_family");
  Registry r;
  LoadPluginFile(path, &r);
  LoadPluginFile(TRIT_REFERENCE_ABI_PLUGIN, &r);
  const Registry::Entry* e = r.Find("testnpu_engine");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->engine->info().device_family, "testnpu");
  EXPECT_EQ(e->engine->info().formats, std::vector<std::string>{"pack"});
  EXPECT_EQ(e->engine->info().origin, path);
  EXPECT_FALSE(e->availability.available);
  EXPECT_EQ(e->availability.reason, "no testnpu device on this machine");
  // The test plugin loads nothing, and says so through the ABI.
  Expected<std::unique_ptr<model::Model>> m = e->engine->LoadModel("/packs/testnpu");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("testnpu_engine is a test plugin and cannot load /packs/testnpu"), std::string::npos)
      << m.status().message();
  // A plugin whose engine sets no device_family is a host engine.
  ASSERT_NE(r.Find("reference-abi"), nullptr);
  EXPECT_TRUE(r.Find("reference-abi")->engine->info().device_family.empty());
}

TEST(PluginLoaderTest, InTreePluginRunsTheModelLikeTheBuiltinReference) {
  Registry r;
  r.Add(MakeReferenceEngine());
  LoadPluginFile(TRIT_REFERENCE_ABI_PLUGIN, &r);
  const Registry::Entry* e = r.Find("refabi");
  ASSERT_NE(e, nullptr);
  ASSERT_TRUE(e->availability.available) << e->availability.reason;
  EXPECT_EQ(e->engine->info().name, "reference-abi");
  EXPECT_EQ(e->engine->info().origin, TRIT_REFERENCE_ABI_PLUGIN);
  EXPECT_EQ(e->engine->info().priority, 5);

  const std::vector<int32_t> ids = {1, 403, 407, 261, 378, 145, 29};
  std::vector<std::vector<float>> logits;
  for (const char* name : {"reference", "reference-abi"}) {
    const Engine* engine = r.Find(name)->engine.get();
    Expected<std::unique_ptr<model::Model>> m = engine->LoadModel(testing::BundledModelPath());
    ASSERT_TRUE(m.ok()) << m.status().message();
    runtime::SessionOptions so;
    so.n_ctx = 32;
    so.n_threads = 2;
    Expected<std::unique_ptr<runtime::Session>> s = engine->CreateSession(**m, so);
    ASSERT_TRUE(s.ok()) << s.status().message();
    // Three rows in one pass, then the rest one at a time: prefill and decode both cross the ABI.
    Expected<runtime::Logits> first = (*s)->Verify(std::span<const int32_t>(ids).first(3));
    ASSERT_TRUE(first.ok()) << first.status().message();
    std::vector<float> all = first->values;
    for (size_t i = 3; i < ids.size(); ++i) {
      Expected<runtime::Logits> l = (*s)->Verify(std::span<const int32_t>(ids).subspan(i, 1));
      ASSERT_TRUE(l.ok()) << l.status().message();
      all.insert(all.end(), l->values.begin(), l->values.end());
    }
    logits.push_back(std::move(all));
  }
  ASSERT_EQ(logits[0].size(), logits[1].size());
  EXPECT_TRUE(logits[0] == logits[1]);  // bit for bit
}

TEST(PluginLoaderTest, LoadErrorsComeBackThroughTheAbi) {
  Registry r;
  LoadPluginFile(TRIT_REFERENCE_ABI_PLUGIN, &r);
  Expected<std::unique_ptr<model::Model>> m = r.Find("reference-abi")->engine->LoadModel("/nonexistent/model.gguf");
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("engine 'reference-abi' could not load /nonexistent/model.gguf: "), std::string::npos)
      << m.status().message();
}

}  // namespace
}  // namespace trit::engines
