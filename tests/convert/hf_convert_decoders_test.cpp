// `trit convert` on the tiny llama / qwen2 / qwen3 / gemma3 checkpoints of
// tests/data/hf/ (random bf16 weights, made by make_checkpoints.py; Qwen3.5's
// in qwen35/checkpoint, made by make_qwen35.py), checked
// against what llama.cpp's convert_hf_to_gguf.py wrote for the same
// directories with --outtype f16 (expected_f16.json, made by
// make_expected.py): the same tensors (name, GGUF shape, type, sha256 of the
// bytes) and the same metadata keys and values, general.name and
// general.size_label aside (provenance). gpt-oss twice: from bf16 experts
// (gpt_oss/checkpoint) and from the published form's MXFP4 blocks and
// scales (gpt_oss/checkpoint-mxfp4, made by make_gpt_oss.py), whose experts
// are also checked against the bf16 ones they were quantized from.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <sstream>
#include <string>

#include "base/sha256.h"
#include "convert/hf_to_gguf.h"
#include "formats/gguf/reader.h"
#include "quant/block_formats.h"
#include "quant/mxfp4_quants.h"

namespace trit::convert {
namespace {

using Json = nlohmann::json;

std::string DataDir(const std::string& arch) { return std::string(TRIT_SOURCE_DIR) + "/tests/data/hf/" + arch; }

// A metadata value as gguf-py's field.contents() writes it in JSON.
Json ToJson(const gguf::Value& v) {
  if (const auto* s = v.get_if<std::string>()) return *s;
  if (const auto* b = v.get_if<bool>()) return *b;
  if (const auto* u = v.get_if<uint32_t>()) return *u;
  if (const auto* f = v.get_if<float>()) return *f;
  if (const auto* a = v.get_if<gguf::Array>()) {
    Json out = Json::array();
    for (size_t i = 0; i < a->size(); ++i) {
      switch (a->element_type) {
        case gguf::ValueType::kString: out.push_back(a->strings[i]); break;
        case gguf::ValueType::kInt32: out.push_back(a->At<int32_t>(i)); break;
        case gguf::ValueType::kFloat32: out.push_back(a->At<float>(i)); break;
        case gguf::ValueType::kBool: out.push_back(a->At<uint8_t>(i) != 0); break;
        default: return "unexpected array type";
      }
    }
    return out;
  }
  return "unexpected value type";
}

// Floats compare as float32 (the file's type), everything else exactly.
bool SameValue(const Json& ours, const Json& ref) {
  if (ours.is_array() && ref.is_array()) {
    if (ours.size() != ref.size()) return false;
    for (size_t i = 0; i < ours.size(); ++i) {
      if (!SameValue(ours[i], ref[i])) return false;
    }
    return true;
  }
  if (ours.is_number_float() || ref.is_number_float()) {
    return ours.is_number() && ref.is_number() && static_cast<float>(ours.get<double>()) == static_cast<float>(ref.get<double>());
  }
  return ours == ref;
}

// F32 bytes against recorded values, each at most one float step apart.
void ExpectWithinOneUlp(std::span<const uint8_t> bytes, const Json& values, const std::string& what) {
  ASSERT_EQ(bytes.size(), values.size() * 4) << what;
  for (size_t i = 0; i < values.size(); ++i) {
    float ours;
    std::memcpy(&ours, bytes.data() + 4 * i, 4);
    const float ref = values[i].get<float>();
    EXPECT_TRUE(ours == ref || std::nextafter(ref, ours) == ours) << what << "[" << i << "]: " << ours << " vs " << ref;
  }
}

class HfConvertDecodersTest : public ::testing::TestWithParam<const char*> {};

// The parameter is the checkpoint's folder under tests/data/hf/; its first
// component names the architecture.
TEST_P(HfConvertDecodersTest, F16FileIsLlamaCppConvertersFile) {
  const std::string dir = GetParam();
  std::string arch = dir.substr(0, dir.find('/'));
  std::replace(arch.begin(), arch.end(), '_', '-');  // gpt_oss/ holds gpt-oss
  const std::string out = ::testing::TempDir() + "hf_decoder_" + arch + "_" + std::to_string(getpid()) + ".gguf";
  Expected<HfConvertReport> report = ConvertHfToGguf(DataDir(dir), out, {});
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_EQ(report->gguf_arch, arch);
  std::ifstream in(DataDir(dir) + "/expected_f16.json");
  ASSERT_TRUE(in) << "no expected_f16.json for " << arch;
  const Json expected = Json::parse(in);
  Expected<gguf::File> f = gguf::File::Open(out);
  ASSERT_TRUE(f.ok()) << f.status().message();

  std::set<std::string> ours_tensors;
  for (const gguf::TensorInfo& t : f->tensors()) {
    ours_tensors.insert(t.name);
    ASSERT_TRUE(expected["tensors"].contains(t.name)) << arch << ": tensor " << t.name << " not in llama.cpp's file";
    const Json& e = expected["tensors"][t.name];
    EXPECT_EQ(Json(t.shape), e["shape"]) << t.name;
    std::string type = e["type"].get<std::string>();  // gguf-py's name: F16, F32, MXFP4
    std::transform(type.begin(), type.end(), type.begin(), [](unsigned char c) { return std::tolower(c); });
    EXPECT_EQ(std::string(t.type->name), type) << t.name;
    if (e.contains("values")) {
      // -exp(A_log): torch's float exp (SLEEF) is within 1 ulp, trit's std::exp correctly rounded.
      ExpectWithinOneUlp(f->TensorData(t), e["values"], arch + ": " + t.name);
    } else {
      EXPECT_EQ(Sha256Hex(f->TensorData(t)), e["sha256"].get<std::string>()) << arch << ": bytes of " << t.name;
    }
  }
  EXPECT_EQ(ours_tensors.size(), expected["tensors"].size()) << arch << ": tensor count";

  std::set<std::string> ours_keys;
  for (const gguf::MetadataEntry& m : f->metadata()) {
    if (m.key == "general.name") continue;
    ours_keys.insert(m.key);
    ASSERT_TRUE(expected["metadata"].contains(m.key)) << arch << ": key " << m.key << " not in llama.cpp's file";
    EXPECT_TRUE(SameValue(ToJson(m.value), expected["metadata"][m.key]))
        << arch << ": " << m.key << " = " << ToJson(m.value).dump().substr(0, 200) << ", llama.cpp "
        << expected["metadata"][m.key].dump().substr(0, 200);
  }
  for (const auto& [key, value] : expected["metadata"].items()) {
    EXPECT_TRUE(ours_keys.contains(key)) << arch << ": llama.cpp writes " << key << " = " << value.dump().substr(0, 100);
  }
  std::remove(out.c_str());
}

// The published form's experts, repacked without dequantizing, stand for
// the bf16 experts make_gpt_oss.py quantized them from: each GGUF block's
// scale 2^(e - 127) is the one its quantizer chose for those 32 weights
// (floor(log2 max|w|) - 2: in (max/8, max/4]) and each value is within
// the rounding and clamping that allow (2 x the scale) of its weight. A
// block from the wrong rows (gate for up, a transposed weight) or nibbles
// in the wrong order cannot pass, whatever llama.cpp's file says.
TEST(HfConvertGptOssTest, Mxfp4ExpertsAreTheBf16ExpertsQuantized) {
  const std::string pid = std::to_string(getpid());
  const std::string ref_path = ::testing::TempDir() + "hf_gpt_oss_bf16_" + pid + ".gguf";
  const std::string q_path = ::testing::TempDir() + "hf_gpt_oss_mxfp4_" + pid + ".gguf";
  Expected<HfConvertReport> r = ConvertHfToGguf(DataDir("gpt_oss/checkpoint"), ref_path,
                                               {.type = quant::GgmlType::kF32, .on_tensor = {}});
  ASSERT_TRUE(r.ok()) << r.status().message();
  r = ConvertHfToGguf(DataDir("gpt_oss/checkpoint-mxfp4"), q_path, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  Expected<gguf::File> ref = gguf::File::Open(ref_path);
  Expected<gguf::File> q = gguf::File::Open(q_path);
  ASSERT_TRUE(ref.ok() && q.ok());
  int n_checked = 0;
  for (const gguf::TensorInfo& t : q->tensors()) {
    if (!t.name.ends_with("_exps.weight")) continue;
    ++n_checked;
    ASSERT_EQ(std::string(t.type->name), "mxfp4") << t.name;
    const gguf::TensorInfo* w = ref->FindTensor(t.name);
    ASSERT_NE(w, nullptr) << t.name;
    ASSERT_EQ(w->shape, t.shape) << t.name;
    const std::span<const uint8_t> qb = q->TensorData(t), wb = ref->TensorData(*w);
    const size_t n_blocks = qb.size() / sizeof(quant::BlockMxfp4);
    ASSERT_EQ(wb.size(), n_blocks * quant::kQKMxfp4 * sizeof(float)) << t.name;
    int n_bad = 0;
    for (size_t b = 0; b < n_blocks && n_bad < 3; ++b) {
      quant::BlockMxfp4 block;
      std::memcpy(&block, qb.data() + b * sizeof block, sizeof block);
      float want[quant::kQKMxfp4], got[quant::kQKMxfp4];
      std::memcpy(want, wb.data() + b * sizeof want, sizeof want);
      quant::DequantizeRowMXFP4(&block, got, quant::kQKMxfp4);
      float amax = 0;
      for (float v : want) amax = std::max(amax, std::fabs(v));
      const float scale = std::ldexp(1.0f, block.e - 127);
      bool ok = amax == 0 || (scale > amax / 8 && scale <= amax / 4);
      for (int i = 0; i < quant::kQKMxfp4; ++i) ok = ok && std::fabs(got[i] - want[i]) <= 2 * scale;
      if (!ok) {
        ++n_bad;
        ADD_FAILURE() << t.name << " block " << b << ": scale " << scale << " for max |w| " << amax << ", w[0] "
                      << want[0] << " -> " << got[0];
      }
    }
  }
  EXPECT_EQ(n_checked, 12);  // gate, up and down of 4 layers
  std::remove(ref_path.c_str());
  std::remove(q_path.c_str());
}

INSTANTIATE_TEST_SUITE_P(Archs, HfConvertDecodersTest,
                         ::testing::Values("llama", "qwen2", "qwen3", "gemma3", "qwen35/checkpoint",
                                           "qwen35/checkpoint-vl", "gemma4/checkpoint", "gemma4/checkpoint-vl",
                                           "qwen3moe/checkpoint", "gpt_oss/checkpoint", "gpt_oss/checkpoint-mxfp4"));

}  // namespace
}  // namespace trit::convert
