// `trit convert` on a tiny BERT written here (src/convert/hf_to_gguf.*,
// hf_bert.*): 1 layer, hidden 4, 2 heads, ffn 8, 11 tokens (hidden 32 and ffn
// 48 where q8_0 needs rows of whole blocks). The GGUF file is
// read back with trit's reader: names, GGUF shapes, types, bytes and keys;
// and every refusal by its message, with nothing left at the output path.
#include "convert/hf_to_gguf.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

#include "base/half.h"
#include "formats/gguf/reader.h"
#include "formats/safetensors/safetensors_index.h"
#include "formats/safetensors/safetensors_test_util.h"

namespace trit::convert {
namespace {

using safetensors::testing::ScratchDir;
using safetensors::testing::TestTensor;
using safetensors::testing::WriteBytes;
using safetensors::testing::WriteSafetensors;
using safetensors::testing::WriteText;

// config.json of a 1-layer BERT of `hidden` values per token and `ffn` in the feed-forward layer.
std::string Config(int64_t hidden = 4, int64_t ffn = 8) {
  return fmt::format(R"({{"architectures": ["BertModel"], "model_type": "bert",
  "hidden_size": {}, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": {},
  "max_position_embeddings": 6, "type_vocab_size": 2, "vocab_size": 11, "layer_norm_eps": 1e-12,
  "hidden_act": "gelu"}})",
                     hidden, ffn);
}

// ids: 0 [PAD] 1 [UNK] 2 [CLS] 3 [SEP] 4 [MASK] 5 hello 6 world 7 ##s 8 play 9 ##ing 10 !
constexpr std::string_view kTokenizer = R"({"version": "1.0",
  "added_tokens": [
    {"id": 0, "content": "[PAD]", "special": true, "normalized": false},
    {"id": 1, "content": "[UNK]", "special": true, "normalized": false},
    {"id": 2, "content": "[CLS]", "special": true, "normalized": false},
    {"id": 3, "content": "[SEP]", "special": true, "normalized": false},
    {"id": 4, "content": "[MASK]", "special": true, "normalized": false}],
  "normalizer": {"type": "BertNormalizer", "lowercase": true},
  "pre_tokenizer": {"type": "BertPreTokenizer"},
  "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
    "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "[MASK]": 4, "hello": 5, "world": 6,
              "##s": 7, "play": 8, "##ing": 9, "!": 10}}})";

constexpr std::string_view kTokenizerConfig =
    R"({"do_lower_case": true, "unk_token": "[UNK]", "sep_token": "[SEP]", "pad_token": "[PAD]",
        "cls_token": "[CLS]", "mask_token": "[MASK]"})";

// n float32 values, distinct per tensor (seed) and exact in float16.
std::vector<uint8_t> Floats(size_t n, int seed) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<float>(seed) + static_cast<float>(i) * 0.125f;
  std::vector<uint8_t> out(n * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

TestTensor F32(std::string name, std::vector<int64_t> shape, int seed) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  return {std::move(name), "F32", std::move(shape), Floats(n, seed)};
}

// The checkpoint: every tensor of a 1-layer BERT (as Config), plus the three
// that llama.cpp's converter drops (position_ids, pooler.dense.*).
std::vector<TestTensor> TinyBert(std::string_view prefix = "", int64_t hidden = 4, int64_t ffn = 8) {
  const std::string p(prefix);
  const int64_t h = hidden;
  std::vector<TestTensor> t = {
      F32(p + "embeddings.word_embeddings.weight", {11, h}, 1),
      F32(p + "embeddings.position_embeddings.weight", {6, h}, 2),
      F32(p + "embeddings.token_type_embeddings.weight", {2, h}, 3),
      F32(p + "embeddings.LayerNorm.weight", {h}, 4),
      F32(p + "embeddings.LayerNorm.bias", {h}, 5),
      F32(p + "pooler.dense.weight", {h, h}, 6),
      F32(p + "pooler.dense.bias", {h}, 7),
      {p + "embeddings.position_ids", "I64", {1, 6}, std::vector<uint8_t>(48, 0)},
  };
  const std::pair<const char*, std::vector<int64_t>> layer[] = {
      {"attention.self.query", {h, h}},   {"attention.self.key", {h, h}}, {"attention.self.value", {h, h}},
      {"attention.output.dense", {h, h}}, {"attention.output.LayerNorm", {h}},
      {"intermediate.dense", {ffn, h}},   {"output.dense", {h, ffn}},     {"output.LayerNorm", {h}},
  };
  int seed = 10;
  for (const auto& [name, shape] : layer) {
    t.push_back(F32(p + "encoder.layer.0." + name + ".weight", shape, seed++));
    t.push_back(F32(p + "encoder.layer.0." + name + ".bias", {shape[0]}, seed++));
  }
  return t;
}

class HfToGgufTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    WriteText(dir_.File("config.json"), Config());
    WriteText(dir_.File("tokenizer.json"), kTokenizer);
    WriteText(dir_.File("tokenizer_config.json"), kTokenizerConfig);
    WriteText(dir_.File("modules.json"),
              R"([{"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}])");
    std::filesystem::create_directory(dir_.File("1_Pooling"));
    WriteText(dir_.File("1_Pooling/config.json"), R"({"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false})");
    WriteBytes(dir_.File("model.safetensors"), WriteSafetensors(TinyBert()));
  }

  std::string Out() const { return out_.File("out.gguf"); }

  // The message of a conversion that must fail, after checking that it left no file.
  std::string FailureOf() {
    Expected<HfConvertReport> r = ConvertHfToGguf(dir_.dir(), Out(), {});
    EXPECT_FALSE(r.ok());
    EXPECT_FALSE(std::filesystem::exists(Out()));
    return r.ok() ? std::string("(converted)") : r.status().message();
  }

  ScratchDir dir_;
  ScratchDir out_;
};

TEST_F(HfToGgufTest, WritesLlamaCppsNamesShapesTypesAndKeys) {
  std::vector<std::string> progress;
  HfConvertOptions options;
  options.type = quant::GgmlType::kF16;
  options.on_tensor = [&](size_t i, size_t n, const HfConvertedTensor& t) {
    progress.push_back(std::to_string(i) + "/" + std::to_string(n) + " " + t.gguf_name);
  };
  Expected<HfConvertReport> report = ConvertHfToGguf(dir_.dir(), Out(), options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->hf_architecture, "BertModel");
  EXPECT_EQ(report->gguf_arch, "bert");
  EXPECT_EQ(report->dropped.size(), 3u);
  ASSERT_EQ(progress.size(), 21u);
  EXPECT_EQ(progress.front(), "0/21 token_embd.weight");
  EXPECT_EQ(progress.back(), "20/21 blk.0.layer_output_norm.bias");

  Expected<gguf::File> f = gguf::File::Open(Out());
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_EQ(f->tensors().size(), 21u);  // 5 embedding tensors + 16 per layer
  struct Want {
    const char* name;
    quant::GgmlType type;
    std::vector<int64_t> shape;
  };
  using quant::GgmlType;
  const Want want[] = {
      {"token_embd.weight", GgmlType::kF16, {4, 11}},
      {"token_types.weight", GgmlType::kF32, {4, 2}},
      {"position_embd.weight", GgmlType::kF32, {4, 6}},
      {"token_embd_norm.weight", GgmlType::kF32, {4}},
      {"token_embd_norm.bias", GgmlType::kF32, {4}},
      {"blk.0.attn_q.weight", GgmlType::kF16, {4, 4}},
      {"blk.0.attn_q.bias", GgmlType::kF32, {4}},
      {"blk.0.attn_k.weight", GgmlType::kF16, {4, 4}},
      {"blk.0.attn_v.weight", GgmlType::kF16, {4, 4}},
      {"blk.0.attn_output.weight", GgmlType::kF16, {4, 4}},
      {"blk.0.attn_output_norm.weight", GgmlType::kF32, {4}},
      {"blk.0.attn_output_norm.bias", GgmlType::kF32, {4}},
      {"blk.0.ffn_up.weight", GgmlType::kF16, {4, 8}},
      {"blk.0.ffn_up.bias", GgmlType::kF32, {8}},
      {"blk.0.ffn_down.weight", GgmlType::kF16, {8, 4}},
      {"blk.0.ffn_down.bias", GgmlType::kF32, {4}},
      {"blk.0.layer_output_norm.weight", GgmlType::kF32, {4}},
      {"blk.0.layer_output_norm.bias", GgmlType::kF32, {4}},
  };
  for (const Want& w : want) {
    const gguf::TensorInfo* t = f->FindTensor(w.name);
    ASSERT_NE(t, nullptr) << w.name;
    EXPECT_EQ(t->type->type, w.type) << w.name;
    EXPECT_EQ(t->shape, w.shape) << w.name;
  }
  // ffn_up: numpy [8, 4] row-major is GGUF ne [4, 8]; its bytes are the source's, as halves.
  const gguf::TensorInfo* up = f->FindTensor("blk.0.ffn_up.weight");
  std::span<const uint8_t> up_bytes = f->TensorData(*up);
  ASSERT_EQ(up_bytes.size(), 64u);
  for (size_t i = 0; i < 32; ++i) {
    uint16_t h;
    std::memcpy(&h, up_bytes.data() + 2 * i, 2);
    ASSERT_EQ(HalfToFloat(h), 20.0f + static_cast<float>(i) * 0.125f) << i;  // intermediate.dense.weight has seed 20
  }
  // position_embd stays float32, bytes as in the checkpoint.
  const gguf::TensorInfo* pos = f->FindTensor("position_embd.weight");
  const std::vector<uint8_t> pos_src = Floats(24, 2);
  std::span<const uint8_t> pos_bytes = f->TensorData(*pos);
  EXPECT_TRUE(std::equal(pos_bytes.begin(), pos_bytes.end(), pos_src.begin(), pos_src.end()));

  EXPECT_EQ(*f->GetString("general.architecture"), "bert");
  EXPECT_EQ(*f->GetString("general.type"), "model");
  EXPECT_EQ(*f->GetString("general.name"), std::filesystem::path(dir_.dir()).filename().string());
  EXPECT_EQ(*f->GetUint("general.file_type"), 1u);
  EXPECT_EQ(*f->GetUint("general.quantization_version"), 2u);
  EXPECT_EQ(*f->GetUint("bert.block_count"), 1u);
  EXPECT_EQ(*f->GetUint("bert.context_length"), 6u);
  EXPECT_EQ(*f->GetUint("bert.embedding_length"), 4u);
  EXPECT_EQ(*f->GetUint("bert.feed_forward_length"), 8u);
  EXPECT_EQ(*f->GetUint("bert.attention.head_count"), 2u);
  EXPECT_FLOAT_EQ(*f->GetFloat("bert.attention.layer_norm_epsilon"), 1e-12f);
  EXPECT_FALSE(*f->GetBool("bert.attention.causal"));
  EXPECT_EQ(*f->GetUint("bert.pooling_type"), 2u);  // cls
  EXPECT_EQ(*f->GetUint("tokenizer.ggml.token_type_count"), 2u);
  EXPECT_EQ(*f->GetString("tokenizer.ggml.model"), "bert");
  EXPECT_EQ(*f->GetUint("tokenizer.ggml.cls_token_id"), 2u);
  // Exact value types as gguf-py writes them.
  EXPECT_EQ(f->Find("bert.block_count")->type(), gguf::ValueType::kUint32);
  EXPECT_EQ(f->Find("bert.attention.layer_norm_epsilon")->type(), gguf::ValueType::kFloat32);
  EXPECT_EQ(f->Find("bert.pooling_type")->type(), gguf::ValueType::kUint32);
}

TEST_F(HfToGgufTest, F32KeepsEveryByteAndBertPrefixAndGammaBetaAreRead) {
  // A BertForMaskedLM-style checkpoint: "bert." prefixes, TF-era gamma/beta, the MLM head.
  std::vector<TestTensor> t = TinyBert("bert.");
  for (TestTensor& x : t) {
    if (x.name == "bert.embeddings.LayerNorm.weight") x.name = "bert.embeddings.LayerNorm.gamma";
    if (x.name == "bert.embeddings.LayerNorm.bias") x.name = "bert.embeddings.LayerNorm.beta";
  }
  t.push_back(F32("cls.predictions.bias", {11}, 99));
  WriteBytes(dir_.File("model.safetensors"), WriteSafetensors(t));
  HfConvertOptions options;
  options.type = quant::GgmlType::kF32;
  Expected<HfConvertReport> report = ConvertHfToGguf(dir_.dir(), Out(), options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->dropped.size(), 4u);
  Expected<gguf::File> f = gguf::File::Open(Out());
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(*f->GetUint("general.file_type"), 0u);
  for (const gguf::TensorInfo& info : f->tensors()) EXPECT_EQ(info.type->type, quant::GgmlType::kF32) << info.name;
  const std::vector<uint8_t> src = Floats(44, 1);
  std::span<const uint8_t> got = f->TensorData(*f->FindTensor("token_embd.weight"));
  EXPECT_TRUE(std::equal(got.begin(), got.end(), src.begin(), src.end()));
  const std::vector<uint8_t> gamma = Floats(4, 4);
  got = f->TensorData(*f->FindTensor("token_embd_norm.weight"));
  EXPECT_TRUE(std::equal(got.begin(), got.end(), gamma.begin(), gamma.end()));
}

TEST_F(HfToGgufTest, Bf16MatricesHoldTheTopHalvesAndTheFileTypeIsBf16s) {
  HfConvertOptions options;
  options.type = quant::GgmlType::kBF16;
  Expected<HfConvertReport> report = ConvertHfToGguf(dir_.dir(), Out(), options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  Expected<gguf::File> f = gguf::File::Open(Out());
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(*f->GetUint("general.file_type"), 32u);  // llama.cpp's MOSTLY_BF16
  size_t n_bf16 = 0;
  for (const gguf::TensorInfo& t : f->tensors()) {
    const bool matrix = t.shape.size() == 2 && t.name != "position_embd.weight" && t.name != "token_types.weight";
    EXPECT_EQ(t.type->type, matrix ? quant::GgmlType::kBF16 : quant::GgmlType::kF32) << t.name;
    n_bf16 += t.type->type == quant::GgmlType::kBF16;
  }
  EXPECT_EQ(n_bf16, 7u);  // token_embd + q, k, v, output, up, down
  // The test values (seed + i/8) need 8 significant bits at most: bf16 holds them exactly.
  std::span<const uint8_t> up = f->TensorData(*f->FindTensor("blk.0.ffn_up.weight"));
  ASSERT_EQ(up.size(), 64u);
  for (size_t i = 0; i < 32; ++i) {
    uint16_t b;
    std::memcpy(&b, up.data() + 2 * i, 2);
    ASSERT_EQ(Bf16ToFloat(b), 20.0f + static_cast<float>(i) * 0.125f) << i;
  }
}

TEST_F(HfToGgufTest, Q8_0OfRowsShorterThanABlockIsF16) {
  // Every row of the hidden-4 BERT is 4 or 8 values, no whole 32-value block.
  HfConvertOptions options;
  options.type = quant::GgmlType::kQ8_0;
  Expected<HfConvertReport> report = ConvertHfToGguf(dir_.dir(), Out(), options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  Expected<gguf::File> f = gguf::File::Open(Out());
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(*f->GetUint("general.file_type"), 7u);  // MOSTLY_Q8_0, whatever the fallbacks
  for (const HfConvertedTensor& t : report->tensors) {
    EXPECT_NE(t.to, quant::GgmlType::kQ8_0) << t.gguf_name;
    EXPECT_EQ(f->FindTensor(t.gguf_name)->type->type, t.to) << t.gguf_name;
  }
  EXPECT_EQ(f->FindTensor("blk.0.ffn_down.weight")->type->type, quant::GgmlType::kF16);
  EXPECT_EQ(f->FindTensor("token_embd.weight")->type->type, quant::GgmlType::kF16);
}

TEST_F(HfToGgufTest, Q8_0QuantizesWholeRowsAndFallsBackOnTheOthers) {
  // Hidden 32: rows of q, k, v, output, up and token_embd are one block;
  // ffn_down's rows are 48 values (a block and a half): f16.
  WriteText(dir_.File("config.json"), Config(32, 48));
  WriteBytes(dir_.File("model.safetensors"), WriteSafetensors(TinyBert("", 32, 48)));
  HfConvertOptions options;
  options.type = quant::GgmlType::kQ8_0;
  Expected<HfConvertReport> report = ConvertHfToGguf(dir_.dir(), Out(), options);
  ASSERT_TRUE(report.ok()) << report.status().message();
  Expected<gguf::File> f = gguf::File::Open(Out());
  ASSERT_TRUE(f.ok()) << f.status().message();
  using quant::GgmlType;
  for (const char* name : {"token_embd.weight", "blk.0.attn_q.weight", "blk.0.attn_k.weight", "blk.0.attn_v.weight",
                           "blk.0.attn_output.weight", "blk.0.ffn_up.weight"}) {
    EXPECT_EQ(f->FindTensor(name)->type->type, GgmlType::kQ8_0) << name;
  }
  const gguf::TensorInfo* down = f->FindTensor("blk.0.ffn_down.weight");
  EXPECT_EQ(down->type->type, GgmlType::kF16);
  EXPECT_EQ(down->shape, (std::vector<int64_t>{48, 32}));
  EXPECT_EQ(f->FindTensor("position_embd.weight")->type->type, GgmlType::kF32);
  EXPECT_EQ(f->FindTensor("blk.0.attn_q.bias")->type->type, GgmlType::kF32);
  // ffn_up, ne [32, 48]: 48 rows of one block each, and the values read back
  // within q8_0's step (half the scale amax / 127, and the scale's f16 rounding).
  const gguf::TensorInfo* up = f->FindTensor("blk.0.ffn_up.weight");
  std::span<const uint8_t> bytes = f->TensorData(*up);
  ASSERT_EQ(bytes.size(), 48u * 34u);
  std::vector<float> values(48 * 32);
  up->type->dequantize(bytes.data(), values.data(), static_cast<int64_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) {
    const float want = 20.0f + static_cast<float>(i) * 0.125f;
    const float amax = 20.0f + static_cast<float>(i / 32 * 32 + 31) * 0.125f;
    ASSERT_NEAR(values[i], want, amax / 127 * 0.6f) << i;
  }
}

TEST_F(HfToGgufTest, Q8_0RefusesAnInfinityNamingTheTensor) {
  WriteText(dir_.File("config.json"), Config(32, 48));
  std::vector<TestTensor> t = TinyBert("", 32, 48);
  for (TestTensor& x : t) {
    if (x.name != "encoder.layer.0.attention.self.key.weight") continue;
    const float inf = std::numeric_limits<float>::infinity();
    std::memcpy(x.data.data() + 5 * 4, &inf, 4);
  }
  WriteBytes(dir_.File("model.safetensors"), WriteSafetensors(t));
  HfConvertOptions options;
  options.type = quant::GgmlType::kQ8_0;
  Expected<HfConvertReport> report = ConvertHfToGguf(dir_.dir(), Out(), options);
  ASSERT_FALSE(report.ok());
  EXPECT_FALSE(std::filesystem::exists(Out()));
  EXPECT_EQ(report.status().message(),
            Out() + ": tensor 'blk.0.attn_k.weight': from 'encoder.layer.0.attention.self.key.weight': element 5 is "
                    "inf: q8_0 cannot hold it; convert with --type f16, bf16 or f32");
  options.type = quant::GgmlType::kBF16;  // which bf16 holds
  EXPECT_TRUE(ConvertHfToGguf(dir_.dir(), Out(), options).ok());
}

TEST_F(HfToGgufTest, RefusesOutputTypesOtherThanTheFour) {
  HfConvertOptions options;
  options.type = quant::GgmlType::kQ4_0;
  Expected<HfConvertReport> report = ConvertHfToGguf(dir_.dir(), Out(), options);
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(report.status().message(),
            "output type q4_0: trit convert writes f32, f16, bf16 or q8_0 (and i2_s, tq2_0, tq1_0 for BitNet "
            "checkpoints)");
  EXPECT_FALSE(std::filesystem::exists(Out()));
}

TEST_F(HfToGgufTest, RefusesAnUnmappedTensorByName) {
  std::vector<TestTensor> t = TinyBert();
  t.push_back(F32("encoder.layer.0.attention.self.rotary.weight", {4}, 50));
  WriteBytes(dir_.File("model.safetensors"), WriteSafetensors(t));
  EXPECT_EQ(FailureOf(),
            "tensor 'encoder.layer.0.attention.self.rotary.weight': no GGUF name for it in architecture 'bert' "
            "(neither mapped nor dropped by llama.cpp's converter); refusing rather than leaving it out");
}

TEST_F(HfToGgufTest, RefusesMissingTensorsWrongShapesAndDtypes) {
  std::vector<TestTensor> t = TinyBert();
  std::erase_if(t, [](const TestTensor& x) { return x.name.find(".key.") != std::string::npos; });
  WriteBytes(dir_.File("model.safetensors"), WriteSafetensors(t));
  EXPECT_EQ(FailureOf(),
            "the checkpoint has no tensor 'encoder.layer.0.attention.self.key.weight' (for blk.0.attn_k.weight), "
            "nor 1 other expected tensors");

  t = TinyBert();
  t[0] = F32("embeddings.word_embeddings.weight", {12, 4}, 1);
  WriteBytes(dir_.File("model.safetensors"), WriteSafetensors(t));
  EXPECT_EQ(FailureOf(),
            "tensor 'embeddings.word_embeddings.weight': shape [12, 4], but config.json implies [11, 4]");

  t = TinyBert();
  t[3] = {"embeddings.LayerNorm.weight", "F64", {4}, std::vector<uint8_t>(32, 0)};
  WriteBytes(dir_.File("model.safetensors"), WriteSafetensors(t));
  EXPECT_EQ(FailureOf(), "tensor 'embeddings.LayerNorm.weight': dtype F64; trit converts F32, F16 and BF16 weights");
}

TEST_F(HfToGgufTest, RefusesOtherArchitecturesAndMissingFiles) {
  WriteText(dir_.File("config.json"), R"({"architectures": ["MistralForCausalLM"], "model_type": "mistral"})");
  const std::string config = dir_.File("config.json");
  EXPECT_EQ(FailureOf(), config + ": architecture 'MistralForCausalLM' is not one trit converts yet; supported: "
                                  "BertModel, BertForMaskedLM, LlamaForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM, Qwen3MoeForCausalLM, "
                                  "Gemma3ForCausalLM, Qwen3_5ForCausalLM, Qwen3_5ForConditionalGeneration, "
                                  "Gemma4ForCausalLM, Gemma4ForConditionalGeneration, GptOssForCausalLM, BitNetForCausalLM, BitnetForCausalLM");
  std::filesystem::remove(config);
  EXPECT_EQ(FailureOf(), config + ": no such file; a Hugging Face model directory has a config.json");

  WriteText(config, Config());
  std::filesystem::remove(dir_.File("tokenizer.json"));
  EXPECT_EQ(FailureOf(), dir_.File("tokenizer.json") + ": no such file");
}

TEST_F(HfToGgufTest, RefusesConfigThatBertCannotRun) {
  WriteText(dir_.File("config.json"), R"({"architectures": ["BertModel"], "model_type": "bert",
    "hidden_size": 4, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 8,
    "max_position_embeddings": 6, "vocab_size": 11, "layer_norm_eps": 1e-12, "hidden_act": "gelu"})");
  EXPECT_EQ(FailureOf(), "config.json has no 'type_vocab_size'");
  WriteText(dir_.File("config.json"), R"({"architectures": ["BertModel"], "model_type": "bert",
    "hidden_size": 4, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 8, "type_vocab_size": 2,
    "max_position_embeddings": 6, "vocab_size": 11, "layer_norm_eps": 1e-12, "hidden_act": "relu"})");
  EXPECT_EQ(FailureOf(), "config.json: hidden_act 'relu': llama.cpp's BERT computes 'gelu' only");
  WriteText(dir_.File("config.json"), R"({"architectures": ["BertModel"], "model_type": "bert",
    "hidden_size": 4, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 8, "type_vocab_size": 2,
    "max_position_embeddings": 6, "vocab_size": 10, "layer_norm_eps": 1e-12, "hidden_act": "gelu"})");
  EXPECT_EQ(FailureOf(), "tokenizer.json has 11 tokens, more than config.json's vocab_size 10");
}

// general.name is the folder's name as given: a symbolic link named after
// the model names it (the link is not followed to the target's name).
TEST_F(HfToGgufTest, NameComesFromTheFolderAsGivenNotFollowingALink) {
  const std::string link = out_.File("all-minilm-l6-v2");
  std::filesystem::create_directory_symlink(dir_.dir(), link);
  Expected<HfConvertReport> r = ConvertHfToGguf(link, Out(), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->name, "all-minilm-l6-v2");
  Expected<gguf::File> f = gguf::File::Open(Out());
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(*f->GetString("general.name"), "all-minilm-l6-v2");
  r = ConvertHfToGguf(link + "/", Out(), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->name, "all-minilm-l6-v2");
}

// An embedding rounded up past the tokenizer: the ids without a token are
// "[PAD<id>]", typed unused (5), as llama.cpp's get_vocab_base writes them.
TEST_F(HfToGgufTest, PadsTheVocabularyToConfigsVocabSize) {
  WriteText(dir_.File("config.json"), R"({"architectures": ["BertModel"], "model_type": "bert",
    "hidden_size": 4, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 8, "type_vocab_size": 2,
    "max_position_embeddings": 6, "vocab_size": 13, "layer_norm_eps": 1e-12, "hidden_act": "gelu"})");
  std::vector<TestTensor> t = TinyBert();
  t[0] = F32("embeddings.word_embeddings.weight", {13, 4}, 1);
  WriteBytes(dir_.File("model.safetensors"), WriteSafetensors(t));
  Expected<HfConvertReport> r = ConvertHfToGguf(dir_.dir(), Out(), {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->n_vocab, 13u);
  Expected<gguf::File> f = gguf::File::Open(Out());
  ASSERT_TRUE(f.ok());
  Expected<const gguf::Array*> tokens = f->GetArray("tokenizer.ggml.tokens");
  Expected<const gguf::Array*> types = f->GetArray("tokenizer.ggml.token_type");
  ASSERT_TRUE(tokens.ok() && types.ok());
  ASSERT_EQ((*tokens)->size(), 13u);
  EXPECT_EQ((*tokens)->strings[10], "\u2581!");  // WordPiece words as llama.cpp writes them
  EXPECT_EQ((*tokens)->strings[11], "[PAD11]");
  EXPECT_EQ((*tokens)->strings[12], "[PAD12]");
  EXPECT_EQ((*types)->At<int32_t>(11), 5);
  EXPECT_EQ((*types)->At<int32_t>(10), 1);
  EXPECT_EQ(f->FindTensor("token_embd.weight")->shape, (std::vector<int64_t>{4, 13}));
}

}  // namespace
}  // namespace trit::convert

namespace trit::convert {
namespace {  // the same unnamed namespace: the using-declarations above hold

// The tiny Qwen3-MoE checkpoint of tests/data/hf/qwen3moe/checkpoint (8
// experts per layer, each expert's gate/up/down its own tensor) copied into
// a scratch folder, where a test changes it and the conversion must refuse.
class HfToGgufExpertsTest : public ::testing::Test {
 protected:
  explicit HfToGgufExpertsTest(std::string folder = "qwen3moe/checkpoint") : folder_(std::move(folder)) {}
  std::string Source(const std::string& f) const {
    return std::string(TRIT_SOURCE_DIR) + "/tests/data/hf/" + folder_ + "/" + f;
  }
  static std::string ReadText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    for (const char* f : {"config.json", "tokenizer.json", "tokenizer_config.json"}) {
      WriteText(dir_.File(f), ReadText(Source(f)));
    }
    Expected<safetensors::Checkpoint> c =
        safetensors::OpenCheckpoint(std::string(TRIT_SOURCE_DIR) + "/tests/data/hf/" + folder_);
    ASSERT_TRUE(c.ok()) << c.status().message();
    for (const safetensors::ShardTensor& t : c->Tensors()) {
      const std::span<const uint8_t> bytes = t.Data();
      tensors_.push_back({t.tensor->name, std::string(safetensors::DtypeName(t.tensor->dtype)), t.tensor->shape,
                          std::vector<uint8_t>(bytes.begin(), bytes.end())});
    }
  }
  std::string FailureOf() {
    WriteBytes(dir_.File("model.safetensors"), WriteSafetensors(tensors_));
    const std::string out = out_.File("out.gguf");
    Expected<HfConvertReport> r = ConvertHfToGguf(dir_.dir(), out, {});
    EXPECT_FALSE(r.ok());
    EXPECT_FALSE(std::filesystem::exists(out));
    return r.ok() ? std::string("(converted)") : r.status().message();
  }
  TestTensor& Named(const std::string& name) {
    for (TestTensor& t : tensors_) {
      if (t.name == name) return t;
    }
    ADD_FAILURE() << "no tensor " << name;
    return tensors_[0];
  }

  // config.json with `key` (as written, e.g. "\"sliding_window\": 4") replaced by `value`.
  void ReplaceInConfig(const std::string& key, const std::string& value) {
    std::string config = ReadText(Source("config.json"));
    ASSERT_NE(config.find(key), std::string::npos) << key;
    config.replace(config.find(key), key.size(), value);
    WriteText(dir_.File("config.json"), config);
  }

  std::string folder_;
  ScratchDir dir_;
  ScratchDir out_;
  std::vector<TestTensor> tensors_;
};

TEST_F(HfToGgufExpertsTest, AMissingExpertIsNamed) {
  std::erase_if(tensors_, [](const TestTensor& t) { return t.name == "model.layers.2.mlp.experts.5.up_proj.weight"; });
  EXPECT_EQ(FailureOf(),
            "the checkpoint has no tensor 'model.layers.2.mlp.experts.5.up_proj.weight' (for blk.2.ffn_up_exps.weight)");
}

TEST_F(HfToGgufExpertsTest, AnExpertOfTheWrongShapeIsNamed) {
  TestTensor& t = Named("model.layers.1.mlp.experts.3.down_proj.weight");
  t.shape = {32, 64};
  EXPECT_EQ(FailureOf(), "tensor 'model.layers.1.mlp.experts.3.down_proj.weight': shape [32, 64], but config.json "
                         "implies [64, 32]");
}

TEST_F(HfToGgufExpertsTest, ExpertsOfMixedDtypesAreRefused) {
  TestTensor& t = Named("model.layers.0.mlp.experts.7.gate_proj.weight");
  t.dtype = "F16";  // same size as bf16
  const std::string err = FailureOf();
  EXPECT_NE(err.find("model.layers.0.mlp.experts.7.gate_proj.weight' (F16)"), std::string::npos) << err;
  EXPECT_NE(err.find("of blk.0.ffn_gate_exps.weight differ in dtype"), std::string::npos) << err;
}

TEST_F(HfToGgufExpertsTest, DenseLayersAreRefusedByKey) {
  std::string config = ReadText(Source("config.json"));
  const std::string key = "\"mlp_only_layers\": []";
  ASSERT_NE(config.find(key), std::string::npos);
  config.replace(config.find(key), key.size(), "\"mlp_only_layers\": [1]");
  WriteText(dir_.File("config.json"), config);
  const std::string err = FailureOf();
  EXPECT_NE(err.find("decoder_sparse_step 1 and mlp_only_layers: some layers are dense"), std::string::npos) << err;
}

}  // namespace
}  // namespace trit::convert

namespace trit::convert {
namespace {

// The published gpt-oss form of tests/data/hf/gpt_oss/checkpoint-mxfp4
// (experts as MXFP4 blocks and scales), changed so the conversion must refuse.
class HfToGgufGptOssTest : public HfToGgufExpertsTest {
 protected:
  HfToGgufGptOssTest() : HfToGgufExpertsTest("gpt_oss/checkpoint-mxfp4") {}
};

TEST_F(HfToGgufGptOssTest, MissingScalesAreNamed) {
  std::erase_if(tensors_, [](const TestTensor& t) { return t.name == "model.layers.3.mlp.experts.down_proj_scales"; });
  EXPECT_EQ(FailureOf(),
            "the checkpoint has no tensor 'model.layers.3.mlp.experts.down_proj_scales' (for blk.3.ffn_down_exps.weight)");
}

TEST_F(HfToGgufGptOssTest, BlocksOfTheWrongShapeOrDtypeAreNamed) {
  TestTensor& t = Named("model.layers.1.mlp.experts.gate_up_proj_blocks");
  t.shape = {8, 64, 1, 32};
  EXPECT_EQ(FailureOf(), "tensor 'model.layers.1.mlp.experts.gate_up_proj_blocks': shape [8, 64, 1, 32], but "
                         "config.json implies [8, 64, 2, 16]");
  t.shape = {8, 64, 2, 16};
  t.dtype = "I8";
  EXPECT_EQ(FailureOf(), "tensor 'model.layers.1.mlp.experts.gate_up_proj_blocks': dtype I8; MXFP4 blocks "
                         "(quantization_config.quant_method 'mxfp4') are U8");
}

// Dequantized experts under a config that still says mxfp4: the blocks are asked for by name.
TEST_F(HfToGgufGptOssTest, BlocksAreRequiredWhenTheConfigSaysMxfp4) {
  std::erase_if(tensors_, [](const TestTensor& t) { return t.name.find("down_proj_") != std::string::npos &&
                                                           !t.name.ends_with("_bias"); });
  EXPECT_EQ(FailureOf(), "the checkpoint has no tensor 'model.layers.0.mlp.experts.down_proj_blocks' (for "
                         "blk.0.ffn_down_exps.weight), nor 7 other expected tensors");
}

TEST_F(HfToGgufGptOssTest, OtherQuantizationsAreRefusedByName) {
  ReplaceInConfig("\"quant_method\": \"mxfp4\"", "\"quant_method\": \"fp8\"");
  EXPECT_EQ(FailureOf(), "config.json: quantization_config.quant_method 'fp8': trit converts gpt-oss checkpoints in "
                         "F32, F16 or BF16, or with MXFP4 experts ('mxfp4')");
}

// What llama.cpp's gpt-oss fixes whatever config.json says.
TEST_F(HfToGgufGptOssTest, ConfigsLlamaCppCannotRunAreRefused) {
  ReplaceInConfig("\"swiglu_limit\": 7.0", "\"swiglu_limit\": 8.0");
  EXPECT_EQ(FailureOf(), "config.json: swiglu_limit 8: llama.cpp's gpt-oss (and trit) computes 7 only");
  ReplaceInConfig("\"full_attention\",\n    \"sliding_attention\"", "\"full_attention\",\n    \"full_attention\"");
  EXPECT_EQ(FailureOf(), "config.json: layer_types[2] is 'full_attention': llama.cpp's gpt-oss (and trit) has "
                         "sliding attention on the even layers and full attention on the odd ones, so expected "
                         "'sliding_attention'");
  ReplaceInConfig("\"original_max_position_embeddings\": 4096,", "");
  EXPECT_EQ(FailureOf(), "config.json: rope type 'yarn' without original_max_position_embeddings (in "
                         "rope_parameters or rope_scaling), which llama.cpp's converter requires");
}

}  // namespace
}  // namespace trit::convert
