// Engines end to end, through the real binary: `trit backends --json` is the
// source of truth for what a binary holds; plugins are found only in
// <exe dir>/engines/ and TRIT_ENGINE_PATH; broken plugins are listed with
// their reasons and never take trit down; --engine pins or exits 2.
//
// Each test copies trit into a fresh directory, so that <exe dir> is the
// test's own, and copies plugins where the case needs them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "cli/run_trit.h"
#include "test_paths.h"

namespace trit::testing {
namespace {

namespace fs = std::filesystem;

const char* const kPluginFile = "libtrit_engine_reference_abi.so";

class EnginesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = MakeTempDir("trit-engines");
    fs::create_directories(fs::path(root_) / "bin");
    spawn_.binary = (fs::path(root_) / "bin" / "trit").string();
    fs::copy_file(TRIT_BINARY, spawn_.binary);
    // Nothing ambient: no TRIT_ENGINE_PATH from the caller's environment.
    spawn_.env = EnvironmentWith({"TRIT_ENGINE_PATH"}, {});
  }
  void TearDown() override { fs::remove_all(root_); }

  // A directory under the test's root (created).
  std::string Dir(const std::string& relative) {
    const fs::path p = fs::path(root_) / relative;
    fs::create_directories(p);
    return p.string();
  }
  // Copies the in-tree plugin into `dir`; returns its path there.
  std::string CopyPlugin(const std::string& dir, const std::string& from = TRIT_REFERENCE_ABI_PLUGIN,
                         const std::string& name = kPluginFile) {
    const std::string to = (fs::path(dir) / name).string();
    fs::copy_file(from, to);
    return to;
  }

  nlohmann::json Backends() {
    RunResult r = RunProgram(spawn_, {"backends", "--json"});
    EXPECT_FALSE(r.signaled) << r.err;
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out)["engines"];
  }

  std::string root_;
  SpawnOptions spawn_;
};

const nlohmann::json* Find(const nlohmann::json& engines, const std::string& name) {
  for (const nlohmann::json& e : engines) {
    if (e["name"] == name) return &e;
  }
  return nullptr;
}

TEST_F(EnginesTest, BuiltinEnginesWithTheirFields) {
  const nlohmann::json engines = Backends();
  ASSERT_EQ(engines.size(), 3u) << engines.dump();
  const nlohmann::json* cpu = Find(engines, "cpu");
  const nlohmann::json* ref = Find(engines, "reference");
  ASSERT_NE(cpu, nullptr);
  ASSERT_NE(ref, nullptr);
  for (const nlohmann::json* e : {cpu, ref}) {
    EXPECT_EQ((*e)["origin"], "builtin");
    EXPECT_EQ((*e)["available"], true);
    EXPECT_TRUE((*e)["reason"].is_null());
    EXPECT_EQ((*e)["capabilities"], nlohmann::json::array({"generate", "embed"}));
    EXPECT_EQ((*e)["formats"], nlohmann::json::array({"gguf"}));
    ASSERT_TRUE(e->contains("device_family"));
    EXPECT_TRUE((*e)["device_family"].is_null());
    EXPECT_TRUE((*e)["aliases"].is_array());
  }
  EXPECT_GT((*cpu)["priority"].get<int>(), (*ref)["priority"].get<int>());
  EXPECT_EQ((*ref)["aliases"], nlohmann::json::array({"ref", "scalar"}));
  // Packs on the CPU kernels (the host path): available wherever trit runs.
  const nlohmann::json* pack = Find(engines, "pack");
  ASSERT_NE(pack, nullptr) << engines.dump();
  EXPECT_EQ((*pack)["origin"], "builtin");
  EXPECT_EQ((*pack)["available"], true);
  EXPECT_EQ((*pack)["formats"], nlohmann::json::array({"pack"}));
  EXPECT_EQ((*pack)["aliases"], nlohmann::json::array({"pack-host"}));
  EXPECT_TRUE((*pack)["device_family"].is_null());
}

TEST_F(EnginesTest, PluginBesideTheExecutableAppearsWithItsPath) {
  const std::string path = CopyPlugin(Dir("bin/engines"));
  const nlohmann::json engines = Backends();
  const nlohmann::json* p = Find(engines, "reference-abi");
  ASSERT_NE(p, nullptr) << engines.dump();
  EXPECT_EQ((*p)["origin"], path);
  EXPECT_EQ((*p)["available"], true);
  EXPECT_EQ((*p)["aliases"], nlohmann::json::array({"refabi"}));
  EXPECT_EQ((*p)["priority"], 5);
}

TEST_F(EnginesTest, DeviceEnginePluginShowsItsFamily) {
  const std::string path = CopyPlugin(Dir("bin/engines"), std::string(TRIT_TEST_PLUGIN_DIR) + "/libtrit_test_plugin_device_family.so",
                                      "device_family.so");
  const nlohmann::json engines = Backends();
  const nlohmann::json* p = Find(engines, "testnpu_engine");
  ASSERT_NE(p, nullptr) << engines.dump();
  EXPECT_EQ((*p)["device_family"], "testnpu");
  EXPECT_EQ((*p)["formats"], nlohmann::json::array({"pack"}));
  EXPECT_EQ((*p)["available"], false);
  EXPECT_EQ((*p)["reason"], "no testnpu device on this machine");
  EXPECT_TRUE((*Find(engines, "cpu"))["device_family"].is_null());

  RunResult text = RunProgram(spawn_, {"backends"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("DEVICE"), std::string::npos) << text.out;
  const size_t row = text.out.find("testnpu_engine ");
  ASSERT_NE(row, std::string::npos) << text.out;
  const std::string line = text.out.substr(row, text.out.find('\n', row) - row);
  EXPECT_NE(line.find(" pack "), std::string::npos) << line;
  EXPECT_NE(line.find(" testnpu "), std::string::npos) << line;
  EXPECT_NE(line.find(path), std::string::npos) << line;

  // doctor's fix for it is the device, not a rebuild (it loaded fine).
  RunResult doctor = RunProgram(spawn_, {"doctor", "--json"});
  ASSERT_EQ(doctor.exit_code, 0) << doctor.err;
  const nlohmann::json problems = nlohmann::json::parse(doctor.out)["problems"];
  bool listed = false;
  for (const nlohmann::json& problem : problems) {
    if (problem["problem"].get<std::string>().find("testnpu_engine") == std::string::npos) continue;
    listed = true;
    EXPECT_EQ(problem["fix"], "run it on a machine with a testnpu device and its driver (see the reason), or remove " + path);
  }
  EXPECT_TRUE(listed) << doctor.out;
}

TEST_F(EnginesTest, WorkingDirectoryAndLdLibraryPathAreNotSearched) {
  const std::string cwd = Dir("cwd");
  CopyPlugin(cwd);
  CopyPlugin(Dir("cwd/engines"));
  const std::string lib = Dir("lib");
  CopyPlugin(lib);
  spawn_.cwd = cwd;
  spawn_.env = EnvironmentWith({"TRIT_ENGINE_PATH", "LD_LIBRARY_PATH"},
                               {"LD_LIBRARY_PATH=" + lib + ":" + cwd + ":" + cwd + "/engines"});
  const nlohmann::json engines = Backends();
  EXPECT_EQ(Find(engines, "reference-abi"), nullptr) << engines.dump();
  EXPECT_EQ(engines.size(), 3u) << engines.dump();  // the built-ins only
}

TEST_F(EnginesTest, TritEnginePathIsSearched) {
  const std::string dir = Dir("npu/engines");
  const std::string path = CopyPlugin(dir);
  spawn_.env = EnvironmentWith({"TRIT_ENGINE_PATH"}, {"TRIT_ENGINE_PATH=" + Dir("empty") + "::" + dir});
  const nlohmann::json engines = Backends();
  const nlohmann::json* p = Find(engines, "reference-abi");
  ASSERT_NE(p, nullptr) << engines.dump();
  EXPECT_EQ((*p)["origin"], path);
}

TEST_F(EnginesTest, BrokenPluginsAreListedUnavailableAndRunStillWorks) {
  const std::string dir = Dir("bin/engines");
  const std::string corrupt = (fs::path(dir) / "corrupt.so").string();
  std::ofstream(corrupt) << "\x7f" "ELF but not really, just text pretending to be a shared library";
  const std::string test_plugins = TRIT_TEST_PLUGIN_DIR;
  const std::string missing = CopyPlugin(dir, test_plugins + "/libtrit_test_plugin_missing_symbol.so", "missing_symbol.so");
  const std::string wrong = CopyPlugin(dir, test_plugins + "/libtrit_test_plugin_wrong_abi.so", "wrong_abi.so");
  const std::string failing =
      CopyPlugin(dir, test_plugins + "/libtrit_test_plugin_failing_registration.so", "failing_registration.so");
  CopyPlugin(dir);

  const nlohmann::json engines = Backends();
  const std::pair<std::string, std::string> expected[] = {
      {corrupt, "cannot be loaded: "},
      {missing, "does not export the symbol 'trit_engine_plugin'"},
      {wrong, "built for engine ABI version 999, this trit speaks version 1"},
      {failing, "registration failed (code 7): libnpu-runtime.so.3 not found (test plugin)"}};
  for (const auto& [path, reason] : expected) {
    const nlohmann::json* e = Find(engines, fs::path(path).stem().string());
    ASSERT_NE(e, nullptr) << path << "\n" << engines.dump();
    EXPECT_EQ((*e)["origin"], path);
    EXPECT_EQ((*e)["available"], false);
    EXPECT_NE((*e)["reason"].get<std::string>().find(reason), std::string::npos) << (*e)["reason"];
  }
  EXPECT_EQ(Find(engines, "half-registered"), nullptr);
  ASSERT_NE(Find(engines, "reference-abi"), nullptr);
  EXPECT_EQ((*Find(engines, "reference-abi"))["available"], true);

  const std::vector<std::string> run = {"run", BundledModelPath(), "", "-n", "24", "--temp", "0", "--raw"};
  RunResult plain = RunProgram(spawn_, run);
  ASSERT_FALSE(plain.signaled) << plain.err;
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_FALSE(plain.out.empty());
  std::vector<std::string> pinned = run;
  pinned.insert(pinned.end(), {"--engine", "refabi"});
  RunResult through_plugin = RunProgram(spawn_, pinned);
  ASSERT_EQ(through_plugin.exit_code, 0) << through_plugin.err;
  EXPECT_EQ(through_plugin.out, plain.out);

  // A broken plugin named by --engine is refused by name, with its reason.
  std::vector<std::string> broken = run;
  broken.insert(broken.end(), {"--engine", "wrong_abi"});
  RunResult refused = RunProgram(spawn_, broken);
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("--engine wrong_abi: engine 'wrong_abi' (" + wrong + ") cannot be used: unavailable: built for "
                             "engine ABI version 999"),
            std::string::npos)
      << refused.err;

  RunResult doctor = RunProgram(spawn_, {"doctor", "--json"});
  ASSERT_EQ(doctor.exit_code, 0) << doctor.err;
  const nlohmann::json problems = nlohmann::json::parse(doctor.out)["problems"];
  size_t about_plugins = 0;
  for (const nlohmann::json& p : problems) {
    for (const std::string& path : {corrupt, missing, wrong, failing}) {
      if (p["problem"].get<std::string>().find(path) != std::string::npos) ++about_plugins;
    }
    EXPECT_FALSE(p["fix"].get<std::string>().empty());
  }
  EXPECT_EQ(about_plugins, 4u) << problems.dump();
}

TEST_F(EnginesTest, EveryEngineGivesTheSameGreedyTokens) {
  CopyPlugin(Dir("bin/engines"));
  const std::string expected = [] {
    std::ifstream in(SourcePath("tests/data/reference/expected_greedy_llama2c_steps200.txt"));
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }();
  for (const char* engine : {"cpu", "reference", "reference-abi"}) {
    RunResult r = RunProgram(spawn_, {"run", BundledModelPath(), "", "-n", "200", "--temp", "0", "--raw", "--engine", engine});
    ASSERT_FALSE(r.signaled) << engine << ": " << r.err;
    ASSERT_EQ(r.exit_code, 0) << engine << ": " << r.err;
    EXPECT_EQ(r.out, expected) << engine;
  }
}

TEST_F(EnginesTest, UnknownEngineExitsTwoAndListsTheEngines) {
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"run", BundledModelPath(), "hi", "-n", "4", "--engine", "nosuch"},
        std::vector<std::string>{"verify", BundledModelPath(), "--ids", "1 2", "--engine", "nosuch"}}) {
    RunResult r = RunProgram(spawn_, cmd);
    ASSERT_FALSE(r.signaled);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("--engine nosuch: no engine is named 'nosuch'; engines in this binary: cpu, reference, pack; "
                         "able to generate gguf models: cpu, reference"),
              std::string::npos)
        << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

TEST_F(EnginesTest, VerifyRunsThroughThePinnedEngine) {
  CopyPlugin(Dir("bin/engines"));
  std::string sha;
  for (const char* engine : {"reference", "reference-abi"}) {
    RunResult r = RunProgram(spawn_, {"verify", BundledModelPath(), "--ids", "1 403 407 261 378", "--chunk", "2",
                                      "--json", "--engine", engine});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["engine"], engine);
    EXPECT_EQ(j["differing"], 0);
    if (sha.empty()) sha = j["logits_sha256"];
    EXPECT_EQ(j["logits_sha256"], sha) << engine;  // the same kernels, bit for bit through the ABI
  }
  RunResult chosen = RunProgram(spawn_, {"verify", BundledModelPath(), "--ids", "1 403", "--json"});
  ASSERT_EQ(chosen.exit_code, 0) << chosen.err;
  EXPECT_EQ(nlohmann::json::parse(chosen.out)["engine"], "cpu");  // highest priority when unpinned
}

TEST_F(EnginesTest, DoctorReportsTheMachineAndTheEngines) {
  RunResult r = RunProgram(spawn_, {"doctor", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_GE(j["cpu"]["logical_cpus"].get<int>(), 1);
  EXPECT_GE(j["cpu"]["usable_cpus"].get<int>(), 1);
  EXPECT_TRUE(j["cpu"]["features"].is_array());
  EXPECT_FALSE(j["cpu"]["simd_target"].get<std::string>().empty());
  EXPECT_GE(j["cpu"]["simd_targets_runnable"].size(), 1u);
  EXPECT_TRUE(j["models_dir"].is_string());
  EXPECT_GE(j["threads_default"].get<int>(), 1);
  EXPECT_GT(j["memory"]["total_bytes"].get<uint64_t>(), 0u);
  EXPECT_NE(Find(j["engines"], "cpu"), nullptr);
  EXPECT_EQ(j["plugin_dirs"][0]["path"], (fs::path(root_) / "bin" / "engines").string());
  EXPECT_TRUE(j["problems"].is_array());
  RunResult text = RunProgram(spawn_, {"doctor"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("engines:"), std::string::npos);
  EXPECT_NE(text.out.find("memory:"), std::string::npos);
  EXPECT_NE(text.out.find("simd:"), std::string::npos);
  EXPECT_NE(text.out.find("models:"), std::string::npos);
}

TEST_F(EnginesTest, DoctorFlagsAMissingEnginePathDirectory) {
  spawn_.env = EnvironmentWith({"TRIT_ENGINE_PATH"}, {"TRIT_ENGINE_PATH=" + root_ + "/not-there"});
  RunResult r = RunProgram(spawn_, {"doctor", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("TRIT_ENGINE_PATH names " + root_ + "/not-there, which is not a directory"), std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace trit::testing
