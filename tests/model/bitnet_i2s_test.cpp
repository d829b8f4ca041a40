// bitnet-b1.58 and I2_S weights (model/bitnet.cpp, model/tensor_binder.cpp):
// an I2_S model gives the logits of its f32 twin (the same ternary values
// and per-tensor scales), on both kernel sets and batch-invariantly; I2_S
// is refused where its scale has no place, by tensor name. The architecture
// itself (relu^2 feed-forward) is checked against the numpy forward in
// tests/python/llama_forward_test.py, and a file written by bitnet.cpp's own
// tools in tests/formats (tiny-i2_s.gguf).
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "formats/gguf/reader.h"
#include "formats/gguf/writer.h"
#include "model/architecture.h"
#include "model/chunked_logits.h"
#include "model/model.h"
#include "model/random_model.h"
#include "quant/i2s_quants.h"

namespace trit::testing {
namespace {

const std::vector<int32_t> kIds = {1, 5, 9, 33, 47, 0, 3, 17, 22, 40, 41, 2, 8, 13, 29, 31, 7, 44, 12, 19};

class BitnetI2STest : public ::testing::Test {
 protected:
  std::string Write(const RandomModelSpec& spec, const std::string& name) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("trit-bitnet-i2s-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    dir_ = dir;
    const std::string path = (dir / name).string();
    EXPECT_TRUE(WriteRandomModel(spec, path).ok());
    return path;
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  static std::unique_ptr<model::Model> MustLoad(const std::string& path, kernels::KernelSet set) {
    model::LoadOptions o;
    o.kernels = set;
    Expected<std::unique_ptr<model::Model>> m = model::LoadModel(path, o);
    EXPECT_TRUE(m.ok()) << m.status().message();
    return m.ok() ? std::move(*m) : nullptr;
  }
  static std::string LoadError(const std::string& path) {
    Expected<std::unique_ptr<model::Model>> m = model::LoadModel(path);
    return m.ok() ? std::string() : m.status().message();
  }
  // `spec` (ternary matrices) written in f32 and in I2_S: the reference
  // kernels give both the same logits, float rounding apart (t * s against
  // (x . t) * s). Returns the f32 twin's logits.
  std::vector<float> ExpectTwinsAgree(RandomModelSpec spec);
  std::filesystem::path dir_;
};

float MaxAbsDiff(const std::vector<float>& a, const std::vector<float>& b) {
  EXPECT_EQ(a.size(), b.size());
  float d = 0.0f;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) d = std::max(d, std::fabs(a[i] - b[i]));
  return d;
}

float MaxAbs(const std::vector<float>& a) {
  float m = 0.0f;
  for (float v : a) m = std::max(m, std::fabs(v));
  return m;
}

std::vector<float> BitnetI2STest::ExpectTwinsAgree(RandomModelSpec spec) {
  spec.matrix_type = quant::GgmlType::kF32;
  const std::string f32 = Write(spec, "twin-f32.gguf");
  spec.matrix_type = quant::GgmlType::kI2_S;
  const std::string i2s = Write(spec, "twin-i2s.gguf");
  std::unique_ptr<model::Model> a = MustLoad(f32, kernels::KernelSet::kReference);
  std::unique_ptr<model::Model> b = MustLoad(i2s, kernels::KernelSet::kReference);
  if (!a || !b) return {};
  EXPECT_EQ(b->hparams().architecture, spec.architecture);
  const std::vector<float> want = ChunkedLogits(*a, kIds, kIds.size(), 1, kernels::KvType::kF32);
  EXPECT_GT(MaxAbs(want), 0.5f);
  EXPECT_LT(MaxAbsDiff(want, ChunkedLogits(*b, kIds, kIds.size(), 1, kernels::KvType::kF32)), 1e-4f * MaxAbs(want));
  return want;
}

TEST_F(BitnetI2STest, I2SModelGivesItsF32TwinsLogits) {
  RandomModelSpec spec = ArchitecturePreset("bitnet-b1.58");
  const std::vector<float> want = ExpectTwinsAgree(spec);
  spec.matrix_type = quant::GgmlType::kI2_S;
  const std::string i2s = Write(spec, "i2s.gguf");

  // The optimized kernels (int8 activations against the TQ2_0 rewrite):
  // close to the reference, and the same bits for any pass width and
  // thread count.
  std::unique_ptr<model::Model> c = MustLoad(i2s, kernels::KernelSet::kOptimized);
  ASSERT_NE(c, nullptr);
  const std::vector<float> whole = ChunkedLogits(*c, kIds, kIds.size(), 1);
  EXPECT_LT(MaxAbsDiff(want, whole), 0.05f * MaxAbs(want));
  EXPECT_TRUE(SameBits(whole, ChunkedLogits(*c, kIds, 3, 2)));
  EXPECT_TRUE(SameBits(whole, ChunkedLogits(*c, kIds, 1, 1)));
}

TEST_F(BitnetI2STest, ScaleTensorMultipliesTheI2SScale) {
  // bitnet with `.scale` tensors and I2_S weights: both scales apply.
  RandomModelSpec spec = ArchitecturePreset("bitnet");
  spec.ternary_matrices = true;
  ExpectTwinsAgree(spec);
}

TEST_F(BitnetI2STest, RefusedWhereItsScaleHasNoPlace) {
  RandomModelSpec llama = ArchitecturePreset("llama");
  llama.n_embd = 256;
  llama.n_ff = 512;
  llama.ternary_matrices = true;
  llama.matrix_type = quant::GgmlType::kI2_S;
  const std::string err = LoadError(Write(llama, "llama.gguf"));
  EXPECT_NE(err.find("tensor 'blk.0.attn_q.weight': type i2_s (BitNet) is read by the bitnet architectures"),
            std::string::npos)
      << err;

  // Rows that are not whole TQ2_0 blocks.
  RandomModelSpec narrow = ArchitecturePreset("bitnet-b1.58");
  narrow.n_ff = 384;
  narrow.matrix_type = quant::GgmlType::kI2_S;
  const std::string err2 = LoadError(Write(narrow, "narrow.gguf"));
  EXPECT_NE(err2.find("tensor 'blk.0.ffn_down.weight': i2_s rows of 384 values"), std::string::npos) << err2;
}

TEST_F(BitnetI2STest, I2SEmbeddingRefusedByName) {
  // token_embd rows are looked up, never multiplied: an I2_S one would lose
  // its scale, so it is refused (bitnet.cpp keeps embeddings in f16).
  RandomModelSpec spec = ArchitecturePreset("bitnet-b1.58");
  spec.matrix_type = quant::GgmlType::kI2_S;
  Expected<gguf::File> f = gguf::File::Open(Write(spec, "i2s.gguf"));
  ASSERT_TRUE(f.ok());
  gguf::Writer w;
  for (const auto& e : f->metadata()) ASSERT_TRUE(w.SetMetadata(e.key, e.value).ok());
  for (const auto& t : f->tensors()) {
    if (t.name != "token_embd.weight") {
      ASSERT_TRUE(w.AddTensorData(t.name, t.type->type, t.shape, f->TensorData(t)).ok());
      continue;
    }
    std::vector<float> x(static_cast<size_t>(t.n_elements));
    for (size_t i = 0; i < x.size(); ++i) x[i] = i % 3 == 0 ? 0.5f : (i % 3 == 1 ? -0.5f : 0.0f);
    std::vector<uint8_t> bytes(quant::I2SBytes(t.n_elements));
    ASSERT_TRUE(quant::QuantizeI2S(x.data(), t.n_elements, 1.0f, bytes).ok());
    ASSERT_TRUE(w.AddTensorData(t.name, quant::GgmlType::kI2_S, t.shape, bytes).ok());
  }
  const std::string edited = (dir_ / "edited.gguf").string();
  ASSERT_TRUE(w.WriteFile(edited).ok());
  const std::string err = LoadError(edited);
  EXPECT_NE(err.find("tensor 'token_embd.weight': type i2_s keeps one scale for the whole tensor, and "
                     "architecture 'bitnet-b1.58' has no per-tensor scale for this weight"),
            std::string::npos)
      << err;
}

}  // namespace
}  // namespace trit::testing
