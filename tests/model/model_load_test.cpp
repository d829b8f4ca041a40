// Loading: hyper-parameters from metadata, weights bound by name with shape
// and type checked, malformed models refused by name.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "model/architecture.h"
#include "model/model.h"
#include "model/random_model.h"
#include "runtime/session.h"
#include "test_paths.h"

namespace trit::testing {
namespace {

class ModelLoadTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("trit-model-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    dirs_.push_back(dir);
    return (dir / name).string();
  }
  void TearDown() override {
    for (const auto& d : dirs_) std::filesystem::remove_all(d);
  }
  // Writes `spec` and returns the load error message ("" on success).
  std::string LoadError(const RandomModelSpec& spec) {
    const std::string path = Path("m.gguf");
    EXPECT_TRUE(WriteRandomModel(spec, path).ok());
    Expected<std::unique_ptr<model::Model>> m = model::LoadModel(path);
    return m.ok() ? std::string() : m.status().message();
  }
  std::vector<std::filesystem::path> dirs_;
};

TEST_F(ModelLoadTest, BundledModelHyperParameters) {
  Expected<std::unique_ptr<model::Model>> m = model::LoadModel(BundledModelPath());
  ASSERT_TRUE(m.ok()) << m.status().message();
  const model::HParams& h = (*m)->hparams();
  EXPECT_EQ(h.architecture, "llama");
  EXPECT_EQ(h.n_vocab, 512);
  EXPECT_EQ(h.n_embd, 64);
  EXPECT_EQ(h.n_layer, 5);
  EXPECT_EQ(h.n_head, 8);
  EXPECT_EQ(h.n_head_kv, 4);
  EXPECT_EQ(h.head_dim, 8);
  EXPECT_EQ(h.rope.n_rot, 8);
  EXPECT_EQ(h.rope.mode, kernels::RopeMode::kNormal);
  EXPECT_EQ(h.n_ff, 172);
  EXPECT_EQ(h.n_ctx_train, 2048);
  EXPECT_FLOAT_EQ(h.rms_eps, 1e-5f);
  EXPECT_FLOAT_EQ(h.rope.freq_base, 10000.0f);
  ASSERT_TRUE(h.bos_id.has_value());
  EXPECT_EQ(*h.bos_id, 1);
}

TEST_F(ModelLoadTest, RegistryKnowsEachArchitectureOnce) {
  ASSERT_NE(model::FindArchitecture("llama"), nullptr);
  ASSERT_NE(model::FindArchitecture("qwen2"), nullptr);
  ASSERT_NE(model::FindArchitecture("qwen3"), nullptr);
  EXPECT_EQ(model::FindArchitecture("gpt9"), nullptr);
  EXPECT_EQ(model::Architectures().size(), 13u);
  // Each architecture either generates text or embeds it, never both.
  for (const model::Architecture* a : model::Architectures()) {
    EXPECT_NE(a->load == nullptr, a->load_encoder == nullptr) << a->name;
  }
  EXPECT_NE(model::FindArchitecture("bert")->load_encoder, nullptr);
}

TEST_F(ModelLoadTest, MissingTensorRefusedByName) {
  RandomModelSpec spec;
  spec.skip_tensor = "blk.1.ffn_up.weight";
  EXPECT_NE(LoadError(spec).find("tensor 'blk.1.ffn_up.weight' not found (architecture 'llama')"),
            std::string::npos)
      << LoadError(spec);
}

TEST_F(ModelLoadTest, WrongShapeRefusedWithExpectedVsActual) {
  RandomModelSpec spec;
  spec.wrong_tensor = "blk.0.attn_q.weight";
  EXPECT_NE(LoadError(spec).find("tensor 'blk.0.attn_q.weight': shape [64, 32], expected [64, 64]"),
            std::string::npos)
      << LoadError(spec);
}

TEST_F(ModelLoadTest, UnknownArchitectureRefusedByName) {
  RandomModelSpec spec;
  spec.architecture = "gpt9";
  const std::string err = LoadError(spec);
  EXPECT_NE(err.find("unknown architecture 'gpt9' (known: llama, qwen2, qwen3, qwen3moe, qwen35, gemma, gemma2, gemma3, gemma4, gpt-oss, bitnet, bitnet-b1.58, bert)"), std::string::npos) << err;
}

TEST_F(ModelLoadTest, MissingHyperParameterRefusedByKey) {
  // qwen2 needs biases: a llama-shaped file labelled qwen2 is refused by the first bias.
  RandomModelSpec spec;
  spec.architecture = "qwen2";
  EXPECT_NE(LoadError(spec).find("tensor 'blk.0.attn_q.bias' not found (architecture 'qwen2')"), std::string::npos);
}

// Runs ids through a fresh session and returns all logits.
std::vector<float> AllLogits(const model::Model& m, const std::vector<int32_t>& ids) {
  auto session = runtime::Session::Create(m, {});
  EXPECT_TRUE(session.ok());
  Expected<runtime::Logits> l = (*session)->Verify(ids);
  EXPECT_TRUE(l.ok()) << l.status().message();
  return l->values;
}

TEST_F(ModelLoadTest, TiedEmbeddingsUseTokenEmbeddingForLogits) {
  // The untied model's output.weight is random; replace it by token_embd's bytes:
  // the result must equal the tied model's, bit for bit.
  RandomModelSpec tied;
  tied.tied = true;
  const std::string tied_path = Path("tied.gguf");
  ASSERT_TRUE(WriteRandomModel(tied, tied_path).ok());
  Expected<std::unique_ptr<model::Model>> tm = model::LoadModel(tied_path);
  ASSERT_TRUE(tm.ok()) << tm.status().message();
  const std::vector<int32_t> ids = {1, 5, 9, 33, 47, 0};
  const std::vector<float> tied_logits = AllLogits(**tm, ids);

  const std::string untied_path = Path("untied.gguf");
  ASSERT_TRUE(WriteUntiedCopy(tied_path, untied_path).ok());
  Expected<std::unique_ptr<model::Model>> um = model::LoadModel(untied_path);
  ASSERT_TRUE(um.ok()) << um.status().message();
  EXPECT_EQ(AllLogits(**um, ids), tied_logits);
}

}  // namespace
}  // namespace trit::testing
