// `pack make`'s work (pack/make_pack.h): a plan with one op per matrix role
// and shape over the layers that share it, each op's kernel in both
// generations; the weights placed beside plan.json; bad options refused.
#include "pack/make_pack.h"

#include <filesystem>

#include "formats/gguf/reader.h"
#include "model/random_model.h"
#include "pack/check_pack.h"
#include "pack_fixture.h"

namespace trit::pack {
namespace {

using MakePackTest = PackFixture;

TEST_F(MakePackTest, PlansEveryMatrixOfTheBundledModel) {
  const PackPlan plan = Make();
  EXPECT_EQ(plan.model, "stories260K.gguf");
  EXPECT_EQ(plan.device, "xdna2");
  EXPECT_EQ(plan.generation, Generation::kSealed);
  EXPECT_EQ(plan.decode_m, 1);
  EXPECT_EQ(plan.prefill_m, 4);
  // 7 matrices per layer over layers 0-4, then the output head.
  ASSERT_EQ(plan.ops.size(), 8u);
  const PlanOp& q = plan.ops[0];
  EXPECT_EQ(q.Describe(), "matmul blk.{layer}.attn_q.weight (layers 0-4)");
  EXPECT_EQ(q.k, 64);
  EXPECT_EQ(q.n, 64);
  ASSERT_EQ(q.kernels.size(), 3u);
  EXPECT_EQ(q.kernels[0].file, "full_i8_matmul_K64_N64.elf");
  EXPECT_EQ(q.kernels[0].m, 4);
  EXPECT_EQ(q.kernels[1].file, "layer_ctx1.elf");
  EXPECT_EQ(q.kernels[1].m, 1);
  EXPECT_EQ(q.kernels[2].file, "layer_ctx4.elf");
  const PlanOp& head = plan.ops.back();
  EXPECT_EQ(head.Describe(), "lmhead output.weight");
  EXPECT_EQ(head.n, 512);
  EXPECT_EQ(head.kernels[0].file, "SEALED-lmhead.elf");
  EXPECT_EQ(head.kernels[1].file, "lmhead.elf");
  // Ops of one shape share a sealed kernel: q and o are both 64 x 64.
  const std::vector<RequiredKernel> sealed = RequiredKernels(plan, Generation::kSealed);
  ASSERT_EQ(sealed.size(), 5u);
  EXPECT_EQ(sealed[0].file, "full_i8_matmul_K64_N64.elf");
  EXPECT_EQ(sealed[0].ops.size(), 2u);
  const std::vector<RequiredKernel> per_role = RequiredKernels(plan, Generation::kPerRole);
  ASSERT_EQ(per_role.size(), 3u);
  EXPECT_EQ(per_role[0].file, "layer_ctx1.elf");
  EXPECT_EQ(per_role[0].ops.size(), 7u);
}

TEST_F(MakePackTest, PlacesTheWeightsAndAReadablePlan) {
  Make();
  EXPECT_TRUE(std::filesystem::equivalent(dir_ + "/stories260K.gguf", testing::BundledModelPath()) ||
              std::filesystem::file_size(dir_ + "/stories260K.gguf") ==
                  std::filesystem::file_size(testing::BundledModelPath()));
  Expected<PackPlan> read = ReadPlan(dir_);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->ops.size(), 8u);
  // Every matrix is covered and every K/N agrees with the model: only the kernel files are missing.
  Expected<PackCheck> c = CheckPack(dir_, std::nullopt);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->problems.size(), 5u);
  for (const PackProblem& p : c->problems) EXPECT_TRUE(p.missing_kernel) << p.message;
}

TEST_F(MakePackTest, PlansARandomModelWithTiedEmbeddingsAndOtherShapes) {
  testing::RandomModelSpec spec;
  spec.n_layer = 3;
  spec.n_embd = 96;
  spec.n_head = 4;
  spec.n_head_kv = 4;
  spec.n_ff = 160;
  spec.tied = true;
  const std::string model = root_ + "/random.gguf";
  ASSERT_TRUE(testing::WriteRandomModel(spec, model).ok());
  const PackPlan plan = Make(model, 8);
  const PlanOp& head = plan.ops.back();
  EXPECT_EQ(head.Describe(), "lmhead token_embd.weight");  // tied: the embedding is the output head
  EXPECT_EQ(head.k, 96);
  EXPECT_EQ(head.n, spec.n_vocab);
  EXPECT_EQ(plan.ops[0].Describe(), "matmul blk.{layer}.attn_q.weight (layers 0-2)");
  const std::vector<RequiredKernel> sealed = RequiredKernels(plan, Generation::kSealed);
  bool down = false;
  for (const RequiredKernel& k : sealed) down |= k.file == "full_i8_matmul_K160_N96.elf" && k.m == 8;
  EXPECT_TRUE(down);
  Expected<PackCheck> c = CheckPack(dir_, std::nullopt);
  ASSERT_TRUE(c.ok());
  for (const PackProblem& p : c->problems) EXPECT_TRUE(p.missing_kernel) << p.message;
}

TEST_F(MakePackTest, RefusesBadOptionsAndAnExistingPack) {
  MakeOptions o;
  o.device = "xdna2";
  o.prefill_m = 4;
  o.decode_m = 8;
  Expected<MadePack> wide = MakePack(testing::BundledModelPath(), dir_, o);
  ASSERT_FALSE(wide.ok());
  EXPECT_EQ(wide.status().message(), "--decode-m 8: expected a width from 1 to --prefill-m (4)");
  o.decode_m = 1;
  o.device = "../x";
  Expected<MadePack> bad = MakePack(testing::BundledModelPath(), dir_, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind("--device: ", 0), 0u) << bad.status().message();
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/plan.json"));
  Make();
  o.device = "xdna2";
  Expected<MadePack> again = MakePack(testing::BundledModelPath(), dir_, o);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().message(), dir_ + ": already a pack (it holds plan.json); choose a new directory");
  Expected<MadePack> not_gguf = MakePack(dir_ + "/plan.json", root_ + "/other", o);
  EXPECT_FALSE(not_gguf.ok());
}

}  // namespace
}  // namespace trit::pack
