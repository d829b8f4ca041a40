// `trit pack make|check|run` end to end, as a bring-up engineer runs them:
// exit statuses, the set that runs and why, each refusal with what to fix,
// runs in passes of the plan's width with the oracle, the device run's
// refusal without an engine, and the device lock: taken by device runs,
// never by host runs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli/run_trit.h"
#include "system/device_lock.h"
#include "test_paths.h"

namespace trit {
namespace {

using testing::EnvironmentWith;
using testing::MakeTempDir;
using testing::RunProgram;
using testing::RunResult;
using testing::SpawnOptions;

const char* const kIds = "1 403 407 261 378 425 185";

class PackCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    home_ = MakeTempDir("trit-pack-cli");
    dir_ = home_ + "/pack";
    spawn_.env = EnvironmentWith({"TRIT_HOME", "TRIT_ENGINE_PATH"}, {"TRIT_HOME=" + home_});
  }
  void TearDown() override { std::filesystem::remove_all(home_); }

  RunResult Trit(const std::vector<std::string>& args) { return RunProgram(spawn_, args, 120); }

  void Make(const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {"pack", "make", testing::BundledModelPath(), dir_, "--device", "xdna2", "--prefill-m", "4"};
    args.insert(args.end(), extra.begin(), extra.end());
    const RunResult r = Trit(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  void BuildKernel(const std::string& file, const std::string& desc) {
    const std::string cmd = "bash '" + testing::SourcePath("tests/pack/make_kernel.sh") + "' '" TRIT_TEST_CC "' '" +
                            dir_ + "/" + file + "' '" + desc + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  // The five sealed kernels of the bundled model's pack, each with its note.
  void BuildSealedKernels() {
    BuildKernel("full_i8_matmul_K64_N64.elf", "op=matmul K=64 N=64 M=4");
    BuildKernel("full_i8_matmul_K64_N32.elf", "op=matmul K=64 N=32 M=4");
    BuildKernel("full_i8_matmul_K64_N172.elf", "op=matmul K=64 N=172 M=4");
    BuildKernel("full_i8_matmul_K172_N64.elf", "op=matmul K=172 N=64 M=4");
    BuildKernel("SEALED-lmhead.elf", "op=lmhead K=64 N=512 M=4");
  }
  void BuildPerRoleKernels() {
    BuildKernel("layer_ctx1.elf", "op=layer K=64 N=64 M=1");
    BuildKernel("layer_ctx4.elf", "op=layer K=64 N=64 M=4");
    BuildKernel("lmhead.elf", "op=lmhead K=64 N=512 M=4");
    std::ofstream(dir_ + "/layer.pdi") << "device image";
  }
  void EditPlan(const std::string& from, const std::string& to) {
    std::ifstream in(dir_ + "/plan.json");
    std::stringstream s;
    s << in.rdbuf();
    std::string text = s.str();
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    std::ofstream(dir_ + "/plan.json") << text;
  }

  std::string home_, dir_;
  SpawnOptions spawn_;
};

TEST_F(PackCommandTest, MakeWritesThePlanAndListsTheKernelsToProvide) {
  const RunResult r = Trit({"pack", "make", testing::BundledModelPath(), dir_, "--device", "xdna2", "--prefill-m", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("pack " + dir_ + ": plan.json for stories260K.gguf, device xdna2, widths decode_m=1 prefill_m=4"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the device toolchain must provide (sealed set, plan.json's generation):\n"
                       "  full_i8_matmul_K64_N64.elf   M=4  for 2 ops: matmul blk.{layer}.attn_q.weight (layers 0-4), ..."),
            std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/plan.json"));
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/stories260K.gguf"));
  // No kernel file is invented.
  for (const auto& e : std::filesystem::directory_iterator(dir_)) EXPECT_NE(e.path().extension(), ".elf") << e.path();

  const RunResult json = Trit({"pack", "make", testing::BundledModelPath(), home_ + "/p2", "--device", "hexagon-v81",
                               "--prefill-m", "8", "--decode-m", "2", "--generation", "per-role", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["plan"]["generation"], "per-role");
  EXPECT_EQ(j["plan"]["decode_m"], 2);
  std::vector<std::string> files;
  for (const auto& k : j["required_kernels"]) files.push_back(k["file"]);
  EXPECT_EQ(files, (std::vector<std::string>{"layer_ctx2.elf", "layer_ctx8.elf", "lmhead.elf", "layer.pdi"}));
}

TEST_F(PackCommandTest, MakeRefusesBadWidthsAndAnExistingPack) {
  const RunResult wide = Trit({"pack", "make", testing::BundledModelPath(), dir_, "--device", "xdna2", "--prefill-m", "4",
                               "--decode-m", "8"});
  EXPECT_EQ(wide.exit_code, 2);
  EXPECT_EQ(wide.err, "trit: error: --decode-m 8: expected a width from 1 to --prefill-m (4)\n");
  Make();
  const RunResult again = Trit({"pack", "make", testing::BundledModelPath(), dir_, "--device", "xdna2", "--prefill-m", "4"});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_EQ(again.err, "trit: error: " + dir_ + ": already a pack (it holds plan.json); choose a new directory\n");
  EXPECT_EQ(Trit({"pack", "make", testing::BundledModelPath(), dir_, "--device", "xdna2"}).exit_code, 2);  // no width
}

TEST_F(PackCommandTest, CheckPassesACompletePackAndNamesTheSet) {
  Make();
  BuildSealedKernels();
  const RunResult r = Trit({"pack", "check", dir_});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("found: sealed kernel set, 5 ELF files\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("runs: the sealed set, because only the sealed set's files are present\n"), std::string::npos);
  EXPECT_NE(r.out.find("ok         SEALED-lmhead.elf            M=4  1 op  note: op=lmhead K=64 N=512 M=4"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pack check: ok"), std::string::npos);
}

TEST_F(PackCommandTest, CheckRefusesEachProblemNamingTheOpTheFileAndTheFix) {
  Make();
  const RunResult none = Trit({"pack", "check", dir_});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_EQ(none.err, "trit: error: " + dir_ +
                          " cannot run on the device: 5 problems (listed above); trit pack run --host runs it on the CPU "
                          "meanwhile\n");
  BuildSealedKernels();
  std::ofstream(dir_ + "/full_i8_matmul_K64_N32.elf") << "not an ELF file";
  BuildKernel("SEALED-lmhead.elf", "op=lmhead K=64 N=512 M=8");
  std::filesystem::remove(dir_ + "/full_i8_matmul_K172_N64.elf");
  const RunResult r = Trit({"pack", "check", dir_, "--json"});
  EXPECT_EQ(r.exit_code, 1);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["ok"], false);
  std::vector<std::string> problems;
  for (const auto& p : j["problems"]) problems.push_back(p["op"].get<std::string>() + " | " + p["file"].get<std::string>());
  EXPECT_EQ(problems, (std::vector<std::string>{
                          "matmul blk.{layer}.attn_k.weight (layers 0-4) | full_i8_matmul_K64_N32.elf",
                          "matmul blk.{layer}.ffn_down.weight (layers 0-4) | full_i8_matmul_K172_N64.elf",
                          "lmhead output.weight | SEALED-lmhead.elf"}));
  EXPECT_EQ(j["problems"][1]["message"], "missing: the device toolchain must provide it (trit pack run --host runs without it)");
  EXPECT_EQ(j["problems"][1]["missing_kernel"], true);
  EXPECT_EQ(j["problems"][2]["message"],
            "its trit.kernel note declares M=8 (the plan says M=4): rebuild the kernel for the plan's shape, or correct "
            "plan.json");
  EXPECT_NE(j["problems"][0]["message"].get<std::string>().find("not a valid ELF file"), std::string::npos);
}

TEST_F(PackCommandTest, CheckRefusesAPlanWhoseShapeDisagreesWithTheModel) {
  Make();
  BuildSealedKernels();
  EditPlan("\"K\": 64, \"N\": 172", "\"K\": 64, \"N\": 171");
  const RunResult r = Trit({"pack", "check", dir_});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("matmul blk.{layer}.ffn_gate.weight (layers 0-4): blk.0.ffn_gate.weight is K=64 N=172 in the "
                       "model; the plan says K=64 N=171 (remake the plan with trit pack make)"),
            std::string::npos)
      << r.out;
}

TEST_F(PackCommandTest, WithBothSetsThePlanChoosesSaysSoAndGenerationPins) {
  Make();
  BuildSealedKernels();
  BuildPerRoleKernels();
  const RunResult r = Trit({"pack", "check", dir_});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("found: sealed kernel set, 5 ELF files\nfound: per-role kernel set, 3 ELF files and layer.pdi\n"
                       "runs: the sealed set, because both sets are present and plan.json's generation is sealed (pin "
                       "the other with --generation)\n"),
            std::string::npos)
      << r.out;
  const RunResult pinned = Trit({"pack", "check", dir_, "--generation", "per-role", "--json"});
  ASSERT_EQ(pinned.exit_code, 0) << pinned.out;
  const nlohmann::json j = nlohmann::json::parse(pinned.out);
  EXPECT_EQ(j["generation"], "per-role");
  EXPECT_EQ(j["generation_reason"], "--generation per-role pins it");
  EXPECT_EQ(j["kernels"].size(), 4u);
  EXPECT_EQ(Trit({"pack", "check", dir_, "--generation", "v3"}).exit_code, 2);
}

TEST_F(PackCommandTest, HostRunUsesThePlansWidthAndTheOracleFindsEveryRowIdentical) {
  Make();
  const RunResult r = Trit({"pack", "run", dir_, "--ids", kIds, "--host", "--check"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("host run: every op on this CPU's kernels (engine cpu); no device lock taken\n"), std::string::npos);
  EXPECT_NE(r.out.find("kernel files missing (5 of 5), not needed on the host: full_i8_matmul_K64_N64.elf"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("width 4 (plan.json prefill_m): 7 ids in 2 passes, positions 0-3, 4-6\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rows M=7 identical=7 differing=0\n"), std::string::npos) << r.out;

  // The same rows' logits as `trit verify` on the weights, through the same forward pass.
  const RunResult json = Trit({"pack", "run", dir_, "--ids", kIds, "--host", "--check", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["width"], 4);
  EXPECT_EQ(j["passes"], nlohmann::json::parse(R"([{"first_position":0,"rows":4},{"first_position":4,"rows":3}])"));
  EXPECT_EQ(j["check"]["identical"], 7);
  EXPECT_EQ(j["check"]["differing"], 0);
  const RunResult verify = Trit({"verify", testing::BundledModelPath(), "--ids", kIds, "--json"});
  ASSERT_EQ(verify.exit_code, 0) << verify.err;
  const nlohmann::json v = nlohmann::json::parse(verify.out);
  EXPECT_EQ(j["logits_sha256"], v["logits_sha256"]);
  EXPECT_EQ(j["argmax"], v["argmax"]);
}

TEST_F(PackCommandTest, APlanWithoutAWidthRunsOneRowPerPassAndSaysSo) {
  Make();
  EditPlan("  \"prefill_m\": 4,\n", "");
  const RunResult r = Trit({"pack", "run", dir_, "--ids", "1 403 407", "--host", "--check"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("width 1 (plan.json states no prefill_m: one row per pass): 3 ids in 3 passes, positions 0, 1, 2\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("rows M=3 identical=3 differing=0\n"), std::string::npos);
}

TEST_F(PackCommandTest, ADeviceRunWithoutAnEngineExitsTwoOfferingHost) {
  Make();
  const RunResult r = Trit({"pack", "run", dir_, "--ids", "1 403"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no engine for device family 'xdna2' was found (looked in "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("TRIT_ENGINE_PATH"), std::string::npos);
  EXPECT_NE(r.err.find("add --host"), std::string::npos);
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST_F(PackCommandTest, DeviceRunsTakeTheDeviceLockAndHostRunsNever) {
  Make();
  SpawnOptions with_engine = spawn_;
  with_engine.env = EnvironmentWith({"TRIT_HOME", "TRIT_ENGINE_PATH"},
                                    {"TRIT_HOME=" + home_, std::string("TRIT_ENGINE_PATH=") + TRIT_PROBE_DEVICE_PLUGIN_DIR});
  // With an engine but without its kernels, a device run is refused before the device is touched.
  const RunResult incomplete = RunProgram(with_engine, {"pack", "run", dir_, "--ids", "1 403"}, 60);
  EXPECT_EQ(incomplete.exit_code, 1);
  EXPECT_EQ(incomplete.err, "trit: error: " + dir_ + " cannot run on the device: matmul blk.{layer}.attn_q.weight (layers "
                            "0-4): full_i8_matmul_K64_N64.elf: missing: the device toolchain must provide it (trit pack "
                            "run --host runs without it); trit pack check " + dir_ + " lists all 5 problems, or add --host\n");
  BuildSealedKernels();
  // This process holds xdna2's lock, as another bring-up tool would.
  Expected<system::LockAttempt> held =
      system::TryLockDevice(home_ + "/locks", "xdna2", system::CurrentProcessHolder({"bringup", "--soak"}));
  ASSERT_TRUE(held.ok() && held->lock.has_value());
  const RunResult refused = RunProgram(with_engine, {"pack", "run", dir_, "--ids", "1 403"}, 60);
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_NE(refused.err.find("device xdna2 is locked by pid "), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("bringup --soak"), std::string::npos) << refused.err;
  // A host run does not care who holds the device.
  const RunResult host = RunProgram(with_engine, {"pack", "run", dir_, "--ids", "1 403", "--host"}, 60);
  EXPECT_EQ(host.exit_code, 0) << host.err;

  held->lock->Release();
  // Free: the run takes the lock and reaches the engine (a test double that opens no pack).
  const RunResult reached = RunProgram(with_engine, {"pack", "run", dir_, "--ids", "1 403"}, 60);
  EXPECT_EQ(reached.exit_code, 1);
  EXPECT_NE(reached.err.find("probe_device is a test plugin: it opens no pack"), std::string::npos) << reached.err;
  const RunResult status = Trit({"lock", "status", "xdna2"});
  EXPECT_EQ(status.out, "xdna2: free\n");  // released when the run ended
}

TEST_F(PackCommandTest, RefusesBadIdsAndAMissingPack) {
  Make();
  const RunResult ids = Trit({"pack", "run", dir_, "--ids", "1 x", "--host"});
  EXPECT_EQ(ids.exit_code, 2);
  EXPECT_EQ(ids.err, "trit: error: --ids: 'x' (item 2) is not a token id (an integer >= 0)\n");
  const RunResult range = Trit({"pack", "run", dir_, "--ids", "1 9999", "--host"});
  EXPECT_EQ(range.exit_code, 2);
  EXPECT_EQ(range.err, "trit: error: --ids: id 9999 (item 2) is out of range, expected 0..511\n");
  const RunResult missing = Trit({"pack", "check", home_ + "/nothing"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err, "trit: error: " + home_ + "/nothing/plan.json: cannot open for reading\n");
}

}  // namespace
}  // namespace trit
