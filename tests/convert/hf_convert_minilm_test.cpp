// `trit convert` on the real sentence-transformers/all-MiniLM-L6-v2 (not
// committed; built only when CMake is configured with TRIT_HF_MINILM_DIR,
// e.g. scripts/fetch_minilm.sh's folder). The file is read back with trit's
// GGUF reader and its tokenizer is loaded from it. The expected numbers are
// the checkpoint's own: 104 safetensors tensors, of which llama.cpp's
// converter drops 3 (embeddings.position_ids, pooler.dense.weight/bias).
// The bf16 and q8_0 files' bytes are checked against gguf-py's own
// quantizers by tests/python/hf_convert_crosscheck_test.py; here their
// values against the checkpoint's.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "convert/hf_to_gguf.h"
#include "formats/gguf/reader.h"
#include "formats/safetensors/safetensors_index.h"
#include "quant/types.h"
#include "tokenizer/tokenizer.h"

namespace trit::convert {
namespace {

std::string TempPath(const char* tag) {
  return ::testing::TempDir() + "minilm_" + tag + "_" + std::to_string(getpid()) + ".gguf";
}

TEST(HfConvertMiniLmTest, F16FileHasLlamaCppsLayoutAndTokenizes) {
  const std::string out = TempPath("f16");
  Expected<HfConvertReport> report = ConvertHfToGguf(TRIT_HF_MINILM_DIR, out, {});
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->dropped.size(), 3u);
  Expected<gguf::File> f = gguf::File::Open(out);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->tensors().size(), 101u);  // 5 embedding tensors + 6 layers x 16
  size_t n_f16 = 0;
  for (const gguf::TensorInfo& t : f->tensors()) n_f16 += t.type->type == quant::GgmlType::kF16;
  EXPECT_EQ(n_f16, 37u);  // token_embd + 6 layers x 6 matrices
  const gguf::TensorInfo* embd = f->FindTensor("token_embd.weight");
  ASSERT_NE(embd, nullptr);
  EXPECT_EQ(embd->shape, (std::vector<int64_t>{384, 30522}));
  EXPECT_EQ(f->FindTensor("blk.5.ffn_up.weight")->shape, (std::vector<int64_t>{384, 1536}));
  EXPECT_EQ(f->FindTensor("blk.5.ffn_down.weight")->shape, (std::vector<int64_t>{1536, 384}));
  EXPECT_EQ(f->FindTensor("position_embd.weight")->type->type, quant::GgmlType::kF32);
  EXPECT_EQ(f->FindTensor("position_embd.weight")->shape, (std::vector<int64_t>{384, 512}));
  EXPECT_EQ(f->FindTensor("token_types.weight")->shape, (std::vector<int64_t>{384, 2}));

  EXPECT_EQ(*f->GetString("general.architecture"), "bert");
  EXPECT_EQ(*f->GetUint("bert.block_count"), 6u);
  EXPECT_EQ(*f->GetUint("bert.context_length"), 512u);
  EXPECT_EQ(*f->GetUint("bert.embedding_length"), 384u);
  EXPECT_EQ(*f->GetUint("bert.feed_forward_length"), 1536u);
  EXPECT_EQ(*f->GetUint("bert.attention.head_count"), 12u);
  EXPECT_FLOAT_EQ(*f->GetFloat("bert.attention.layer_norm_epsilon"), 1e-12f);
  EXPECT_FALSE(*f->GetBool("bert.attention.causal"));
  EXPECT_EQ(*f->GetUint("bert.pooling_type"), 1u);  // mean, from 1_Pooling/config.json
  EXPECT_EQ(*f->GetUint("tokenizer.ggml.token_type_count"), 2u);
  EXPECT_EQ(*f->GetUint("general.file_type"), 1u);

  Expected<std::unique_ptr<tokenizer::Tokenizer>> tok = tokenizer::Tokenizer::FromGgufPath(out);
  std::remove(out.c_str());
  ASSERT_TRUE(tok.ok()) << tok.status().message();
  EXPECT_EQ((*tok)->Encode("Hello, WORLD!", {.add_special = true, .parse_special = false}),
            (std::vector<tokenizer::TokenId>{101, 7592, 1010, 2088, 999, 102}));
}

TEST(HfConvertMiniLmTest, F32FileHoldsTheCheckpointsBytes) {
  const std::string out = TempPath("f32");
  HfConvertOptions options;
  options.type = quant::GgmlType::kF32;
  Expected<HfConvertReport> report = ConvertHfToGguf(TRIT_HF_MINILM_DIR, out, options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  Expected<gguf::File> f = gguf::File::Open(out);
  Expected<safetensors::Checkpoint> ckpt = safetensors::OpenCheckpoint(TRIT_HF_MINILM_DIR);
  std::remove(out.c_str());
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_TRUE(ckpt.ok()) << ckpt.status().message();
  EXPECT_EQ(*f->GetUint("general.file_type"), 0u);
  for (const HfConvertedTensor& t : report->tensors) {
    const gguf::TensorInfo* info = f->FindTensor(t.gguf_name);
    ASSERT_NE(info, nullptr) << t.gguf_name;
    std::span<const uint8_t> got = f->TensorData(*info);
    std::span<const uint8_t> want = ckpt->Find(t.hf_name)->Data();
    ASSERT_TRUE(std::equal(got.begin(), got.end(), want.begin(), want.end())) << t.gguf_name;
  }
}

// The checkpoint's values of `hf_name` (F32 in all-MiniLM-L6-v2).
std::vector<float> CheckpointFloats(const safetensors::Checkpoint& ckpt, const std::string& hf_name) {
  std::span<const uint8_t> bytes = ckpt.Find(hf_name)->Data();
  std::vector<float> v(bytes.size() / 4);
  std::memcpy(v.data(), bytes.data(), bytes.size());
  return v;
}

// bf16 and q8_0: 37 matrices of the requested type (every row is 384 or 1536
// values, whole q8_0 blocks, so nothing falls back), the other 64 float32;
// the file reads back, its tokenizer loads, and every matrix dequantizes to
// the checkpoint's values within the type's step.
TEST(HfConvertMiniLmTest, Bf16AndQ8_0FilesHaveTheConvertersTypesAndValues) {
  Expected<safetensors::Checkpoint> ckpt = safetensors::OpenCheckpoint(TRIT_HF_MINILM_DIR);
  ASSERT_TRUE(ckpt.ok()) << ckpt.status().message();
  for (const quant::GgmlType type : {quant::GgmlType::kBF16, quant::GgmlType::kQ8_0}) {
    const quant::TypeInfo& info = quant::GetType(type);
    SCOPED_TRACE(std::string(info.name));
    const std::string out = TempPath(std::string(info.name).c_str());
    HfConvertOptions options;
    options.type = type;
    Expected<HfConvertReport> report = ConvertHfToGguf(TRIT_HF_MINILM_DIR, out, options);
    ASSERT_TRUE(report.ok()) << report.status().message();
    Expected<gguf::File> f = gguf::File::Open(out);
    ASSERT_TRUE(f.ok()) << f.status().message();
    EXPECT_EQ(*f->GetUint("general.file_type"), type == quant::GgmlType::kBF16 ? 32u : 7u);
    ASSERT_EQ(f->tensors().size(), 101u);
    size_t n_requested = 0;
    size_t n_f32 = 0;
    for (const HfConvertedTensor& t : report->tensors) {
      const gguf::TensorInfo* g = f->FindTensor(t.gguf_name);
      ASSERT_NE(g, nullptr) << t.gguf_name;
      EXPECT_EQ(g->type->type, t.to) << t.gguf_name;
      n_requested += t.to == type;
      n_f32 += t.to == quant::GgmlType::kF32;
      if (t.to != type) continue;
      EXPECT_EQ(t.gguf_shape.size(), 2u) << t.gguf_name;
      const std::vector<float> want = CheckpointFloats(*ckpt, t.hf_name);
      std::span<const uint8_t> bytes = f->TensorData(*g);
      ASSERT_EQ(bytes.size(), want.size() / info.block_size * info.type_size) << t.gguf_name;
      std::vector<float> got(want.size());
      info.dequantize(bytes.data(), got.data(), static_cast<int64_t>(got.size()));
      for (size_t b = 0; b < want.size(); b += 32) {
        float amax = 0;
        for (size_t i = b; i < b + 32; ++i) amax = std::max(amax, std::fabs(want[i]));
        for (size_t i = b; i < b + 32; ++i) {
          // bf16: half a unit of its 8-bit significand; q8_0: half the step amax / 127, plus the f16 scale's rounding.
          const float tolerance = type == quant::GgmlType::kBF16 ? std::fabs(want[i]) / 256 : amax / 127 * 0.6f;
          ASSERT_NEAR(got[i], want[i], tolerance) << t.gguf_name << " element " << i;
        }
      }
    }
    EXPECT_EQ(n_requested, 37u);  // token_embd + 6 layers x 6 matrices
    EXPECT_EQ(n_f32, 64u);
    const gguf::TensorInfo* embd = f->FindTensor("token_embd.weight");
    EXPECT_EQ(embd->shape, (std::vector<int64_t>{384, 30522}));
    EXPECT_EQ(f->FindTensor("position_embd.weight")->type->type, quant::GgmlType::kF32);
    Expected<std::unique_ptr<tokenizer::Tokenizer>> tok = tokenizer::Tokenizer::FromGgufPath(out);
    std::remove(out.c_str());
    ASSERT_TRUE(tok.ok()) << tok.status().message();
    EXPECT_EQ((*tok)->Encode("Hello, WORLD!", {.add_special = true, .parse_special = false}),
              (std::vector<tokenizer::TokenId>{101, 7592, 1010, 2088, 999, 102}));
  }
}

}  // namespace
}  // namespace trit::convert
