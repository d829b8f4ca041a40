// `pack check`'s work (pack/check_pack.h): a complete pack passes; each
// refusal names the op, the file and what is wrong; the set that runs is
// the rule's, with its reason; a kernel without a note is reported only.
#include "pack/check_pack.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "pack_fixture.h"

namespace trit::pack {
namespace {

class CheckPackTest : public PackFixture {
 protected:
  PackCheck Check(std::optional<Generation> pin = std::nullopt) {
    Expected<PackCheck> c = CheckPack(dir_, pin);
    EXPECT_TRUE(c.ok()) << c.status().message();
    return c.ok() ? *c : PackCheck{};
  }
  // The problems as "op | file | message" lines.
  static std::vector<std::string> Problems(const PackCheck& c) {
    std::vector<std::string> out;
    for (const PackProblem& p : c.problems) out.push_back(p.op + " | " + p.file + " | " + p.message);
    return out;
  }
  std::string ReadPlanText() {
    std::ifstream f(dir_ + "/plan.json");
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
  }
  void EditPlan(const std::string& from, const std::string& to) {
    std::string text = ReadPlanText();
    const size_t at = text.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    WriteFile("plan.json", text);
  }
};

TEST_F(CheckPackTest, ACompleteSealedPackPasses) {
  BuildKernels(Make(), Generation::kSealed);
  const PackCheck c = Check();
  EXPECT_TRUE(c.ok()) << ::testing::PrintToString(Problems(c));
  EXPECT_EQ(c.choice.generation, Generation::kSealed);
  EXPECT_EQ(c.choice.reason, "only the sealed set's files are present");
  ASSERT_EQ(c.kernels.size(), 5u);
  for (const KernelFileState& k : c.kernels) {
    EXPECT_EQ(k.state, "ok") << k.file;
    ASSERT_TRUE(k.note.has_value());
    EXPECT_EQ(k.note->m, 4);
  }
  EXPECT_EQ(DescribeKernelSet(Generation::kSealed, c.scan), "sealed kernel set, 5 ELF files");
}

TEST_F(CheckPackTest, ACompletePerRolePackPasses) {
  BuildKernels(Make(), Generation::kPerRole);
  const PackCheck c = Check();
  EXPECT_TRUE(c.ok()) << ::testing::PrintToString(Problems(c));
  EXPECT_EQ(c.choice.generation, Generation::kPerRole);
  EXPECT_EQ(c.choice.reason, "only the per-role set's files are present (plan.json's generation is sealed, whose files are absent)");
  ASSERT_EQ(c.kernels.size(), 4u);  // layer_ctx1, layer_ctx4, lmhead, layer.pdi
  EXPECT_EQ(c.kernels.back().file, "layer.pdi");
}

TEST_F(CheckPackTest, NamesAMissingKernel) {
  BuildKernels(Make(), Generation::kSealed);
  std::filesystem::remove(dir_ + "/SEALED-lmhead.elf");
  const PackCheck c = Check();
  EXPECT_EQ(Problems(c), std::vector<std::string>{
                             "lmhead output.weight | SEALED-lmhead.elf | missing: the device toolchain must provide it "
                             "(trit pack run --host runs without it)"});
  EXPECT_TRUE(c.problems[0].missing_kernel);
  EXPECT_EQ(c.missing_kernels(), 1u);
}

TEST_F(CheckPackTest, NamesAnUnreadableKernel) {
  BuildKernels(Make(), Generation::kSealed);
  std::filesystem::remove(dir_ + "/SEALED-lmhead.elf");
  std::filesystem::create_directory(dir_ + "/SEALED-lmhead.elf");  // unreadable even to root
  const PackCheck c = Check();
  ASSERT_EQ(c.problems.size(), 1u);
  EXPECT_EQ(c.problems[0].file, "SEALED-lmhead.elf");
  EXPECT_EQ(c.problems[0].message.rfind("unreadable: ", 0), 0u) << c.problems[0].message;
  EXPECT_FALSE(c.problems[0].missing_kernel);
}

TEST_F(CheckPackTest, NamesAKernelThatIsNotAnElfFile) {
  BuildKernels(Make(), Generation::kSealed);
  WriteFile("full_i8_matmul_K64_N32.elf", "#!/bin/sh\necho not a kernel\n");
  const PackCheck c = Check();
  ASSERT_EQ(c.problems.size(), 1u);
  EXPECT_EQ(c.problems[0].op, "matmul blk.{layer}.attn_k.weight (layers 0-4)");
  EXPECT_EQ(c.problems[0].file, "full_i8_matmul_K64_N32.elf");
  EXPECT_EQ(c.problems[0].message.rfind("not a valid ELF file (", 0), 0u) << c.problems[0].message;
  EXPECT_NE(c.problems[0].message.find("): rebuild it with the device toolchain"), std::string::npos);
}

TEST_F(CheckPackTest, RefusesAKernelBuiltForAnotherWidth) {
  BuildKernels(Make(), Generation::kSealed);
  BuildKernel("SEALED-lmhead.elf", "op=lmhead K=64 N=512 M=8");
  const PackCheck c = Check();
  EXPECT_EQ(Problems(c), std::vector<std::string>{
                             "lmhead output.weight | SEALED-lmhead.elf | its trit.kernel note declares M=8 (the plan "
                             "says M=4): rebuild the kernel for the plan's shape, or correct plan.json"});
}

TEST_F(CheckPackTest, RefusesASealedKernelOfAnotherShapeForEveryOpUsingIt) {
  BuildKernels(Make(), Generation::kSealed);
  BuildKernel("full_i8_matmul_K64_N32.elf", "op=matmul K=64 N=48 M=4");
  const PackCheck c = Check();
  ASSERT_EQ(c.problems.size(), 2u);  // attn_k and attn_v share it
  EXPECT_EQ(c.problems[0].op, "matmul blk.{layer}.attn_k.weight (layers 0-4)");
  EXPECT_EQ(c.problems[1].op, "matmul blk.{layer}.attn_v.weight (layers 0-4)");
  EXPECT_EQ(c.problems[0].message.rfind("its trit.kernel note declares K=64 N=48 (the plan says K=64 N=32)", 0), 0u)
      << c.problems[0].message;
}

TEST_F(CheckPackTest, APerRoleKernelIsCheckedForItsWidthOnly) {
  BuildKernels(Make(), Generation::kPerRole);
  BuildKernel("layer_ctx4.elf", "op=layer K=64 N=64 M=3");
  const PackCheck c = Check();
  ASSERT_EQ(c.problems.size(), 7u);  // every layer op that runs layer_ctx4
  EXPECT_EQ(c.problems[0].file, "layer_ctx4.elf");
  EXPECT_EQ(c.problems[0].message.rfind("its trit.kernel note declares M=3 (the plan says M=4)", 0), 0u);
  std::filesystem::remove(dir_ + "/layer.pdi");
  BuildKernel("layer_ctx4.elf", "op=layer K=1 N=1 M=4");  // K and N are the layer's, not an op's
  const PackCheck d = Check();
  EXPECT_EQ(Problems(d), std::vector<std::string>{" | layer.pdi | missing: the device toolchain must provide it (trit "
                                                  "pack run --host runs without it)"});
}

TEST_F(CheckPackTest, AKernelWithoutANoteIsReportedNotRefused) {
  BuildKernels(Make(), Generation::kSealed);
  BuildKernel("SEALED-lmhead.elf", "");
  const PackCheck c = Check();
  EXPECT_TRUE(c.ok()) << ::testing::PrintToString(Problems(c));
  EXPECT_EQ(c.kernels.back().state, "no note");
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_EQ(c.notes[0], "SEALED-lmhead.elf carries no trit.kernel note: its op, shape and width are not checked");
}

TEST_F(CheckPackTest, RefusesAPlanWhoseShapesDisagreeWithTheModel) {
  BuildKernels(Make(), Generation::kSealed);
  EditPlan("\"K\": 172, \"N\": 64", "\"K\": 172, \"N\": 96");
  const PackCheck c = Check();
  ASSERT_GE(c.problems.size(), 5u);  // layers 0-4, then the kernel's note
  EXPECT_EQ(c.problems[0].op, "matmul blk.{layer}.ffn_down.weight (layers 0-4)");
  EXPECT_EQ(c.problems[0].message,
            "blk.0.ffn_down.weight is K=172 N=64 in the model; the plan says K=172 N=96 (remake the plan with trit pack make)");
}

TEST_F(CheckPackTest, RefusesAnOpForAnotherModelAndAMatrixNoOpCovers) {
  BuildKernels(Make(), Generation::kSealed);
  EditPlan("blk.{layer}.ffn_up.weight", "blk.{layer}.ffn_upper.weight");
  const PackCheck c = Check();
  EXPECT_EQ(Problems(c),
            (std::vector<std::string>{
                "matmul blk.{layer}.ffn_upper.weight (layers 0-4) |  | tensor blk.0.ffn_upper.weight is not in the "
                "model, nor are 4 more (is plan.json for this model?)",
                " |  | the model's matrix blk.0.ffn_up.weight (K=64 N=172) has no op in the plan, nor do 4 more of its "
                "role (trit pack make plans every matrix)"}));
}

TEST_F(CheckPackTest, RefusesAKernelAtAWidthThePlanDoesNotRun) {
  BuildKernels(Make(), Generation::kSealed);
  EditPlan("\"prefill_m\": 4", "\"prefill_m\": 8");
  const PackCheck c = Check();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.problems[0].message,
            "M=4 is none of the plan's widths (decode_m=1, prefill_m=8): build it for one of them or correct the widths");
}

TEST_F(CheckPackTest, NamesTheBrokenWeightsFile) {
  BuildKernels(Make(), Generation::kSealed);
  std::filesystem::remove(dir_ + "/stories260K.gguf");
  WriteFile("stories260K.gguf", "PK\x03\x04 not a model");
  const PackCheck c = Check();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.problems[0].file, "stories260K.gguf");
  EXPECT_EQ(c.problems[0].message.rfind("the weights: ", 0), 0u) << c.problems[0].message;
}

TEST_F(CheckPackTest, WithBothSetsPresentThePlanChoosesAndAPinOverrides) {
  const PackPlan plan = Make();
  BuildKernels(plan, Generation::kSealed);
  BuildKernels(plan, Generation::kPerRole);
  const PackCheck c = Check();
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(c.choice.generation, Generation::kSealed);
  EXPECT_EQ(c.choice.reason, "both sets are present and plan.json's generation is sealed (pin the other with --generation)");
  EXPECT_EQ(c.kernels.size(), 5u);
  const PackCheck d = Check(Generation::kPerRole);
  EXPECT_TRUE(d.ok());
  EXPECT_EQ(d.choice.generation, Generation::kPerRole);
  EXPECT_EQ(d.kernels.size(), 4u);
}

TEST_F(CheckPackTest, NotesAPlanWithoutAWidth) {
  BuildKernels(Make(), Generation::kSealed);
  EditPlan("  \"decode_m\": 1,\n  \"prefill_m\": 4,\n", "");  // a plan that states no widths
  const PackCheck c = Check();
  EXPECT_TRUE(c.ok()) << ::testing::PrintToString(Problems(c));
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_EQ(c.notes[0], "plan.json states no prefill_m: a run computes one row per pass");
}

TEST_F(CheckPackTest, ErrorsWhenThePlanCannotBeRead) {
  Make();
  WriteFile("plan.json", "{\"format\": \"trit-pack\"");
  Expected<PackCheck> c = CheckPack(dir_, std::nullopt);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), dir_ + ": plan.json: not valid JSON");
}

}  // namespace
}  // namespace trit::pack
