// llama.cpp's importance-matrix files: the two files llama-imatrix wrote for
// the bundled model (tests/data/imatrix), layouts built by hand, and
// damaged or wrong files, each refused with the field it got wrong.
#include "convert/importance_matrix.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "formats/gguf/writer.h"
#include "test_paths.h"

namespace trit::convert {
namespace {

std::string ImatrixPath(const std::string& name) {
  return trit::testing::SourcePath("tests/data/imatrix/" + name);
}

// The legacy layout, written field by field.
class LegacyBytes {
 public:
  LegacyBytes& I32(int32_t v) { return Raw(&v, 4); }
  LegacyBytes& F32(float v) { return Raw(&v, 4); }
  LegacyBytes& Str(const std::string& s) { return Raw(s.data(), s.size()); }
  std::vector<uint8_t> bytes;

 private:
  LegacyBytes& Raw(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    bytes.insert(bytes.end(), b, b + n);
    return *this;
  }
};

// A GGUF importance matrix with one entry: `sums` (n_mat rows of sums) and `counts`.
std::vector<uint8_t> GgufBytes(const std::string& name, const std::vector<float>& sums,
                               const std::vector<float>& counts, const std::string& general_type = "imatrix",
                               bool with_counts = true) {
  gguf::Writer w;
  EXPECT_TRUE(w.SetMetadata("general.type", gguf::Value(general_type)).ok());
  EXPECT_TRUE(w.SetMetadata("imatrix.chunk_count", gguf::Value(uint32_t{3})).ok());
  EXPECT_TRUE(w.SetMetadata("imatrix.chunk_size", gguf::Value(uint32_t{512})).ok());
  const auto add = [&w](const std::string& tensor, const std::vector<float>& v, std::vector<int64_t> shape) {
    EXPECT_TRUE(w.AddTensor(tensor, quant::GgmlType::kF32, std::move(shape),
                            [v](std::span<uint8_t> out) {
                              std::memcpy(out.data(), v.data(), out.size());
                              return Status::Ok();
                            })
                    .ok());
  };
  const auto n_mat = static_cast<int64_t>(counts.size());
  add(name + ".in_sum2", sums, {static_cast<int64_t>(sums.size()) / n_mat, n_mat});
  if (with_counts) add(name + ".counts", counts, {1, n_mat});
  Expected<std::vector<uint8_t>> bytes = w.WriteBuffer();
  EXPECT_TRUE(bytes.ok()) << bytes.status().message();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

TEST(ImportanceMatrix, ReadsLlamaImatrixGgufFile) {
  Expected<ImportanceMatrix> m = ReadImportanceMatrix(ImatrixPath("stories260K-little_story.imatrix.gguf"));
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->format, ImportanceMatrix::Format::kGguf);
  // 5 layers x (q, k, v, output, gate, up, down); llama-imatrix skips the output matrix.
  EXPECT_EQ(m->entries.size(), 35u);
  ASSERT_TRUE(m->entries.count("blk.0.attn_q.weight"));
  EXPECT_EQ(m->entries.at("blk.0.attn_q.weight").size(), 64u);
  EXPECT_EQ(m->entries.at("blk.4.ffn_down.weight").size(), 172u);
  EXPECT_FALSE(m->entries.count("output.weight"));
  EXPECT_EQ(m->datasets, std::vector<std::string>{"little_story.txt"});
  EXPECT_EQ(m->chunk_count, 10);
  EXPECT_EQ(m->chunk_size, 64);
}

TEST(ImportanceMatrix, LegacyFileOfTheSameRunHasTheSameValues) {
  Expected<ImportanceMatrix> g = ReadImportanceMatrix(ImatrixPath("stories260K-little_story.imatrix.gguf"));
  Expected<ImportanceMatrix> d = ReadImportanceMatrix(ImatrixPath("stories260K-little_story.imatrix.dat"));
  ASSERT_TRUE(g.ok() && d.ok()) << d.status().message();
  EXPECT_EQ(d->format, ImportanceMatrix::Format::kLegacy);
  EXPECT_EQ(d->datasets, std::vector<std::string>{"little_story.txt"});
  EXPECT_EQ(d->chunk_count, 10);
  EXPECT_EQ(d->chunk_size, 0);  // the legacy format does not record it
  ASSERT_EQ(d->entries.size(), g->entries.size());
  for (const auto& [name, values] : g->entries) {
    ASSERT_TRUE(d->entries.count(name)) << name;
    const std::vector<float>& other = d->entries.at(name);
    ASSERT_EQ(other.size(), values.size()) << name;
    for (size_t i = 0; i < values.size(); ++i) {
      // (sum / count) * ncall / ncall against sum / count: float rounding apart.
      EXPECT_NEAR(other[i], values[i], 1e-6f * values[i]) << name << "[" << i << "]";
      EXPECT_GT(values[i], 0.0f) << name << "[" << i << "]";
    }
  }
}

TEST(ImportanceMatrix, LegacyLayoutByHand) {
  LegacyBytes b;
  b.I32(2);
  b.I32(5).Str("a.wgt").I32(4).I32(2).F32(8.0f).F32(2.0f);  // mean * ncall
  b.I32(1).Str("b").I32(0).I32(1).F32(3.0f);               // ncall 0: kept as stored
  b.I32(7).I32(4).Str("text");                              // trailer
  Expected<ImportanceMatrix> m = ParseImportanceMatrix(b.bytes);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->entries.at("a.wgt"), (std::vector<float>{2.0f, 0.5f}));
  EXPECT_EQ(m->entries.at("b"), (std::vector<float>{3.0f}));
  EXPECT_EQ(m->chunk_count, 7);
  EXPECT_EQ(m->datasets, std::vector<std::string>{"text"});
}

TEST(ImportanceMatrix, LegacyTrailerIsOptional) {
  LegacyBytes b;
  b.I32(1).I32(1).Str("x").I32(1).I32(1).F32(1.5f);
  Expected<ImportanceMatrix> m = ParseImportanceMatrix(b.bytes);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->chunk_count, 0);
  EXPECT_TRUE(m->datasets.empty());
}

TEST(ImportanceMatrix, GgufNormalisesPerMatrixCounts) {
  // Two experts of row length 2: the first summed over 4 rows, the second never reached (count 0: all 1).
  Expected<ImportanceMatrix> m = ParseImportanceMatrix(GgufBytes("blk.0.ffn_up_exps.weight", {8, 4, 9, 9}, {4, 0}));
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->entries.at("blk.0.ffn_up_exps.weight"), (std::vector<float>{2, 1, 1, 1}));
  EXPECT_EQ(m->chunk_count, 3);
  EXPECT_EQ(m->chunk_size, 512);
}

TEST(ImportanceMatrix, RefusesAModelFile) {
  Expected<ImportanceMatrix> m = ReadImportanceMatrix(trit::testing::BundledModelPath());
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("not an importance matrix"), std::string::npos) << m.status().message();
  EXPECT_NE(m.status().message().find("stories260K.gguf"), std::string::npos) << m.status().message();
}

TEST(ImportanceMatrix, RefusesAGgufOfAnotherType) {
  Expected<ImportanceMatrix> m = ParseImportanceMatrix(GgufBytes("w", {1, 2}, {1}, "model"));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("general.type 'model'"), std::string::npos) << m.status().message();
}

TEST(ImportanceMatrix, RefusesSumsWithoutCounts) {
  Expected<ImportanceMatrix> m = ParseImportanceMatrix(GgufBytes("w", {1, 2}, {1}, "imatrix", false));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("'w' has .in_sum2 but no .counts"), std::string::npos)
      << m.status().message();
}

TEST(ImportanceMatrix, RefusesNegativeAndNonFiniteValues) {
  for (float bad : {-1.0f, std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
    LegacyBytes b;
    b.I32(1).I32(3).Str("w.x").I32(1).I32(2).F32(1.0f).F32(bad);
    Expected<ImportanceMatrix> m = ParseImportanceMatrix(b.bytes);
    ASSERT_FALSE(m.ok()) << bad;
    EXPECT_NE(m.status().message().find("entry 'w.x': value 1"), std::string::npos) << m.status().message();
  }
}

TEST(ImportanceMatrix, RefusesDamagedLegacyFiles) {
  struct Case {
    std::vector<uint8_t> bytes;
    std::string expected;
  };
  std::vector<Case> cases;
  cases.push_back({{}, "reading the entry count"});
  cases.push_back({LegacyBytes().I32(0).bytes, "entry count 0"});
  cases.push_back({LegacyBytes().I32(1000).I32(1).Str("w").I32(1).I32(1).F32(1).bytes, "entry count 1000"});
  cases.push_back({LegacyBytes().I32(1).I32(-4).Str("wwww").I32(1).I32(1).F32(1).bytes, "name length -4"});
  cases.push_back({LegacyBytes().I32(1).I32(1).Str("w").I32(1).I32(0).F32(1).F32(1).bytes, "0 values"});
  cases.push_back({LegacyBytes().I32(1).I32(1).Str("w").I32(1).I32(3).F32(1).F32(1).bytes, "entry 0 values"});
  cases.push_back({LegacyBytes().I32(2).I32(1).Str("w").I32(1).I32(1).F32(1).I32(1).Str("w").I32(1).I32(1).F32(1).bytes,
                   "'w' appears twice"});
  for (const Case& c : cases) {
    Expected<ImportanceMatrix> m = ParseImportanceMatrix(c.bytes);
    ASSERT_FALSE(m.ok()) << c.expected;
    EXPECT_NE(m.status().message().find(c.expected), std::string::npos)
        << "expected '" << c.expected << "' in: " << m.status().message();
  }
}

// Every prefix of a real file is either refused or (a legacy file cut
// inside its optional trailer) read with all its entries: never a crash.
TEST(ImportanceMatrix, EveryTruncationIsRefusedOrComplete) {
  for (const char* name : {"stories260K-little_story.imatrix.gguf", "stories260K-little_story.imatrix.dat"}) {
    Expected<ImportanceMatrix> whole = ReadImportanceMatrix(ImatrixPath(name));
    ASSERT_TRUE(whole.ok());
    std::ifstream f(ImatrixPath(name), std::ios::binary);
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    for (size_t n = 0; n < bytes.size(); ++n) {
      Expected<ImportanceMatrix> m = ParseImportanceMatrix(std::span(bytes.data(), n));
      if (m.ok()) {
        EXPECT_EQ(m->entries.size(), whole->entries.size()) << name << " cut at " << n;
      }
    }
  }
}

}  // namespace
}  // namespace trit::convert
