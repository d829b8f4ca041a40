// gemma, gemma2, gemma3 and bitnet: hyper-parameters from metadata (with
// llama.cpp's defaults and rules), tensors refused by name, and batch
// invariance of random-weight models (their logits against an independent
// numpy forward: tests/python/llama_forward_test.py).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "formats/gguf/reader.h"
#include "formats/gguf/writer.h"
#include "model/architecture.h"
#include "model/chunked_logits.h"
#include "model/model.h"
#include "model/random_model.h"
#include "runtime/session.h"

namespace trit::testing {
namespace {

// 45 ids: longer than every preset's sliding window (5, 6) and the 32-key chunk.
const std::vector<int32_t> kIds = {1,  5,  9,  33, 47, 0,  3,  17, 22, 40, 41, 2,  8,  13, 29,
                                   31, 7,  44, 12, 19, 26, 38, 4,  46, 11, 20, 35, 6,  15, 27,
                                   39, 42, 10, 23, 30, 36, 14, 45, 18, 24, 32, 16, 21, 28, 34};

class ArchitecturesTest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("trit-arch-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    dir_ = dir;
    return (dir / name).string();
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  Expected<std::unique_ptr<model::Model>> Load(const RandomModelSpec& spec) {
    const std::string path = Path(spec.architecture + ".gguf");
    EXPECT_TRUE(WriteRandomModel(spec, path).ok());
    return model::LoadModel(path);
  }
  std::unique_ptr<model::Model> MustLoad(const RandomModelSpec& spec) {
    Expected<std::unique_ptr<model::Model>> m = Load(spec);
    EXPECT_TRUE(m.ok()) << m.status().message();
    return m.ok() ? std::move(*m) : nullptr;
  }
  std::string LoadError(const RandomModelSpec& spec) {
    Expected<std::unique_ptr<model::Model>> m = Load(spec);
    return m.ok() ? std::string() : m.status().message();
  }
  // Writes `spec`, rewrites it with metadata `key` set to `value`, loads it and returns the error ("" on success).
  std::string LoadErrorWithMetadata(const RandomModelSpec& spec, const std::string& key, const gguf::Value& value) {
    const std::string path = Path("base.gguf");
    EXPECT_TRUE(WriteRandomModel(spec, path).ok());
    Expected<gguf::File> f = gguf::File::Open(path);
    EXPECT_TRUE(f.ok());
    gguf::Writer w;
    for (const auto& e : f->metadata()) EXPECT_TRUE(w.SetMetadata(e.key, e.value).ok());
    EXPECT_TRUE(w.SetMetadata(key, value).ok());
    for (const auto& t : f->tensors()) {
      EXPECT_TRUE(w.AddTensorData(t.name, t.type->type, t.shape, f->TensorData(t)).ok());
    }
    const std::string edited = Path("edited.gguf");
    EXPECT_TRUE(w.WriteFile(edited).ok());
    Expected<std::unique_ptr<model::Model>> m = model::LoadModel(edited);
    return m.ok() ? std::string() : m.status().message();
  }
  std::filesystem::path dir_;
};

// All rows' logits of kIds run in passes of `chunk` rows.
std::vector<float> Chunked(const model::Model& m, size_t chunk, int n_threads, kernels::KvType kv) {
  return ChunkedLogits(m, kIds, chunk, n_threads, kv);
}

const char* const kNewArchitectures[] = {"gemma", "gemma2", "gemma3", "bitnet", "bitnet-b1.58"};

TEST_F(ArchitecturesTest, RegisteredOnceEach) {
  EXPECT_EQ(model::Architectures().size(), 13u);
  for (const char* a : kNewArchitectures) {
    const model::Architecture* arch = model::FindArchitecture(a);
    ASSERT_NE(arch, nullptr) << a;
    EXPECT_EQ(arch->name, a);
  }
}

TEST_F(ArchitecturesTest, GemmaHyperParameters) {
  std::unique_ptr<model::Model> m = MustLoad(ArchitecturePreset("gemma"));
  ASSERT_NE(m, nullptr);
  const model::HParams& h = m->hparams();
  EXPECT_EQ(h.architecture, "gemma");
  EXPECT_EQ(h.head_dim, 24);  // gemma.attention.key_length, not n_embd / n_head = 16
  EXPECT_EQ(h.q_dim(), 96);
  EXPECT_EQ(h.rope.mode, kernels::RopeMode::kNeox);
  EXPECT_EQ(h.embd_scale, std::sqrt(64.0f));
  EXPECT_EQ(h.attn_scale, 1.0f / std::sqrt(24.0f));
  EXPECT_EQ(h.attn_softcap, 0.0f);
  EXPECT_EQ(h.final_softcap, 0.0f);
  EXPECT_EQ(h.n_swa, 0);
}

TEST_F(ArchitecturesTest, Gemma2HyperParametersFromMetadata) {
  std::unique_ptr<model::Model> m = MustLoad(ArchitecturePreset("gemma2"));
  ASSERT_NE(m, nullptr);
  const model::HParams& h = m->hparams();
  EXPECT_EQ(h.attn_softcap, 4.0f);
  EXPECT_EQ(h.final_softcap, 3.0f);
  EXPECT_EQ(h.n_swa, 6);
  EXPECT_EQ(h.swa_layers, (std::vector<uint8_t>{1, 0}));  // even layers local
  EXPECT_TRUE(h.is_swa(0));
  EXPECT_FALSE(h.is_swa(1));
  EXPECT_EQ(h.attn_scale, 1.0f / std::sqrt(16.0f));
  EXPECT_EQ(h.rope_swa.freq_base, h.rope.freq_base);
}

TEST_F(ArchitecturesTest, Gemma2DefaultsWhenKeysAreAbsent) {
  RandomModelSpec spec = ArchitecturePreset("gemma2");
  spec.attn_softcap = spec.final_softcap = 0.0f;  // not written
  spec.sliding_window = 0;
  spec.n_layer = 5;
  std::unique_ptr<model::Model> m = MustLoad(spec);
  ASSERT_NE(m, nullptr);
  const model::HParams& h = m->hparams();
  EXPECT_EQ(h.attn_softcap, 50.0f);
  EXPECT_EQ(h.final_softcap, 30.0f);
  EXPECT_EQ(h.n_swa, 4096);
  EXPECT_EQ(h.swa_layers, (std::vector<uint8_t>{1, 0, 1, 0, 1}));
}

TEST_F(ArchitecturesTest, Gemma2BadSoftCapRefusedByKey) {
  const std::string err =
      LoadErrorWithMetadata(ArchitecturePreset("gemma2"), "gemma2.attn_logit_softcapping", gguf::Value(-1.0f));
  EXPECT_NE(err.find("metadata 'gemma2.attn_logit_softcapping' is -1, expected > 0"), std::string::npos) << err;
}

TEST_F(ArchitecturesTest, Gemma3HyperParametersFromMetadata) {
  std::unique_ptr<model::Model> m = MustLoad(ArchitecturePreset("gemma3"));
  ASSERT_NE(m, nullptr);
  const model::HParams& h = m->hparams();
  EXPECT_EQ(h.n_swa, 5);
  EXPECT_EQ(h.swa_layers, (std::vector<uint8_t>{1, 1, 1, 1, 1, 0, 1}));  // il % 6 < 5
  // Global layer: the file's base and linear scaling; local layers: 10000, unscaled.
  EXPECT_EQ(h.layer_rope(5).freq_base, 1000000.0f);
  EXPECT_EQ(h.layer_rope(5).freq_scale, 1.0f / 8.0f);
  EXPECT_EQ(h.layer_rope(0).freq_base, 10000.0f);
  EXPECT_EQ(h.layer_rope(0).freq_scale, 1.0f);
  EXPECT_EQ(h.layer_rope(6).freq_base, 10000.0f);
  EXPECT_EQ(h.attn_softcap, 0.0f);
  EXPECT_EQ(h.final_softcap, 0.0f);
  EXPECT_EQ(h.embd_scale, std::sqrt(64.0f));
}

TEST_F(ArchitecturesTest, Gemma3WithoutSlidingWindowRefusedByKey) {
  RandomModelSpec spec = ArchitecturePreset("gemma3");
  spec.sliding_window = 0;
  EXPECT_NE(LoadError(spec).find("metadata 'gemma3.attention.sliding_window' is missing"), std::string::npos)
      << LoadError(spec);
}

TEST_F(ArchitecturesTest, BitnetHyperParametersAndScales) {
  std::unique_ptr<model::Model> m = MustLoad(ArchitecturePreset("bitnet"));
  ASSERT_NE(m, nullptr);
  const model::HParams& h = m->hparams();
  EXPECT_EQ(h.n_embd, 256);
  EXPECT_EQ(h.n_ff, 512);
  EXPECT_EQ(h.rope.mode, kernels::RopeMode::kNeox);
  EXPECT_EQ(h.embd_scale, 1.0f);
  EXPECT_EQ(h.n_swa, 0);
  // Scale tensors are optional, and used when present.
  RandomModelSpec no_scales = ArchitecturePreset("bitnet");
  no_scales.weight_scales = false;
  std::unique_ptr<model::Model> plain = MustLoad(no_scales);
  ASSERT_NE(plain, nullptr);
  EXPECT_FALSE(SameBits(Chunked(*m, 45, 1, kernels::KvType::kF32), Chunked(*plain, 45, 1, kernels::KvType::kF32)));
}

TEST_F(ArchitecturesTest, BitnetUnknownActivationRefusedByKey) {
  const std::string err =
      LoadErrorWithMetadata(ArchitecturePreset("bitnet"), "bitnet.hidden_activation", gguf::Value("relu2"));
  EXPECT_NE(err.find("metadata 'bitnet.hidden_activation' is 'relu2', expected silu"), std::string::npos) << err;
  EXPECT_EQ(LoadErrorWithMetadata(ArchitecturePreset("bitnet"), "bitnet.hidden_activation", gguf::Value("silu")), "");
}

TEST_F(ArchitecturesTest, BitnetHeadsMustSpanTheEmbedding) {
  RandomModelSpec spec = ArchitecturePreset("bitnet");
  spec.head_dim = 32;  // 4 heads * 32 = 128 != 256
  EXPECT_NE(LoadError(spec).find("bitnet: head_count * key_length is 128, expected embedding_length 256"),
            std::string::npos)
      << LoadError(spec);
}

TEST_F(ArchitecturesTest, MissingTensorsRefusedByName) {
  const std::pair<const char*, const char*> cases[] = {
      {"gemma", "blk.1.ffn_gate.weight"},
      {"gemma2", "blk.1.post_ffw_norm.weight"},
      {"gemma2", "blk.0.post_attention_norm.weight"},
      {"gemma3", "blk.4.attn_k_norm.weight"},
      {"bitnet", "blk.0.attn_sub_norm.weight"},
      {"bitnet", "blk.1.ffn_sub_norm.weight"},
  };
  for (const auto& [arch, tensor] : cases) {
    RandomModelSpec spec = ArchitecturePreset(arch);
    spec.skip_tensor = tensor;
    const std::string want = std::string("tensor '") + tensor + "' not found (architecture '" + arch + "')";
    EXPECT_NE(LoadError(spec).find(want), std::string::npos) << LoadError(spec);
  }
}

TEST_F(ArchitecturesTest, WrongShapesRefusedWithExpectedVsActual) {
  const std::tuple<const char*, const char*, const char*> cases[] = {
      {"gemma", "blk.0.attn_q.weight", "shape [64, 48], expected [64, 96]"},
      {"gemma2", "blk.1.post_attention_norm.weight", "shape [32], expected [64]"},
      {"gemma3", "blk.0.attn_q_norm.weight", "shape [8], expected [16]"},
      {"bitnet", "blk.0.ffn_sub_norm.weight", "shape [256], expected [512]"},
      {"bitnet", "blk.1.attn_v.weight", "shape [256, 64], expected [256, 128]"},
  };
  for (const auto& [arch, tensor, shapes] : cases) {
    RandomModelSpec spec = ArchitecturePreset(arch);
    spec.wrong_tensor = tensor;
    const std::string want = std::string("tensor '") + tensor + "': " + shapes;
    EXPECT_NE(LoadError(spec).find(want), std::string::npos) << LoadError(spec);
  }
}

TEST_F(ArchitecturesTest, LogitsIdenticalForChunkWidthsAndThreadCounts) {
  for (const char* arch : kNewArchitectures) {
    std::unique_ptr<model::Model> m = MustLoad(ArchitecturePreset(arch));
    ASSERT_NE(m, nullptr);
    for (kernels::KvType kv : {kernels::KvType::kF32, kernels::KvType::kF16}) {
      const std::vector<float> one = Chunked(*m, 1, 1, kv);
      ASSERT_EQ(one.size(), kIds.size() * static_cast<size_t>(m->hparams().n_vocab));
      for (size_t chunk : {size_t{1}, size_t{3}, kIds.size()}) {
        for (int threads : {1, 2}) {
          EXPECT_TRUE(SameBits(Chunked(*m, chunk, threads, kv), one))
              << arch << " chunk " << chunk << " threads " << threads;
        }
      }
    }
  }
}

TEST_F(ArchitecturesTest, TernaryWeightsRunAndStayBatchInvariant) {
  for (quant::GgmlType t : {quant::GgmlType::kTQ1_0, quant::GgmlType::kTQ2_0}) {
    RandomModelSpec spec = ArchitecturePreset("bitnet");
    spec.matrix_type = t;
    std::unique_ptr<model::Model> m = MustLoad(spec);
    ASSERT_NE(m, nullptr);
    const std::vector<float> full = Chunked(*m, kIds.size(), 2, kernels::KvType::kF32);
    for (float v : full) ASSERT_TRUE(std::isfinite(v));
    EXPECT_TRUE(SameBits(Chunked(*m, 3, 1, kernels::KvType::kF32), full));
  }
}

}  // namespace
}  // namespace trit::testing
