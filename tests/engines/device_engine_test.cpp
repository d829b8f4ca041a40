// FindDeviceEngine: which engine runs a pack on its device (family,
// availability, the "pack" format, priority, ties by name), and the refusal
// when none can: the family, why each engine of it cannot run, every
// directory searched, and --host.
#include "engines/device_engine.h"

#include <gtest/gtest.h>

#include "test_paths.h"

namespace trit::engines {
namespace {

// An engine that only declares itself (FindDeviceEngine reads declarations).
class DeclaredEngine final : public Engine {
 public:
  DeclaredEngine(std::string name, std::string family, int32_t priority, std::string unavailable_reason = "",
                 std::vector<std::string> formats = {"pack"}) {
    info_.name = std::move(name);
    info_.device_family = std::move(family);
    info_.priority = priority;
    info_.formats = std::move(formats);
    info_.capabilities = {"generate"};
    reason_ = std::move(unavailable_reason);
  }
  const EngineInfo& info() const override { return info_; }
  Availability Available() const override { return {reason_.empty(), reason_}; }
  Expected<std::unique_ptr<model::Model>> LoadModel(const std::string& path) const override {
    return Error(ErrorCode::kUnsupported, "{}: declared only", path);
  }

 private:
  EngineInfo info_;
  std::string reason_;
};

// A host engine like cpu: no family, GGUF only.
std::unique_ptr<Engine> Host(const std::string& name, int32_t priority) {
  return std::make_unique<DeclaredEngine>(name, "", priority, "", std::vector<std::string>{"gguf"});
}

const std::vector<PluginDirectory> kAbsentExeDir = {{"/nonexistent/bin/engines", "exe dir"}};

std::string Found(const Registry& r, const std::string& family, const std::vector<PluginDirectory>& searched = kAbsentExeDir) {
  Expected<const Engine*> e = FindDeviceEngine(r, family, searched);
  return e.ok() ? (*e)->info().name : "error: " + e.status().message();
}

TEST(FindDeviceEngineTest, AvailableEngineOfTheFamilyIsFound) {
  Registry r;
  r.Add(Host("cpu", 100));
  r.Add(std::make_unique<DeclaredEngine>("hexagon", "hexagon-v81", 900));
  r.Add(std::make_unique<DeclaredEngine>("npu", "xdna2", 50));
  EXPECT_EQ(Found(r, "xdna2"), "npu");
  EXPECT_EQ(Found(r, "hexagon-v81"), "hexagon");
}

TEST(FindDeviceEngineTest, HighestPriorityWinsAndTiesGoToTheSmallestName) {
  Registry r;
  r.Add(std::make_unique<DeclaredEngine>("low", "xdna2", 10));
  r.Add(std::make_unique<DeclaredEngine>("best-but-absent", "xdna2", 900, "no device /dev/accel/accel0"));
  r.Add(std::make_unique<DeclaredEngine>("high", "xdna2", 50));
  EXPECT_EQ(Found(r, "xdna2"), "high");
  for (bool b_first : {false, true}) {
    Registry t;
    if (b_first) t.Add(std::make_unique<DeclaredEngine>("bravo", "xdna2", 50));
    t.Add(std::make_unique<DeclaredEngine>("alpha", "xdna2", 50));
    if (!b_first) t.Add(std::make_unique<DeclaredEngine>("bravo", "xdna2", 50));
    EXPECT_EQ(Found(t, "xdna2"), "alpha");
  }
}

TEST(FindDeviceEngineTest, NoneFoundSaysWhereItLookedAndOffersHost) {
  Registry r;
  r.Add(Host("cpu", 100));
  r.Add(std::make_unique<DeclaredEngine>("hexagon", "hexagon-v81", 900));
  Expected<const Engine*> e = FindDeviceEngine(r, "xdna2", kAbsentExeDir);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), ErrorCode::kUnsupported);
  EXPECT_EQ(e.status().message(),
            "no engine for device family 'xdna2' was found (looked in /nonexistent/bin/engines (exe dir, absent) and "
            "TRIT_ENGINE_PATH (unset or empty)); a device engine is a plugin that declares device_family \"xdna2\" "
            "(docs/ENGINES.md); to run the pack on this machine's CPU instead, add --host");
}

TEST(FindDeviceEngineTest, EveryDirectorySearchedIsNamed) {
  const std::string tests_dir = testing::SourcePath("tests");
  const std::vector<PluginDirectory> searched = {
      {"/nonexistent/bin/engines", "exe dir"}, {tests_dir, "TRIT_ENGINE_PATH"}, {"/nonexistent/npu", "TRIT_ENGINE_PATH"}};
  EXPECT_EQ(Found(Registry(), "xdna2", searched),
            "error: no engine for device family 'xdna2' was found (looked in /nonexistent/bin/engines (exe dir, absent), " +
                tests_dir +
                " (TRIT_ENGINE_PATH) and /nonexistent/npu (TRIT_ENGINE_PATH, absent)); a device engine is a plugin that "
                "declares device_family \"xdna2\" (docs/ENGINES.md); to run the pack on this machine's CPU instead, add "
                "--host");
  // The executable's directory unknown and no TRIT_ENGINE_PATH: both still named.
  EXPECT_EQ(Found(Registry(), "xdna2", {}),
            "error: no engine for device family 'xdna2' was found (looked in <exe dir>/engines (the executable's "
            "directory is unknown) and TRIT_ENGINE_PATH (unset or empty)); a device engine is a plugin that declares "
            "device_family \"xdna2\" (docs/ENGINES.md); to run the pack on this machine's CPU instead, add --host");
}

TEST(FindDeviceEngineTest, UnavailableEnginesAreNamedWithTheirReasons) {
  Registry r;
  r.Add(Host("cpu", 100));
  r.Add(std::make_unique<DeclaredEngine>("npu", "xdna2", 300, "no device /dev/accel/accel0"));
  r.Add(std::make_unique<DeclaredEngine>("npu-gguf", "xdna2", 200, "", std::vector<std::string>{"gguf"}));
  EXPECT_EQ(Found(r, "xdna2"),
            "error: no engine for device family 'xdna2' can run here: engine 'npu' (builtin) is unavailable: no device "
            "/dev/accel/accel0 and engine 'npu-gguf' (builtin) does not accept pack models (looked in "
            "/nonexistent/bin/engines (exe dir, absent) and TRIT_ENGINE_PATH (unset or empty)); to run the pack on this "
            "machine's CPU instead, add --host");
}

TEST(FindDeviceEngineTest, TestPluginOfTheFamilyIsNamedWithItsReason) {
  const std::string dir = TRIT_TEST_PLUGIN_DIR;
  const std::string plugin = dir + "/libtrit_test_plugin_device_family.so";
  const std::string broken = dir + "/libtrit_test_plugin_wrong_abi.so";
  Registry r;
  LoadPluginFile(plugin, &r);
  LoadPluginFile(broken, &r);
  const std::string message = Found(r, "testnpu", {{dir, "exe dir"}});
  EXPECT_EQ(message, "error: no engine for device family 'testnpu' can run here: engine 'testnpu_engine' (" + plugin +
                         ") is unavailable: no testnpu device on this machine (looked in " + dir +
                         " (exe dir) and TRIT_ENGINE_PATH (unset or empty)); plugins that could not be loaded, so their "
                         "families are unknown: libtrit_test_plugin_wrong_abi (" +
                         broken +
                         "): built for engine ABI version 999, this trit speaks version 1; to run the pack on this "
                         "machine's CPU instead, add --host");
}

TEST(FindDeviceEngineTest, EmptyFamilyIsAnInvalidArgument) {
  Registry r;
  r.Add(std::make_unique<DeclaredEngine>("nameless", "", 10));
  Expected<const Engine*> e = FindDeviceEngine(r, "", kAbsentExeDir);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace trit::engines
