// `trit bundle deps|symbols|check` run as a user would, on the fixtures of
// tests/formats/binfmt/make_fixtures.sh and on trit's own binary.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/run_trit.h"
#include "test_paths.h"

namespace trit::testing {
namespace {

namespace fs = std::filesystem;

std::string Fixture(const std::string& rel) { return std::string(TRIT_BINFMT_FIXTURES) + "/" + rel; }

#define SKIP_UNLESS_FIXTURE(rel) \
  if (!fs::exists(Fixture(rel))) GTEST_SKIP() << "fixture " << rel << " not built"

class BundleCheck : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("trit-bundle"); }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Policy(const std::string& json) {
    const std::string path = dir_ + "/policy-" + std::to_string(n_++) + ".json";
    std::ofstream(path) << json;
    return path;
  }
  // Violations of `trit bundle check PATH --policy P --json`, as "rule:entry" strings.
  std::vector<std::string> Violations(const std::string& path, const std::string& policy, int expect_exit) {
    RunResult r = RunTrit({"bundle", "check", path, "--policy", Policy(policy), "--json"});
    EXPECT_EQ(r.exit_code, expect_exit) << r.out << r.err;
    std::vector<std::string> out;
    const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
    if (j.is_discarded()) {
      ADD_FAILURE() << "not JSON: " << r.out;
      return out;
    }
    EXPECT_EQ(j["ok"].get<bool>(), expect_exit == 0);
    for (const auto& v : j["violations"]) {
      EXPECT_FALSE(v["binary"].get<std::string>().empty());
      out.push_back(v["rule"].get<std::string>() + ":" + v["entry"].get<std::string>());
    }
    return out;
  }
  std::string dir_;
  int n_ = 0;
};

const char* kLinuxSystem = R"({"system": ["libc.so.6", "libm.so.6", "libgcc_s.so.1", "libstdc++.so.6", "ld-linux*"],
                               "one_cxx_runtime": true, "rpath": "relative"})";

bool Contains(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

TEST_F(BundleCheck, GoodElfBundlePasses) {
  SKIP_UNLESS_FIXTURE("elf/good/bin/app");
  EXPECT_TRUE(Violations(Fixture("elf/good"), kLinuxSystem, 0).empty());
  RunResult r = RunTrit({"bundle", "check", Fixture("elf/good"), "--policy", Policy(kLinuxSystem)});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("ok: 2 binaries, 0 violations"), std::string::npos) << r.out;
}

TEST_F(BundleCheck, MissingLibraryFailsClosure) {
  SKIP_UNLESS_FIXTURE("elf/missing/bin/app2");
  EXPECT_EQ(Violations(Fixture("elf/missing"), kLinuxSystem, 1), std::vector<std::string>{"closure:libgone.so"});
  // Without the library in the bundle, the same name given as "system" passes.
  EXPECT_TRUE(Violations(Fixture("elf/missing"), R"({"system": ["libc.so.6", "libgone.so"]})", 0).empty());
}

TEST_F(BundleCheck, AbsoluteRpathFails) {
  SKIP_UNLESS_FIXTURE("elf/absrpath/lib/libabs.so");
  EXPECT_EQ(Violations(Fixture("elf/absrpath"), kLinuxSystem, 1), std::vector<std::string>{"rpath:/opt/trit/lib"});
  EXPECT_TRUE(Violations(Fixture("elf/absrpath"), R"({"system": ["libc.so.6"], "rpath": "any"})", 0).empty());
}

TEST_F(BundleCheck, MixedCxxRuntimesFail) {
  SKIP_UNLESS_FIXTURE("elf/mixed/lib/libuses_libcxx.so");
  const std::vector<std::string> v = Violations(Fixture("elf/mixed"), kLinuxSystem, 1);
  EXPECT_TRUE(Contains(v, "one_cxx_runtime:libc++.so.1")) << ::testing::PrintToString(v);
  EXPECT_TRUE(Contains(v, "one_cxx_runtime:libstdc++.so.6")) << ::testing::PrintToString(v);
  EXPECT_EQ(v.size(), 2u) << ::testing::PrintToString(v);
}

TEST_F(BundleCheck, ForbidMatchesDependenciesAndShippedFiles) {
  SKIP_UNLESS_FIXTURE("elf/mixed/lib/libuses_libcxx.so");
  const std::vector<std::string> v =
      Violations(Fixture("elf/mixed"), R"({"system": ["libc.so.6", "libstdc++.so.6", "libm.so.6", "libgcc_s.so.1"], "forbid": ["libc++*"]})", 1);
  EXPECT_EQ(v, (std::vector<std::string>{"forbid:libc++.so.1", "forbid:libc++.so.1"})) << ::testing::PrintToString(v);
}

TEST_F(BundleCheck, RequireNamesMissingFiles) {
  SKIP_UNLESS_FIXTURE("elf/good/bin/app");
  EXPECT_TRUE(Violations(Fixture("elf/good"), R"({"system": ["lib*.so.*", "ld-linux*"], "require": ["lib/libengine.so", "README.txt"]})", 0).empty());
  EXPECT_EQ(Violations(Fixture("elf/good"), R"({"system": ["lib*.so.*"], "require": ["plugins/engine.so"]})", 1),
            std::vector<std::string>{"require:plugins/engine.so"});
}

// trit's own build needs GLIBC_2.34 (or newer): a policy allowing only 2.17 must fail.
TEST_F(BundleCheck, NewerGlibcThanAllowedFails) {
  const std::vector<std::string> v = Violations(TRIT_BINARY, R"({"system": ["*"], "max_glibc": "2.17"})", 1);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].rfind("max_glibc:GLIBC_2.", 0), 0u) << v[0];
  EXPECT_TRUE(Violations(TRIT_BINARY, R"({"system": ["*"], "max_glibc": "99.0"})", 0).empty());
}

TEST_F(BundleCheck, UnreadableAndCorruptFilesAreViolations) {
  SKIP_UNLESS_FIXTURE("elf/good/lib/libengine.so");
  fs::copy_file(Fixture("elf/good/lib/libengine.so"), dir_ + "/libcut.so");
  fs::resize_file(dir_ + "/libcut.so", 100);
  const std::vector<std::string> v = Violations(dir_ + "/libcut.so", R"({"system": ["*"]})", 1);
  EXPECT_EQ(v, std::vector<std::string>{"readable:" + dir_ + "/libcut.so"});
  EXPECT_EQ(Violations(dir_ + "/nonexistent", R"({"system": ["*"]})", 1), std::vector<std::string>{"readable:" + dir_ + "/nonexistent"});
}

TEST_F(BundleCheck, BadPolicyIsUsageErrorNamingField) {
  RunResult r = RunTrit({"bundle", "check", TRIT_BINARY, "--policy", Policy(R"({"forbidd": ["x"]})")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("policy field 'forbidd': unknown"), std::string::npos) << r.err;
  r = RunTrit({"bundle", "check", TRIT_BINARY, "--policy", Policy(R"({"max_glibc": 2.3})")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'max_glibc'"), std::string::npos) << r.err;
  r = RunTrit({"bundle", "check", TRIT_BINARY, "--policy", dir_ + "/none.json"});
  EXPECT_EQ(r.exit_code, 2);
}

TEST_F(BundleCheck, PeBundleWithDelayImport) {
  SKIP_UNLESS_FIXTURE("pe/app/app.exe");
  const char* policy = R"({"system": ["kernel32.dll", "msvcrt.dll"], "one_cxx_runtime": true})";
  EXPECT_TRUE(Violations(Fixture("pe/app"), policy, 0).empty());
  // The delay-loaded plugin is a dependency: without it the closure fails.
  fs::copy(Fixture("pe/app"), dir_ + "/app");
  fs::remove(dir_ + "/app/plugin.dll");
  EXPECT_EQ(Violations(dir_ + "/app", policy, 1), std::vector<std::string>{"closure:plugin.dll"});
  const std::vector<std::string> mixed =
      Violations(Fixture("pe/mixed"), R"({"system": ["*"], "one_cxx_runtime": true})", 1);
  EXPECT_TRUE(Contains(mixed, "one_cxx_runtime:msvcp140.dll")) << ::testing::PrintToString(mixed);
  EXPECT_TRUE(Contains(mixed, "one_cxx_runtime:libstdc++-6.dll")) << ::testing::PrintToString(mixed);
}

TEST_F(BundleCheck, MachOBundle) {
  SKIP_UNLESS_FIXTURE("macho/bundle/bin/app");
  // @rpath through @loader_path/../lib, @loader_path re-export, weak dylib absent: fine
  // except the absolute LC_RPATH /opt/abs/lib.
  EXPECT_EQ(Violations(Fixture("macho/bundle"), R"({"system": ["/usr/lib/libSystem.B.dylib"], "rpath": "relative"})", 1),
            std::vector<std::string>{"rpath:/opt/abs/lib"});
  fs::copy(Fixture("macho/bundle"), dir_ + "/b", fs::copy_options::recursive);
  fs::remove(dir_ + "/b/lib/libfoo.dylib");
  EXPECT_EQ(Violations(dir_ + "/b", R"({"system": ["/usr/lib/*"]})", 1), std::vector<std::string>{"closure:@rpath/libfoo.dylib"});
}

TEST(BundleDeps, ShowsSearchAndResolution) {
  SKIP_UNLESS_FIXTURE("elf/good/bin/app");
  RunResult r = RunTrit({"bundle", "deps", Fixture("elf/good/bin/app"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const auto& im = j["images"][0];
  EXPECT_EQ(im["format"], "ELF");
  EXPECT_EQ(im["search_paths"][0]["kind"], "runpath");
  EXPECT_EQ(im["search_paths"][0]["expanded"], fs::path(Fixture("elf/good/lib")).lexically_normal().string());
  bool found_engine = false;
  for (const auto& d : im["deps"]) {
    if (d["name"] == "libengine.so") {
      found_engine = true;
      EXPECT_EQ(d["found"], fs::path(Fixture("elf/good/lib/libengine.so")).lexically_normal().string());
    }
  }
  EXPECT_TRUE(found_engine);
  r = RunTrit({"bundle", "deps", "/nonexistent/x"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("/nonexistent/x"), std::string::npos);
}

TEST(BundleSymbols, HasGivesExitCode) {
  EXPECT_EQ(RunTrit({"bundle", "symbols", TRIT_BINARY, "--has", "__libc_start_main"}).exit_code, 0);
  EXPECT_EQ(RunTrit({"bundle", "symbols", TRIT_BINARY, "--imported", "--has", "__libc_start_main"}).exit_code, 0);
  EXPECT_EQ(RunTrit({"bundle", "symbols", TRIT_BINARY, "--exported", "--has", "__libc_start_main"}).exit_code, 1);
  EXPECT_EQ(RunTrit({"bundle", "symbols", TRIT_BINARY, "--has", "no_such_symbol_xyz"}).exit_code, 1);
  EXPECT_EQ(RunTrit({"bundle", "symbols", TRIT_BINARY, "--imported", "--exported"}).exit_code, 2);
}

}  // namespace
}  // namespace trit::testing
