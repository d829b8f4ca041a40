// `trit quantize` to and from I2_S (convert/quantize_file.cpp): i2_s ->
// tq2_0 / tq1_0 -> i2_s gives every tensor's bytes back, the scale riding in
// a `.scale` tensor between; ternary f32 weights quantize to exactly the
// I2_S bytes of the same values; anything else is refused by tensor name.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "convert/quantize_file.h"
#include "formats/gguf/reader.h"
#include "model/random_model.h"
#include "quant/i2s_quants.h"

namespace trit::convert {
namespace {

class QuantizeI2STest : public ::testing::Test {
 protected:
  std::string Path(const std::string& name) {
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("trit-quantize-i2s-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    dir_ = dir;
    return (dir / name).string();
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  std::string Model(quant::GgmlType type, const std::string& name, const std::string& arch = "bitnet-b1.58") {
    testing::RandomModelSpec spec = testing::ArchitecturePreset(arch);
    spec.ternary_matrices = true;
    spec.matrix_type = type;
    const std::string path = Path(name);
    EXPECT_TRUE(testing::WriteRandomModel(spec, path).ok());
    return path;
  }
  static gguf::File Open(const std::string& path) {
    Expected<gguf::File> f = gguf::File::Open(path);
    EXPECT_TRUE(f.ok()) << f.status().message();
    return std::move(*f);
  }
  static Status Quantize(const std::string& in, const std::string& out, quant::GgmlType to) {
    gguf::File f = Open(in);
    Expected<std::vector<TensorPlan>> plans = QuantizeFile(f, quant::GetType(to), out, {});
    return plans.ok() ? Status::Ok() : plans.status();
  }
  std::filesystem::path dir_;
};

std::vector<uint8_t> Bytes(const gguf::File& f, const gguf::TensorInfo& t) {
  const std::span<const uint8_t> d = f.TensorData(t);
  return {d.begin(), d.end()};
}

// Every tensor of a and b: the same names in the same order, and the same
// type and bytes (only for a's I2_S tensors when `i2s_only`).
void ExpectSameTensors(const std::string& a_path, const std::string& b_path, bool i2s_only = false) {
  Expected<gguf::File> a = gguf::File::Open(a_path);
  Expected<gguf::File> b = gguf::File::Open(b_path);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_EQ(a->tensors().size(), b->tensors().size());
  for (size_t i = 0; i < a->tensors().size(); ++i) {
    const gguf::TensorInfo& ta = a->tensors()[i];
    const gguf::TensorInfo& tb = b->tensors()[i];
    SCOPED_TRACE(ta.name);
    EXPECT_EQ(ta.name, tb.name);
    if (i2s_only && ta.type->type != quant::GgmlType::kI2_S) continue;
    EXPECT_EQ(ta.type, tb.type);
    EXPECT_EQ(Bytes(*a, ta), Bytes(*b, tb));
  }
}

TEST_F(QuantizeI2STest, RoundTripsThroughTernaryTypesByteForByte) {
  const std::string i2s = Model(quant::GgmlType::kI2_S, "i2s.gguf");
  for (quant::GgmlType via : {quant::GgmlType::kTQ2_0, quant::GgmlType::kTQ1_0}) {
    const std::string mid = Path("mid.gguf"), back = Path("back.gguf");
    ASSERT_TRUE(Quantize(i2s, mid, via).ok());
    {
      // The ternary file: d = 1 blocks, each weight's scale in its `.scale` tensor.
      gguf::File m = Open(mid);
      gguf::File src = Open(i2s);
      const gguf::TensorInfo* w = m.FindTensor("blk.0.attn_q.weight");
      const gguf::TensorInfo* sc = m.FindTensor("blk.0.attn_q.scale");
      ASSERT_TRUE(w != nullptr && sc != nullptr);
      EXPECT_EQ(w->type->type, via);
      float v;
      std::memcpy(&v, m.TensorData(*sc).data(), sizeof v);
      EXPECT_EQ(v, quant::I2SScale(src.TensorData(*src.FindTensor("blk.0.attn_q.weight"))));
      // The embeddings are kept as they were: the same model.
      EXPECT_EQ(m.FindTensor("token_embd.weight")->type->type, quant::GgmlType::kF32);
    }
    ASSERT_TRUE(Quantize(mid, back, quant::GgmlType::kI2_S).ok());
    ExpectSameTensors(i2s, back);
  }
}

TEST_F(QuantizeI2STest, TernaryFloatsGiveTheSameI2SBytes) {
  const std::string f32 = Model(quant::GgmlType::kF32, "f32.gguf");
  const std::string want = Model(quant::GgmlType::kI2_S, "i2s.gguf");
  const std::string got = Path("got.gguf");
  ASSERT_TRUE(Quantize(f32, got, quant::GgmlType::kI2_S).ok());
  ExpectSameTensors(want, got);
}

TEST_F(QuantizeI2STest, ScaleTensorsFoldIntoTheI2SScale) {
  // bitnet with `.scale` tensors: to i2_s they are folded in and dropped; back
  // to tq2_0 they return (as the product).
  const std::string f32 = Model(quant::GgmlType::kF32, "f32.gguf", "bitnet");
  const std::string i2s = Path("i2s.gguf");
  ASSERT_TRUE(Quantize(f32, i2s, quant::GgmlType::kI2_S).ok());
  gguf::File src = Open(f32);
  gguf::File q = Open(i2s);
  EXPECT_EQ(q.FindTensor("blk.0.attn_q.scale"), nullptr);
  float own, inner;
  std::memcpy(&own, src.TensorData(*src.FindTensor("blk.0.attn_q.scale")).data(), sizeof own);
  const gguf::TensorInfo& w = *src.FindTensor("blk.0.attn_q.weight");
  float first = 0.0f;
  for (int64_t i = 0; i < w.n_elements && first == 0.0f; ++i) {
    std::memcpy(&inner, src.TensorData(w).data() + i * 4, sizeof inner);
    first = std::fabs(inner);
  }
  EXPECT_FLOAT_EQ(quant::I2SScale(q.TensorData(*q.FindTensor("blk.0.attn_q.weight"))), first * own);
}

TEST_F(QuantizeI2STest, NonTernaryWeightsRefusedByName) {
  testing::RandomModelSpec spec = testing::ArchitecturePreset("bitnet-b1.58");
  spec.ternary_matrices = false;  // normal random f32 matrices
  const std::string f32 = Path("f32.gguf");
  ASSERT_TRUE(testing::WriteRandomModel(spec, f32).ok());
  const Status s = Quantize(f32, Path("out.gguf"), quant::GgmlType::kI2_S);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("tensor 'blk.0.attn_q.weight': value"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("I2_S holds one scale per tensor"), std::string::npos) << s.message();
  EXPECT_FALSE(std::filesystem::exists(Path("out.gguf")));
}

}  // namespace
}  // namespace trit::convert
