// trit's quantizers against ggml's own output, with and without importance
// weights: tests/data/reference/ggml_quants.json holds the bytes
// ggml_quantize_chunk wrote (tools/record_ggml_quants.py, through
// llama-cpp-python's libggml-base) for rows this file rebuilds exactly. And
// what the weights are for: the error they weigh goes down.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "quant/types.h"
#include "quant_test_util.h"
#include "test_paths.h"

namespace trit::quant {
namespace {

constexpr int64_t kPerRow = 512;
constexpr int kRows = 6;
constexpr uint64_t kSeed = 0x7472697451;

// tools/record_ggml_quants.py's generator, step for step: splitmix64 and
// exact arithmetic in double, each value rounded to float once.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    state_ += 0x9E3779B97F4A7C15ull;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

struct Inputs {
  std::vector<float> rows;        // kRows x kPerRow
  std::vector<float> importance;  // kPerRow
};

Inputs MakeInputs() {
  SplitMix64 rng(kSeed);
  Inputs in;
  for (int r = 0; r < kRows; ++r) {
    for (int64_t c = 0; c < kPerRow; ++c) {
      const auto u1 = static_cast<int64_t>(rng.Next() >> 41);
      const auto u2 = static_cast<int64_t>(rng.Next() >> 41);
      double v = static_cast<double>(u1 + u2 - (int64_t{1} << 23)) / static_cast<double>(1 << 23);
      v /= static_cast<double>(1 << (r % 4));
      if ((rng.Next() >> 58) == 0) v *= 8.0;
      if (r == 4) {
        const int64_t block = c / 32;
        if (block == 0) v = 0.0;
        if (block == 1) v = 0.25;
        if (block == 2) v = -std::fabs(v) - 1.0 / 1024;
      }
      if (r == 5) v = std::fabs(v);
      in.rows.push_back(static_cast<float>(v));
    }
  }
  for (int64_t c = 0; c < kPerRow; ++c) {
    double w = static_cast<double>((rng.Next() >> 54) + 1) / 1024.0;
    if (c % 7 == 0) w *= 16.0;
    if (c % 61 == 0) w = 0.0;
    in.importance.push_back(static_cast<float>(w));
  }
  return in;
}

nlohmann::json LoadReference() {
  std::ifstream f(trit::testing::SourcePath("tests/data/reference/ggml_quants.json"));
  return nlohmann::json::parse(f);
}

std::string Hex(const std::vector<uint8_t>& bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string out;
  for (uint8_t b : bytes) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

// All rows, each quantized on its own (with the shared importance weights
// when `weighted`).
std::vector<uint8_t> QuantizeRows(const TypeInfo& t, const Inputs& in, bool weighted) {
  const uint64_t row_bytes = RowBytes(t, kPerRow).value();
  std::vector<uint8_t> out(row_bytes * kRows);
  for (int r = 0; r < kRows; ++r) {
    const float* src = in.rows.data() + r * kPerRow;
    uint8_t* dst = out.data() + r * row_bytes;
    if (weighted) {
      t.quantize_weighted(src, dst, kPerRow, in.importance.data());
    } else {
      t.quantize(src, dst, kPerRow);
    }
  }
  return out;
}

// Where two hex strings first differ, as row / block / byte of the block.
std::string FirstDifference(const TypeInfo& t, const std::string& got, const std::string& want) {
  if (got.size() != want.size()) return "sizes differ: " + std::to_string(got.size() / 2) + " vs " +
                                        std::to_string(want.size() / 2) + " bytes";
  size_t i = 0;
  while (i < got.size() && got[i] == want[i]) ++i;
  if (i == got.size()) return "none";
  const uint64_t byte = i / 2;
  const uint64_t row_bytes = RowBytes(t, kPerRow).value();
  const uint64_t in_row = byte % row_bytes;
  return "row " + std::to_string(byte / row_bytes) + ", block " + std::to_string(in_row / t.type_size) +
         ", byte " + std::to_string(in_row % t.type_size) + " of the block";
}

class GgmlBytesTest : public ::testing::TestWithParam<const char*> {};

TEST_P(GgmlBytesTest, PlainRowsEqualGgmlsReferenceQuantizer) {
  const TypeInfo* t = FindTypeByName(GetParam());
  ASSERT_NE(t, nullptr);
  const nlohmann::json ref = LoadReference();
  ASSERT_EQ(ref.at("n_per_row").get<int64_t>(), kPerRow);
  ASSERT_EQ(ref.at("n_rows").get<int>(), kRows);
  const std::string want = ref.at("plain").at(GetParam()).get<std::string>();
  const std::string got = Hex(QuantizeRows(*t, MakeInputs(), /*weighted=*/false));
  EXPECT_TRUE(got == want) << GetParam() << ": first difference at " << FirstDifference(*t, got, want);
}

TEST_P(GgmlBytesTest, WeightedRowsEqualGgmlsImportanceMatrixQuantizer) {
  const TypeInfo* t = FindTypeByName(GetParam());
  ASSERT_NE(t, nullptr);
  ASSERT_NE(t->quantize_weighted, nullptr);
  const nlohmann::json ref = LoadReference();
  const std::string want = ref.at("weighted").at(GetParam()).get<std::string>();
  const std::string got = Hex(QuantizeRows(*t, MakeInputs(), /*weighted=*/true));
  EXPECT_TRUE(got == want) << GetParam() << ": first difference at " << FirstDifference(*t, got, want);
}

INSTANTIATE_TEST_SUITE_P(Types, GgmlBytesTest,
                         ::testing::Values("q4_0", "q4_1", "q5_0", "q5_1", "q4_K", "q5_K", "q6_K"),
                         [](const auto& info) { return std::string(info.param); });

// The types ggml quantizes the same with or without importance weights
// (quantize_mxfp4 ignores them): plain rows only.
TEST(GgmlBytes, MXFP4RowsEqualGgmlsQuantizer) {
  const TypeInfo& t = GetType(GgmlType::kMXFP4);
  EXPECT_EQ(t.quantize_weighted, nullptr);
  const nlohmann::json ref = LoadReference();
  EXPECT_FALSE(ref.at("weighted").contains("mxfp4"));
  const std::string want = ref.at("plain").at("mxfp4").get<std::string>();
  const std::string got = Hex(QuantizeRows(t, MakeInputs(), /*weighted=*/false));
  EXPECT_TRUE(got == want) << "mxfp4: first difference at " << FirstDifference(t, got, want);
}

// The recorded weighted bytes differ from the plain ones: the weights reach
// the searches (a test of the reference file as much as of trit).
TEST(GgmlReference, WeightsChangeEveryTypesBytes) {
  const nlohmann::json ref = LoadReference();
  for (const auto& [name, plain] : ref.at("plain").items()) {
    if (!ref.at("weighted").contains(name)) continue;  // recorded plain only (mxfp4)
    EXPECT_NE(plain.get<std::string>(), ref.at("weighted").at(name).get<std::string>()) << name;
  }
}

// Sum over rows and columns of importance[c] * (x - x')^2.
double WeightedError(const std::vector<float>& x, const std::vector<float>& y, const std::vector<float>& importance) {
  double err = 0.0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = static_cast<double>(x[i]) - y[i];
    err += importance[i % importance.size()] * d * d;
  }
  return err;
}

class ImportanceTest : public ::testing::TestWithParam<const char*> {};

// On Gaussian rows with skewed importance (a few columns 100x the others, as
// real activations are), the weighted quantizer's error in the measure the
// weights define is below the plain quantizer's: what --imatrix is for.
TEST_P(ImportanceTest, LowersTheImportanceWeightedError) {
  const TypeInfo* t = FindTypeByName(GetParam());
  ASSERT_NE(t, nullptr);
  ASSERT_NE(t->quantize_weighted, nullptr);
  constexpr int64_t kN = 1024;
  constexpr int kR = 64;
  const std::vector<float> x = trit::quant::testing::GaussianData(kN * kR, 99);
  std::vector<float> importance(kN);
  for (int64_t c = 0; c < kN; ++c) importance[c] = (c % 16 == 3) ? 100.0f : 1.0f + static_cast<float>(c % 5);
  const uint64_t row_bytes = RowBytes(*t, kN).value();
  std::vector<uint8_t> plain(row_bytes * kR);
  std::vector<uint8_t> weighted(row_bytes * kR);
  for (int r = 0; r < kR; ++r) {
    t->quantize(x.data() + r * kN, plain.data() + r * row_bytes, kN);
    t->quantize_weighted(x.data() + r * kN, weighted.data() + r * row_bytes, kN, importance.data());
  }
  std::vector<float> y_plain(x.size());
  std::vector<float> y_weighted(x.size());
  t->dequantize(plain.data(), y_plain.data(), kN * kR);
  t->dequantize(weighted.data(), y_weighted.data(), kN * kR);
  const double e_plain = WeightedError(x, y_plain, importance);
  const double e_weighted = WeightedError(x, y_weighted, importance);
  RecordProperty("weighted_over_plain", std::to_string(e_weighted / e_plain));
  EXPECT_LT(e_weighted, e_plain) << GetParam() << ": " << e_weighted << " vs " << e_plain;
}

// Columns of zero importance (inputs never drove them) and rows of zeros
// give finite values, and a zero row stays zero.
TEST_P(ImportanceTest, ZeroImportanceAndZeroRowsStayFinite) {
  const TypeInfo* t = FindTypeByName(GetParam());
  ASSERT_NE(t, nullptr);
  constexpr int64_t kN = 512;
  std::vector<float> x = trit::quant::testing::GaussianData(kN, 7);
  std::vector<float> importance(kN, 0.0f);
  for (int64_t c = 256; c < kN; ++c) importance[c] = 1.0f;
  std::vector<uint8_t> q(RowBytes(*t, kN).value());
  t->quantize_weighted(x.data(), q.data(), kN, importance.data());
  std::vector<float> y(kN);
  t->dequantize(q.data(), y.data(), kN);
  EXPECT_TRUE(trit::quant::testing::AllFinite(y)) << GetParam();
  const std::vector<float> zeros(kN, 0.0f);
  t->quantize_weighted(zeros.data(), q.data(), kN, importance.data());
  t->dequantize(q.data(), y.data(), kN);
  for (float v : y) ASSERT_EQ(v, 0.0f) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Types, ImportanceTest,
                         ::testing::Values("q4_0", "q4_1", "q5_0", "q5_1", "q4_K", "q5_K", "q6_K", "iq4_nl",
                                           "iq4_xs"),
                         [](const auto& info) { return std::string(info.param); });

// Exactly the types llama.cpp weighs take importance weights.
TEST(ImportanceTypes, TheTypesGgmlWeighs) {
  for (const TypeInfo& t : AllTypes()) {
    const bool weighs = t.quantize_weighted != nullptr;
    const bool expected = t.name == "q4_0" || t.name == "q4_1" || t.name == "q5_0" || t.name == "q5_1" ||
                          t.name == "q4_K" || t.name == "q5_K" || t.name == "q6_K" || t.name == "iq4_nl" ||
                          t.name == "iq4_xs";
    EXPECT_EQ(weighs, expected) << t.name;
    if (weighs) {
      EXPECT_NE(t.quantize, nullptr) << t.name;
    }
  }
}

}  // namespace
}  // namespace trit::quant
