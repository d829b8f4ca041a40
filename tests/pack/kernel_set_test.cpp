// The kernel sets (pack/kernel_set.h): file names of each generation, the
// scan of a pack directory, and every case of the rule that chooses the set
// that runs, each with its stated reason.
#include "pack/kernel_set.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace trit::pack {
namespace {

TEST(KernelSetTest, NamesFilesOfEachGeneration) {
  EXPECT_EQ(SealedKernelFile("matmul", 640, 2048), "full_i8_matmul_K640_N2048.elf");
  EXPECT_EQ(SealedNamedFile("lmhead"), "SEALED-lmhead.elf");
  EXPECT_EQ(PerRoleLayerFile(17), "layer_ctx17.elf");
}

TEST(KernelSetTest, ClassifiesFileNames) {
  EXPECT_EQ(ClassifyKernelFile("full_i8_matmul_K640_N2048.elf"), Generation::kSealed);
  EXPECT_EQ(ClassifyKernelFile("full_i8_q_proj_K64_N32.elf"), Generation::kSealed);
  EXPECT_EQ(ClassifyKernelFile("SEALED-lmhead.elf"), Generation::kSealed);
  EXPECT_EQ(ClassifyKernelFile("layer_ctx1.elf"), Generation::kPerRole);
  EXPECT_EQ(ClassifyKernelFile("layer_ctx17.elf"), Generation::kPerRole);
  EXPECT_EQ(ClassifyKernelFile("lmhead.elf"), Generation::kPerRole);
  EXPECT_EQ(ClassifyKernelFile("layer.pdi"), Generation::kPerRole);
  for (const char* other : {"plan.json", "model.gguf", "full_i8_matmul_K64.elf", "full_i8_matmul_Kx_N2.elf",
                            "full_i8__K1_N2.elf", "full_i8_matmul_K1_N2.so", "layer_ctx.elf", "layer_ctxA.elf",
                            "SEALED-.elf", "readme.txt"}) {
    EXPECT_FALSE(ClassifyKernelFile(other).has_value()) << other;
  }
}

class ScanTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/trit-kernel-set-test-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Touch(const std::string& name) { std::ofstream(dir_ + "/" + name) << "x"; }
  std::string dir_;
};

TEST_F(ScanTest, ListsEachSetSorted) {
  for (const char* f : {"plan.json", "SEALED-lmhead.elf", "full_i8_matmul_K64_N32.elf", "layer_ctx4.elf", "layer.pdi",
                        "notes.txt"}) {
    Touch(f);
  }
  Expected<KernelSetScan> scan = ScanKernelSets(dir_);
  ASSERT_TRUE(scan.ok()) << scan.status().message();
  EXPECT_EQ(scan->sealed, (std::vector<std::string>{"SEALED-lmhead.elf", "full_i8_matmul_K64_N32.elf"}));
  EXPECT_EQ(scan->per_role, (std::vector<std::string>{"layer.pdi", "layer_ctx4.elf"}));
  EXPECT_EQ(DescribeKernelSet(Generation::kSealed, *scan), "sealed kernel set, 2 ELF files");
  EXPECT_EQ(DescribeKernelSet(Generation::kPerRole, *scan), "per-role kernel set, 1 ELF file and layer.pdi");
}

TEST_F(ScanTest, NamesADirectoryItCannotList) {
  Expected<KernelSetScan> scan = ScanKernelSets(dir_ + "/absent");
  ASSERT_FALSE(scan.ok());
  EXPECT_NE(scan.status().message().find(dir_ + "/absent: cannot list the pack directory"), std::string::npos);
}

KernelSetScan Scan(bool sealed, bool per_role) {
  KernelSetScan s;
  if (sealed) s.sealed = {"SEALED-lmhead.elf"};
  if (per_role) s.per_role = {"layer_ctx1.elf"};
  return s;
}

PackPlan PlanOf(std::optional<Generation> g) {
  PackPlan p;
  p.generation = g;
  return p;
}

TEST(ChooseGenerationTest, APinDecides) {
  const GenerationChoice c = ChooseGeneration(Scan(true, false), PlanOf(Generation::kSealed), Generation::kPerRole);
  EXPECT_EQ(c.generation, Generation::kPerRole);
  EXPECT_EQ(c.reason, "--generation per-role pins it");
}

TEST(ChooseGenerationTest, TheOnlySetPresentRunsWhateverThePlanAsks) {
  // The failure this rule prevents: a tool demanding layer_ctx1.elf of a pack that ships the sealed set.
  const GenerationChoice c = ChooseGeneration(Scan(true, false), PlanOf(Generation::kPerRole), std::nullopt);
  EXPECT_EQ(c.generation, Generation::kSealed);
  EXPECT_EQ(c.reason, "only the sealed set's files are present (plan.json's generation is per-role, whose files are absent)");
  const GenerationChoice d = ChooseGeneration(Scan(false, true), PlanOf(std::nullopt), std::nullopt);
  EXPECT_EQ(d.generation, Generation::kPerRole);
  EXPECT_EQ(d.reason, "only the per-role set's files are present");
}

TEST(ChooseGenerationTest, WithBothPresentThePlanDecides) {
  const GenerationChoice c = ChooseGeneration(Scan(true, true), PlanOf(Generation::kPerRole), std::nullopt);
  EXPECT_EQ(c.generation, Generation::kPerRole);
  EXPECT_EQ(c.reason, "both sets are present and plan.json's generation is per-role (pin the other with --generation)");
  const GenerationChoice d = ChooseGeneration(Scan(true, true), PlanOf(std::nullopt), std::nullopt);
  EXPECT_EQ(d.generation, Generation::kSealed);
  EXPECT_EQ(d.reason, "both sets are present and plan.json states no generation: the newer, sealed, runs (pin with --generation)");
}

TEST(ChooseGenerationTest, WithNonePresentThePlanOrItsOpsDecide) {
  EXPECT_EQ(ChooseGeneration(Scan(false, false), PlanOf(Generation::kPerRole), std::nullopt).generation,
            Generation::kPerRole);
  PackPlan only_per_role;
  only_per_role.ops.push_back({"matmul", "w", std::nullopt, std::nullopt, 1, 1, {{Generation::kPerRole, "lmhead.elf", 1}}});
  const GenerationChoice c = ChooseGeneration(Scan(false, false), only_per_role, std::nullopt);
  EXPECT_EQ(c.generation, Generation::kPerRole);
  EXPECT_EQ(c.reason, "no kernel files are present and plan.json's ops name only per-role kernels");
  EXPECT_EQ(ChooseGeneration(Scan(false, false), PlanOf(std::nullopt), std::nullopt).generation, Generation::kSealed);
}

}  // namespace
}  // namespace trit::pack
