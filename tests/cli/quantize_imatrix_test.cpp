// `trit quantize --imatrix`, run as a user would: with the importance
// matrices llama-imatrix wrote for the bundled model, every tensor comes out
// as llama-quantize --pure --imatrix wrote it (tests/data/imatrix/
// llama_quantize.json, tools/record_imatrix_quants.py); the matrix is
// recorded and reported; a matrix that does not fit the model is refused
// with nothing written.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "base/sha256.h"
#include "cli/run_trit.h"
#include "formats/gguf/reader.h"
#include "test_paths.h"

namespace trit::testing {
namespace {

namespace fs = std::filesystem;

std::string Imatrix(const std::string& name) { return SourcePath("tests/data/imatrix/" + name); }

class QuantizeImatrixTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("trit-imatrix"); }
  void TearDown() override { fs::remove_all(dir_); }
  size_t FileCount() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }
  // A legacy importance matrix with one entry of `n` ones.
  std::string WriteLegacy(const std::string& entry, int32_t n) {
    const std::string path = dir_ + "/m.dat";
    std::ofstream f(path, std::ios::binary);
    const auto i32 = [&f](int32_t v) { f.write(reinterpret_cast<const char*>(&v), 4); };
    i32(1);
    i32(static_cast<int32_t>(entry.size()));
    f.write(entry.data(), static_cast<std::streamsize>(entry.size()));
    i32(1);
    i32(n);
    for (int32_t i = 0; i < n; ++i) {
      const float one = 1.0f;
      f.write(reinterpret_cast<const char*>(&one), 4);
    }
    return path;
  }
  std::string dir_;
};

TEST_F(QuantizeImatrixTest, EveryTensorIsLlamaQuantizesBytes) {
  std::ifstream f(Imatrix("llama_quantize.json"));
  const nlohmann::json ref = nlohmann::json::parse(f);
  const std::string out = dir_ + "/out.gguf";
  for (const auto& imatrix : ref.at("imatrices")) {
    for (const auto& [type, expected] : ref.at("types").items()) {
      RunResult r = RunTrit({"quantize", BundledModelPath(), out, type, "-q", "--imatrix",
                             Imatrix(imatrix.get<std::string>())});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      Expected<gguf::File> file = gguf::File::Open(out);
      ASSERT_TRUE(file.ok()) << file.status().message();
      size_t compared = 0;
      for (const auto& [name, want] : expected.at("tensors").items()) {
        const gguf::TensorInfo* t = file->FindTensor(name);
        ASSERT_NE(t, nullptr) << name;
        EXPECT_EQ(t->type->name, want.at("type").get<std::string>()) << type << " " << name;
        EXPECT_EQ(Sha256Hex(file->TensorData(*t)), want.at("sha256").get<std::string>())
            << imatrix << " " << type << ": " << name << " differs from llama-quantize's";
        ++compared;
      }
      EXPECT_EQ(compared, 37u) << type;
    }
  }
}

TEST_F(QuantizeImatrixTest, TheMatrixChangesTheBytes) {
  const std::string plain = dir_ + "/plain.gguf";
  const std::string weighted = dir_ + "/weighted.gguf";
  ASSERT_EQ(RunTrit({"quantize", BundledModelPath(), plain, "q4_K", "-q"}).exit_code, 0);
  ASSERT_EQ(RunTrit({"quantize", BundledModelPath(), weighted, "q4_K", "-q", "--imatrix",
                     Imatrix("stories260K-little_story.imatrix.gguf")})
                .exit_code,
            0);
  Expected<gguf::File> a = gguf::File::Open(plain);
  Expected<gguf::File> b = gguf::File::Open(weighted);
  ASSERT_TRUE(a.ok() && b.ok());
  const auto bytes = [](const gguf::File& f, const char* name) {
    return Sha256Hex(f.TensorData(*f.FindTensor(name)));
  };
  EXPECT_NE(bytes(*a, "blk.0.attn_q.weight"), bytes(*b, "blk.0.attn_q.weight"));
  // No entry for the token embeddings: quantized the same either way.
  EXPECT_EQ(bytes(*a, "token_embd.weight"), bytes(*b, "token_embd.weight"));
}

TEST_F(QuantizeImatrixTest, RecordedInTheFileAndReported) {
  const std::string out = dir_ + "/out.gguf";
  const std::string imatrix = Imatrix("stories260K-little_story.imatrix.gguf");
  RunResult r = RunTrit({"quantize", BundledModelPath(), out, "q4_0", "--json", "--imatrix", imatrix});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json report = nlohmann::json::parse(r.out);
  const nlohmann::json& m = report.at("importance_matrix");
  EXPECT_EQ(m.at("path"), imatrix);
  EXPECT_EQ(m.at("format"), "gguf");
  EXPECT_EQ(m.at("entries"), 35);
  EXPECT_EQ(m.at("datasets"), nlohmann::json::array({"little_story.txt"}));
  EXPECT_EQ(m.at("chunk_count"), 10);
  EXPECT_EQ(m.at("chunk_size"), 64);
  // 5 layers x 6 matrices of row 64; ffn_down (row 172) falls back to f16, which takes no weights.
  EXPECT_EQ(m.at("tensors_weighted"), 30);
  std::map<std::string, bool> weighted;
  for (const auto& t : report.at("tensors")) weighted[t.at("name")] = t.at("importance");
  EXPECT_TRUE(weighted.at("blk.0.attn_q.weight"));
  EXPECT_FALSE(weighted.at("blk.0.ffn_down.weight"));
  EXPECT_FALSE(weighted.at("token_embd.weight"));
  EXPECT_FALSE(weighted.at("output.weight"));

  Expected<gguf::File> f = gguf::File::Open(out);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(*f->GetString("quantize.imatrix.file"), imatrix);
  EXPECT_EQ(*f->GetString("quantize.imatrix.dataset"), "little_story.txt");
  EXPECT_EQ(*f->GetUint("quantize.imatrix.entries_count"), 35u);
  EXPECT_EQ(*f->GetUint("quantize.imatrix.chunks_count"), 10u);

  RunResult text = RunTrit({"quantize", BundledModelPath(), out, "q4_0", "--imatrix", imatrix});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("30 weighted by the importance matrix"), std::string::npos) << text.out;
  EXPECT_NE(text.err.find("blk.0.attn_q.weight                 f32 -> q4_0"), std::string::npos) << text.err;
  EXPECT_NE(text.err.find("imatrix"), std::string::npos) << text.err;
}

TEST_F(QuantizeImatrixTest, WrongSizeIsRefusedWithNothingWritten) {
  const std::string m = WriteLegacy("blk.0.attn_q.weight", 128);
  RunResult r = RunTrit({"quantize", BundledModelPath(), dir_ + "/out.gguf", "q4_0", "--imatrix", m});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("128 values for tensor 'blk.0.attn_q.weight', which needs 64"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ + "/out.gguf"));
}

TEST_F(QuantizeImatrixTest, MatrixOfAnotherModelIsRefused) {
  const std::string m = WriteLegacy("model.layers.0.self_attn.q_proj.weight", 64);
  RunResult r = RunTrit({"quantize", BundledModelPath(), dir_ + "/out.gguf", "q4_K", "--imatrix", m});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("is it from another model?"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ + "/out.gguf"));
}

TEST_F(QuantizeImatrixTest, AModelIsNotAMatrix) {
  RunResult r = RunTrit({"quantize", BundledModelPath(), dir_ + "/out.gguf", "q4_0", "--imatrix", BundledModelPath()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("--imatrix"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not an importance matrix"), std::string::npos) << r.err;
  EXPECT_EQ(FileCount(), 0u);
}

TEST_F(QuantizeImatrixTest, MissingFileIsUsageError) {
  RunResult r = RunTrit({"quantize", BundledModelPath(), dir_ + "/out.gguf", "q4_0", "--imatrix", dir_ + "/nope"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("nope"), std::string::npos) << r.err;
}

TEST_F(QuantizeImatrixTest, TypesWithoutWeightsSaySo) {
  RunResult r = RunTrit({"quantize", BundledModelPath(), dir_ + "/out.gguf", "q8_0", "-q", "--imatrix",
                         Imatrix("stories260K-little_story.imatrix.gguf")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("q8_0 takes no importance weights"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("0 weighted by the importance matrix"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace trit::testing
