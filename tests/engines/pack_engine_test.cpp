// The built-in `pack` engine (the host path of packs): listed and available
// in the default registry, chosen for packs and never for GGUF files, and it
// loads a pack's weights file as the cpu engine loads a GGUF. WeightsFile
// names the GGUF file a command reads a model's tokenizer from.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "engines/builtin_engines.h"
#include "engines/default_registry.h"
#include "engines/model_format.h"
#include "engines/open_model.h"
#include "test_paths.h"

namespace trit::engines {
namespace {

namespace fs = std::filesystem;

// {dir}/plan.json naming `model` (the weights), beside which the test links
// the bundled model when `link_weights`.
class PackEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("trit-pack-engine-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string MakePack(const std::string& model, bool link_weights) {
    std::ofstream(dir_ / "plan.json") << R"({"format":"trit-pack","version":1,"model":")" << model
                                      << R"(","device":"xdna2","ops":[]})";
    if (link_weights) fs::create_symlink(testing::BundledModelPath(), dir_ / model);
    return dir_.string();
  }

  fs::path dir_;
};

TEST(PackEngine, IsListedAvailableAndChosenOnlyForPacks) {
  std::unique_ptr<Registry> r = BuildRegistry(Discovery{});  // built-ins only: no plugin directory
  const Registry::Entry* pack = r->Find("pack");
  ASSERT_NE(pack, nullptr);
  EXPECT_TRUE(pack->availability.available) << pack->availability.reason;
  EXPECT_EQ(r->Find("pack-host"), pack);
  EXPECT_EQ(pack->engine->info().priority, kPackHostPriority);
  EXPECT_LT(kPackHostPriority, kCpuPriority);

  Expected<const Engine*> for_pack = r->Choose({kCapabilityGenerate, kFormatPack, ""});
  ASSERT_TRUE(for_pack.ok()) << for_pack.status().message();
  EXPECT_EQ((*for_pack)->info().name, "pack");
  Expected<const Engine*> for_gguf = r->Choose({kCapabilityGenerate, kFormatGguf, ""});
  ASSERT_TRUE(for_gguf.ok()) << for_gguf.status().message();
  EXPECT_EQ((*for_gguf)->info().name, "cpu");
  Expected<const Engine*> pinned = r->Choose({kCapabilityGenerate, kFormatGguf, "pack"});
  ASSERT_FALSE(pinned.ok());
  EXPECT_NE(pinned.status().message().find("does not accept gguf"), std::string::npos) << pinned.status().message();
}

TEST_F(PackEngineTest, LoadsTheWeightsThePlanNames) {
  const std::string pack = MakePack("m.gguf", /*link_weights=*/true);
  Expected<std::unique_ptr<model::Model>> direct = model::LoadModel(testing::BundledModelPath());
  ASSERT_TRUE(direct.ok()) << direct.status().message();
  Expected<OpenedModel> opened = OpenForCapability(pack, kCapabilityGenerate, "");
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  EXPECT_EQ(opened->format, "pack");
  EXPECT_EQ(opened->engine->info().name, "pack");
  const model::HParams& want = (*direct)->hparams();
  const model::HParams& got = opened->model->hparams();
  EXPECT_EQ(got.architecture, want.architecture);
  EXPECT_EQ(got.n_vocab, want.n_vocab);
  EXPECT_EQ(got.n_ctx_train, want.n_ctx_train);
  EXPECT_EQ(got.n_embd, want.n_embd);
  EXPECT_EQ(got.n_layer, want.n_layer);
  EXPECT_EQ(got.n_head, want.n_head);
  EXPECT_EQ(got.n_head_kv, want.n_head_kv);
  EXPECT_EQ(got.head_dim, want.head_dim);
  EXPECT_EQ(got.n_ff, want.n_ff);
  EXPECT_EQ(got.rms_eps, want.rms_eps);
}

TEST_F(PackEngineTest, AMissingWeightsFileIsNamed) {
  const std::string pack = MakePack("absent.gguf", /*link_weights=*/false);
  Expected<std::unique_ptr<model::Model>> m = MakePackEngine()->LoadModel(pack);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("pack " + pack), std::string::npos) << m.status().message();
  EXPECT_NE(m.status().message().find("absent.gguf"), std::string::npos) << m.status().message();
}

TEST_F(PackEngineTest, ABadPlanNamesItsField) {
  std::ofstream(dir_ / "plan.json") << R"({"format":"trit-pack","version":1,"device":"xdna2","ops":[]})";
  Expected<std::unique_ptr<model::Model>> m = MakePackEngine()->LoadModel(dir_.string());
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("plan.json: model: missing"), std::string::npos) << m.status().message();
  Expected<std::string> w = WeightsFile(dir_.string());
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("plan.json: model: missing"), std::string::npos) << w.status().message();
}

TEST_F(PackEngineTest, WeightsFileOfAGgufAndOfAPack) {
  Expected<std::string> gguf = WeightsFile(testing::BundledModelPath());
  ASSERT_TRUE(gguf.ok()) << gguf.status().message();
  EXPECT_EQ(*gguf, testing::BundledModelPath());
  const std::string pack = MakePack("m.gguf", /*link_weights=*/true);
  Expected<std::string> weights = WeightsFile(pack);
  ASSERT_TRUE(weights.ok()) << weights.status().message();
  EXPECT_EQ(*weights, (dir_ / "m.gguf").string());
  fs::remove(dir_ / "plan.json");  // a directory without a plan is no model
  Expected<std::string> plain = WeightsFile(pack);
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.status().message().find("plan.json"), std::string::npos) << plain.status().message();
}

}  // namespace
}  // namespace trit::engines
