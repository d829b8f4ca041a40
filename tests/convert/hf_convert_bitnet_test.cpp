// `trit convert` on BitNet b1.58 checkpoints (convert/hf_bitnet.cpp,
// convert/hf_ternary.h), the tiny model of tests/data/hf/bitnet/ in its three
// forms (make_bitnet.py): bf16 master weights, transformers' packed form
// read by BitLinear (weight_scale divides) and by AutoBitLinear (it
// multiplies). Every form and output type must hold the same ternary model:
// the same codes and the same float scales bit for bit (the packed codes
// come from transformers' own pack_weights, the master ones from trit's
// absmean rule), the same logits from trit for i2_s, tq2_0 and tq1_0, and
// transformers' logits of that ternary model.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "convert/hf_to_gguf.h"
#include "formats/gguf/reader.h"
#include "model/chunked_logits.h"
#include "model/model.h"
#include "quant/i2s_quants.h"

namespace trit::convert {
namespace {

using quant::GgmlType;

std::string Form(const std::string& name) { return std::string(TRIT_SOURCE_DIR) + "/tests/data/hf/bitnet/" + name; }

constexpr const char* kForms[] = {"master", "packed", "packed-autobitlinear"};
constexpr const char* kTernary[] = {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"};

class HfConvertBitnetTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const std::string& p : paths_) std::remove(p.c_str());
  }
  // The form converted to `type`; its path, "" (and a failure) when it fails.
  std::string Convert(const std::string& form, GgmlType type) {
    const std::string out = ::testing::TempDir() + "hf_bitnet_" + form + "_" +
                            std::string(quant::GetType(type).name) + "_" + std::to_string(getpid()) + ".gguf";
    Expected<HfConvertReport> r = ConvertHfToGguf(Form(form), out, {.type = type, .on_tensor = {}});
    EXPECT_TRUE(r.ok()) << form << " -> " << quant::GetType(type).name << ": " << r.status().message();
    if (!r.ok()) return {};
    paths_.push_back(out);
    return out;
  }
  std::vector<std::string> paths_;
};

gguf::File Open(const std::string& path) {
  Expected<gguf::File> f = gguf::File::Open(path);
  EXPECT_TRUE(f.ok()) << f.status().message();
  return std::move(*f);
}

std::vector<uint8_t> Bytes(const gguf::File& f, const std::string& name) {
  const gguf::TensorInfo* t = f.FindTensor(name);
  EXPECT_NE(t, nullptr) << name;
  if (t == nullptr) return {};
  const std::span<const uint8_t> d = f.TensorData(*t);
  return {d.begin(), d.end()};
}

float Scalar(const gguf::File& f, const std::string& name) {
  const std::vector<uint8_t> b = Bytes(f, name);
  float v = NAN;
  if (b.size() == sizeof v) std::memcpy(&v, b.data(), sizeof v);
  return v;
}

TEST_F(HfConvertBitnetTest, TensorsTypesShapesAndKeys) {
  const std::string path = Convert("master", GgmlType::kI2_S);
  ASSERT_FALSE(path.empty());
  gguf::File f = Open(path);
  EXPECT_EQ(*f.GetString("general.architecture"), "bitnet-b1.58");
  EXPECT_EQ(*f.GetInt("general.file_type"), 40);  // bitnet.cpp's MOSTLY_I2_S
  const std::map<std::string, int64_t> ints = {
      {"context_length", 256},    {"embedding_length", 256},       {"block_count", 2},
      {"feed_forward_length", 512}, {"attention.head_count", 4},    {"attention.head_count_kv", 2},
      {"rope.dimension_count", 64}, {"vocab_size", 400},
  };
  for (const auto& [key, want] : ints) {
    Expected<int64_t> v = f.GetInt("bitnet-b1.58." + key);
    ASSERT_TRUE(v.ok()) << key;
    EXPECT_EQ(*v, want) << key;
  }
  EXPECT_FLOAT_EQ(*f.GetFloat("bitnet-b1.58.attention.layer_norm_rms_epsilon"), 1e-5f);
  EXPECT_FLOAT_EQ(*f.GetFloat("bitnet-b1.58.rope.freq_base"), 500000.0f);
  EXPECT_EQ(f.Find("tokenizer.ggml.tokens") != nullptr, true);

  // In file order: the sub-norms before the projections they feed; tied, so no output.weight.
  std::vector<std::string> names;
  for (const gguf::TensorInfo& t : f.tensors()) names.push_back(t.name);
  const std::vector<std::string> blk = {
      "attn_norm.weight", "attn_q.weight",   "attn_k.weight",   "attn_v.weight",       "attn_sub_norm.weight",
      "attn_output.weight", "ffn_norm.weight", "ffn_gate.weight", "ffn_up.weight", "ffn_sub_norm.weight",
      "ffn_down.weight"};
  std::vector<std::string> expected = {"token_embd.weight"};
  for (int il = 0; il < 2; ++il) {
    for (const std::string& n : blk) expected.push_back("blk." + std::to_string(il) + "." + n);
  }
  expected.push_back("output_norm.weight");
  EXPECT_EQ(names, expected);
  const std::map<std::string, std::pair<GgmlType, std::vector<int64_t>>> types = {
      {"token_embd.weight", {GgmlType::kF16, {256, 400}}},
      {"output_norm.weight", {GgmlType::kF32, {256}}},
      {"blk.1.attn_norm.weight", {GgmlType::kF32, {256}}},
      {"blk.1.attn_q.weight", {GgmlType::kI2_S, {256, 256}}},
      {"blk.1.attn_k.weight", {GgmlType::kI2_S, {256, 128}}},
      {"blk.1.attn_v.weight", {GgmlType::kI2_S, {256, 128}}},
      {"blk.1.attn_sub_norm.weight", {GgmlType::kF32, {256}}},
      {"blk.1.attn_output.weight", {GgmlType::kI2_S, {256, 256}}},
      {"blk.1.ffn_norm.weight", {GgmlType::kF32, {256}}},
      {"blk.1.ffn_gate.weight", {GgmlType::kI2_S, {256, 512}}},
      {"blk.1.ffn_up.weight", {GgmlType::kI2_S, {256, 512}}},
      {"blk.1.ffn_sub_norm.weight", {GgmlType::kF32, {512}}},
      {"blk.1.ffn_down.weight", {GgmlType::kI2_S, {512, 256}}},
  };
  for (const auto& [name, tw] : types) {
    const gguf::TensorInfo* t = f.FindTensor(name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_EQ(t->type->type, tw.first) << name;
    EXPECT_EQ(t->shape, tw.second) << name;
  }
}

// tq1_0 / tq2_0: each ternary weight followed by its f32 [1] `.scale`,
// equal to the i2_s file's scale of the same weight, and blocks of d = 1.
TEST_F(HfConvertBitnetTest, TernaryTypesCarryTheScaleInAScaleTensor) {
  gguf::File i2s = Open(Convert("master", GgmlType::kI2_S));
  for (GgmlType type : {GgmlType::kTQ2_0, GgmlType::kTQ1_0}) {
    gguf::File f = Open(Convert("master", type));
    EXPECT_EQ(*f.GetInt("general.file_type"), type == GgmlType::kTQ2_0 ? 37 : 36);
    const auto& ts = f.tensors();
    for (size_t i = 0; i < ts.size(); ++i) {
      if (ts[i].type->type != type) continue;
      ASSERT_LT(i + 1, ts.size());
      const std::string weight = ts[i].name;
      const std::string scale = weight.substr(0, weight.size() - 7) + ".scale";
      EXPECT_EQ(ts[i + 1].name, scale);
      EXPECT_EQ(ts[i + 1].type->type, GgmlType::kF32);
      EXPECT_EQ(ts[i + 1].shape, std::vector<int64_t>{1});
      const float want = quant::I2SScale(i2s.TensorData(*i2s.FindTensor(weight)));
      EXPECT_EQ(Scalar(f, scale), want) << scale;
      EXPECT_GT(want, 0.0f);
    }
    int n_scales = 0;
    for (const gguf::TensorInfo& t : ts) n_scales += t.name.ends_with(".scale");
    EXPECT_EQ(n_scales, 14);
  }
}

// The three forms hold one model: every tensor of every output type the same
// bytes (the packed codes are transformers' pack_weights of the master's
// absmean codes, and weight_scale is s for BitLinear, 1 / s for
// AutoBitLinear), and the f32 values t * scale with the i2_s scale.
TEST_F(HfConvertBitnetTest, EveryFormGivesTheSameTensors) {
  for (GgmlType type : {GgmlType::kI2_S, GgmlType::kTQ2_0, GgmlType::kTQ1_0, GgmlType::kF32, GgmlType::kF16}) {
    gguf::File master = Open(Convert("master", type));
    for (const char* form : {"packed", "packed-autobitlinear"}) {
      gguf::File other = Open(Convert(form, type));
      ASSERT_EQ(master.tensors().size(), other.tensors().size());
      for (const gguf::TensorInfo& t : master.tensors()) {
        EXPECT_EQ(Bytes(master, t.name), Bytes(other, t.name)) << form << " " << quant::GetType(type).name << " "
                                                               << t.name;
      }
    }
  }
  gguf::File i2s = Open(Convert("master", GgmlType::kI2_S));
  gguf::File f32 = Open(Convert("master", GgmlType::kF32));
  for (int il = 0; il < 2; ++il) {
    for (const char* w : kTernary) {
      const std::string name = "blk." + std::to_string(il) + "." + w + ".weight";
      const gguf::TensorInfo& t = *i2s.FindTensor(name);
      const std::span<const uint8_t> d = i2s.TensorData(t);
      std::vector<float> want(static_cast<size_t>(t.n_elements));
      quant::DequantizeI2S(d, want.data(), t.n_elements);
      const std::vector<uint8_t> got = Bytes(f32, name);
      ASSERT_EQ(got.size(), want.size() * 4);
      EXPECT_EQ(std::memcmp(got.data(), want.data(), got.size()), 0) << name;
      // Ternarizing mattered: all three codes occur.
      std::vector<int8_t> codes(want.size());
      quant::UnpackI2S(d.data(), codes.data(), t.n_elements);
      for (int8_t c : {-1, 0, 1}) EXPECT_NE(std::count(codes.begin(), codes.end(), c), 0) << name;
    }
  }
}

std::vector<std::vector<float>> AllLogits(const std::string& path, const nlohmann::json& ref,
                                          kernels::KernelSet set) {
  Expected<std::unique_ptr<model::Model>> m = model::LoadModel(path, {.kernels = set});
  EXPECT_TRUE(m.ok()) << m.status().message();
  std::vector<std::vector<float>> out;
  if (!m.ok()) return out;
  for (const nlohmann::json& seq : ref["sequences"]) {
    const std::vector<int32_t> ids = seq["ids"].get<std::vector<int32_t>>();
    out.push_back(testing::ChunkedLogits(**m, ids, ids.size(), 1, kernels::KvType::kF32));
  }
  return out;
}

nlohmann::json Reference() {
  std::ifstream in(Form("expected_logits.json"));
  return nlohmann::json::parse(in);
}

// Largest |a - b| over every logit of every sequence.
float MaxDiff(const std::vector<std::vector<float>>& a, const std::vector<std::vector<float>>& b) {
  float worst = 0.0f;
  EXPECT_EQ(a.size(), b.size());
  for (size_t s = 0; s < a.size() && s < b.size(); ++s) {
    EXPECT_EQ(a[s].size(), b[s].size());
    for (size_t i = 0; i < a[s].size() && i < b[s].size(); ++i) worst = std::max(worst, std::abs(a[s][i] - b[s][i]));
  }
  return worst;
}

std::vector<std::vector<float>> ReferenceLogits(const nlohmann::json& ref) {
  std::vector<std::vector<float>> out;
  for (const nlohmann::json& seq : ref["sequences"]) {
    std::vector<float> all;
    for (const nlohmann::json& row : seq["logits"]) {
      for (float v : row.get<std::vector<float>>()) all.push_back(v);
    }
    out.push_back(std::move(all));
  }
  return out;
}

// i2_s (rewritten at load as tq2_0 with the scale as the output scale), tq2_0
// and tq1_0 files of every form: the same logits, bit for bit, from trit's
// reference kernels (the same codes and scales run the same arithmetic).
TEST_F(HfConvertBitnetTest, EveryTernaryFileGivesTheSameLogits) {
  const nlohmann::json ref = Reference();
  const std::vector<std::vector<float>> base =
      AllLogits(Convert("master", GgmlType::kI2_S), ref, kernels::KernelSet::kReference);
  ASSERT_FALSE(base.empty());
  for (const char* form : kForms) {
    for (GgmlType type : {GgmlType::kI2_S, GgmlType::kTQ2_0, GgmlType::kTQ1_0}) {
      const std::vector<std::vector<float>> got = AllLogits(Convert(form, type), ref, kernels::KernelSet::kReference);
      ASSERT_EQ(got.size(), base.size());
      for (size_t s = 0; s < got.size(); ++s) {
        EXPECT_TRUE(testing::SameBits(got[s], base[s])) << form << " " << quant::GetType(type).name << " sequence "
                                                        << s << ": max diff " << MaxDiff({got[s]}, {base[s]});
      }
    }
  }
}

// Mean over rows of KL(softmax(want) || softmax(got)), and the share of rows
// whose top token agrees.
struct Agreement {
  double kld = 0.0;
  double top1 = 0.0;
};
Agreement Compare(const std::vector<std::vector<float>>& got, const std::vector<std::vector<float>>& want,
                  size_t n_vocab) {
  Agreement a;
  size_t rows = 0;
  for (size_t s = 0; s < want.size() && s < got.size(); ++s) {
    for (size_t r = 0; r * n_vocab < want[s].size(); ++r, ++rows) {
      const float* p = want[s].data() + r * n_vocab;
      const float* q = got[s].data() + r * n_vocab;
      const double mp = *std::max_element(p, p + n_vocab), mq = *std::max_element(q, q + n_vocab);
      double zp = 0.0, zq = 0.0;
      for (size_t i = 0; i < n_vocab; ++i) zp += std::exp(p[i] - mp), zq += std::exp(q[i] - mq);
      double kld = 0.0;
      for (size_t i = 0; i < n_vocab; ++i) {
        const double lp = p[i] - mp - std::log(zp), lq = q[i] - mq - std::log(zq);
        kld += std::exp(lp) * (lp - lq);
      }
      a.kld += kld;
      a.top1 += std::max_element(p, p + n_vocab) - p == std::max_element(q, q + n_vocab) - q;
    }
  }
  a.kld /= static_cast<double>(rows);
  a.top1 /= static_cast<double>(rows);
  return a;
}

// transformers' float32 logits of the same ternary model (make_bitnet.py:
// plain nn.Linear holding t / s, no activation quantization), logits up to
// 56 in size. Where trit's arithmetic is float too (f32 files on either
// kernel set, the ternary files on the reference kernels, which dequantize
// the codes) it is the same model: measured within 2.9e-5. trit's optimized
// ternary kernels quantize each activation block to 8 bits (q8_K, as ggml's
// tq1_0/tq2_0 dot products do) and so differ as transformers' own W1.58A8
// BitLinear does (expected_logits.json's "w158a8": up to 1.23 from the same
// float reference, mean KL divergence up to 1.9e-3 a sequence): measured
// 0.84 at most, mean KL divergence 5.2e-4, the top token the same on every
// row; bounded at twice that. A scale off by its reciprocal, a wrong code
// order or a dropped sub-norm moves the logits by whole units at least
// (and EveryFormGivesTheSameTensors checks the scales bit for bit).
constexpr float kFloatTolerance = 1e-4f;
constexpr float kInt8Tolerance = 1.7f;
constexpr double kInt8Kld = 1e-3;

TEST_F(HfConvertBitnetTest, LogitsMatchTransformers) {
  const nlohmann::json ref = Reference();
  const std::vector<std::vector<float>> want = ReferenceLogits(ref);
  for (GgmlType type : {GgmlType::kF32, GgmlType::kI2_S, GgmlType::kTQ2_0, GgmlType::kTQ1_0}) {
    for (const char* form : kForms) {
      const std::string path = Convert(form, type);
      for (kernels::KernelSet set : {kernels::KernelSet::kReference, kernels::KernelSet::kOptimized}) {
        const std::vector<std::vector<float>> got = AllLogits(path, ref, set);
        const float diff = MaxDiff(got, want);
        const Agreement a = Compare(got, want, 400);
        const bool int8 = type != GgmlType::kF32 && set == kernels::KernelSet::kOptimized;
        const std::string what = std::string(form) + " " + std::string(quant::GetType(type).name) + " kernels " +
                                 std::string(kernels::KernelSetName(set));
        EXPECT_LE(diff, int8 ? kInt8Tolerance : kFloatTolerance) << what;
        EXPECT_LE(a.kld, int8 ? kInt8Kld : 1e-9) << what;
        EXPECT_EQ(a.top1, 1.0) << what;
        std::printf("%s: max |trit - transformers| %g, mean KLD %g, top-1 %g\n", what.c_str(), diff, a.kld, a.top1);
      }
    }
  }
}

// The master checkpoint with config.json changed by `edit`, converted to i2_s.
Status ConvertEdited(const std::string& name, const std::function<void(nlohmann::json&)>& edit,
                     const std::string& out) {
  const std::filesystem::path dir = ::testing::TempDir() + "hf_bitnet_" + name + "_" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::copy(Form("master"), dir);
  nlohmann::json config;
  {
    std::ifstream in(dir / "config.json");
    config = nlohmann::json::parse(in);
  }
  edit(config);
  std::ofstream(dir / "config.json") << config.dump();
  Expected<HfConvertReport> r = ConvertHfToGguf(dir.string(), out, {.type = GgmlType::kI2_S, .on_tensor = {}});
  std::filesystem::remove_all(dir);
  return r.ok() ? Status::Ok() : r.status();
}

// The form comes from quantization_config as transformers picks the linear
// class: without one, or autobitlinear + online, the weights are float and
// ternarized; bitlinear (any mode) is packed. What trit cannot run is refused.
TEST_F(HfConvertBitnetTest, QuantizationConfigPicksTheForm) {
  const std::string out = ::testing::TempDir() + "hf_bitnet_edited_" + std::to_string(getpid()) + ".gguf";
  const std::string want = Convert("master", GgmlType::kI2_S);
  ASSERT_TRUE(ConvertEdited("plain", [](nlohmann::json& c) { c.erase("quantization_config"); }, out).ok());
  {
    gguf::File a = Open(want), b = Open(out);
    for (const gguf::TensorInfo& t : a.tensors()) EXPECT_EQ(Bytes(a, t.name), Bytes(b, t.name)) << t.name;
  }
  std::remove(out.c_str());
  Status s = ConvertEdited("bitlinear-online", [](nlohmann::json& c) {
    c["quantization_config"]["linear_class"] = "bitlinear";
  }, out);
  EXPECT_EQ(s.code(), ErrorCode::kCorrupt);
  EXPECT_NE(s.message().find("packed four rows a byte"), std::string::npos) << s.message();
  s = ConvertEdited("rms", [](nlohmann::json& c) { c["quantization_config"]["use_rms_norm"] = true; }, out);
  EXPECT_EQ(s.code(), ErrorCode::kUnsupported);
  EXPECT_NE(s.message().find("use_rms_norm"), std::string::npos) << s.message();
  s = ConvertEdited("silu", [](nlohmann::json& c) { c["hidden_act"] = "silu"; }, out);
  EXPECT_EQ(s.code(), ErrorCode::kUnsupported);
  EXPECT_NE(s.message().find("relu2"), std::string::npos) << s.message();
  s = ConvertEdited("gptq", [](nlohmann::json& c) { c["quantization_config"] = {{"quant_method", "gptq"}}; }, out);
  EXPECT_EQ(s.code(), ErrorCode::kUnsupported);
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST_F(HfConvertBitnetTest, RefusesWhatItCannotWrite) {
  // Ternary types only for checkpoints with ternary weights.
  const std::string out = ::testing::TempDir() + "hf_bitnet_refused_" + std::to_string(getpid()) + ".gguf";
  Expected<HfConvertReport> r =
      ConvertHfToGguf(std::string(TRIT_SOURCE_DIR) + "/tests/data/hf/llama", out, {.type = GgmlType::kTQ2_0, .on_tensor = {}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("BitNet"), std::string::npos) << r.status().message();
  // Other types are still refused.
  r = ConvertHfToGguf(Form("master"), out, {.type = GgmlType::kQ4_0, .on_tensor = {}});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace trit::convert
