// `trit quantize`, run as a user would: output reads back, metadata is kept,
// fallbacks and refusals name the tensor, and nothing partial is left behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "cli/run_trit.h"
#include "formats/gguf/reader.h"
#include "formats/gguf_test_util.h"
#include "test_paths.h"

namespace trit::testing {
namespace {

namespace fs = std::filesystem;

class QuantizeCommandTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = MakeTempDir("trit-quantize"); }
  void TearDown() override { fs::remove_all(dir_); }
  size_t FileCount() const {
    return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator()));
  }
  std::string dir_;
};

TEST_F(QuantizeCommandTest, Q8_0ReadsBackWithMetadataKept) {
  const std::string out = dir_ + "/q8.gguf";
  RunResult r = RunTrit({"quantize", BundledModelPath(), out, "q8_0"});
  ASSERT_FALSE(r.signaled);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("wrote " + out), std::string::npos) << r.out;

  Expected<gguf::File> src = gguf::File::Open(BundledModelPath());
  Expected<gguf::File> dst = gguf::File::Open(out);
  ASSERT_TRUE(src.ok() && dst.ok()) << dst.status().message();
  // Every original key keeps its value; two keys are added.
  for (const gguf::MetadataEntry& e : src->metadata()) {
    const gguf::Value* v = dst->Find(e.key);
    ASSERT_NE(v, nullptr) << e.key;
    EXPECT_EQ(*v, e.value) << e.key;
  }
  EXPECT_EQ(*dst->GetUint("general.quantization_version"), 2u);
  EXPECT_EQ(*dst->GetUint("general.file_type"), 7u);  // LLAMA_FTYPE_MOSTLY_Q8_0
  ASSERT_EQ(dst->tensors().size(), src->tensors().size());
  for (size_t i = 0; i < src->tensors().size(); ++i) {
    const gguf::TensorInfo& a = src->tensors()[i];
    const gguf::TensorInfo& b = dst->tensors()[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.shape, b.shape);
    const bool matrix = a.shape.size() >= 2;
    const bool fits = a.shape[0] % 32 == 0;
    const char* expected = !matrix ? "f32" : fits ? "q8_0" : "f16";  // ffn_down rows are 172 long
    EXPECT_EQ(b.type->name, expected) << b.name;
  }
  // Values survive within q8_0's error.
  const gguf::TensorInfo* t = dst->FindTensor("blk.0.attn_q.weight");
  ASSERT_NE(t, nullptr);
  std::vector<float> back(static_cast<size_t>(t->n_elements));
  t->type->dequantize(dst->TensorData(*t).data(), back.data(), t->n_elements);
  const float* orig = reinterpret_cast<const float*>(src->TensorData(*src->FindTensor(t->name)).data());
  double err = 0, ref = 0;
  for (size_t i = 0; i < back.size(); ++i) {
    err += (back[i] - orig[i]) * (back[i] - orig[i]);
    ref += orig[i] * orig[i];
  }
  EXPECT_LT(err / ref, 1e-4);
  EXPECT_EQ(FileCount(), 1u);
}

TEST_F(QuantizeCommandTest, HugeAlignmentIsRefusedAndWritesNothing) {
  // The fuzz finding of issue 24: 524 bytes asking for a 1 GiB alignment.
  // `trit quantize` used to write a 1 GiB file from it and report success.
  const std::string in = dir_ + "/finding.gguf";
  const GgufBuilder finding = HugeAlignmentFile();
  const std::vector<uint8_t>& bytes = finding.bytes();
  std::ofstream(in, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                            static_cast<std::streamsize>(bytes.size()));
  RunResult r = RunTrit({"quantize", in, dir_ + "/out.gguf", "q8_0"});
  ASSERT_FALSE(r.signaled);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("metadata 'general.alignment' is 1073741824, more than the 65536 trit accepts"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(FileCount(), 1u);  // the input only
}

TEST_F(QuantizeCommandTest, JsonReportsEveryTensor) {
  const std::string out = dir_ + "/tq.gguf";
  RunResult r = RunTrit({"quantize", BundledModelPath(), out, "tq2_0", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["type"], "tq2_0");
  ASSERT_EQ(j["tensors"].size(), 48u);
  // Rows of 64 do not fit tq2_0's 256-element blocks: q4_0 instead, as llama-quantize does.
  for (const auto& t : j["tensors"]) {
    if (t["action"] == "convert") {
      EXPECT_TRUE(t["fallback"].get<bool>()) << t;
      EXPECT_TRUE(t["to"] == "q4_0" || t["to"] == "f16") << t;
    }
  }
  EXPECT_GT(j["fallbacks"].get<int>(), 0);
  EXPECT_EQ(j["output_bytes"], fs::file_size(out));
}

TEST_F(QuantizeCommandTest, StrictRefusesNamingTheTensorAndLeavesNothing) {
  const std::string out = dir_ + "/tq1.gguf";
  RunResult r = RunTrit({"quantize", BundledModelPath(), out, "tq1_0", "--strict"});
  ASSERT_FALSE(r.signaled);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("token_embd.weight"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("256"), std::string::npos) << r.err;
  EXPECT_EQ(FileCount(), 0u);
}

TEST_F(QuantizeCommandTest, UnknownTypeIsUsageError) {
  RunResult r = RunTrit({"quantize", BundledModelPath(), dir_ + "/x.gguf", "q9_9"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("'q9_9'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("q4_0"), std::string::npos) << "should list the supported types: " << r.err;
  EXPECT_EQ(FileCount(), 0u);
}

TEST_F(QuantizeCommandTest, RefusesToOverwriteItsInput) {
  const std::string copy = dir_ + "/model.gguf";
  fs::copy_file(BundledModelPath(), copy);
  RunResult r = RunTrit({"quantize", copy, copy, "q8_0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(fs::file_size(copy), 1185376u);
}

TEST_F(QuantizeCommandTest, UnwritableOutputFailsCleanly) {
  RunResult r = RunTrit({"quantize", BundledModelPath(), dir_ + "/missing-dir/out.gguf", "q8_0"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("missing-dir"), std::string::npos) << r.err;
  EXPECT_EQ(FileCount(), 0u);
}

TEST_F(QuantizeCommandTest, RequantizingAQuantizedFileWorks) {
  const std::string q8 = dir_ + "/q8.gguf";
  const std::string q4 = dir_ + "/q4.gguf";
  ASSERT_EQ(RunTrit({"quantize", BundledModelPath(), q8, "q8_0", "-q"}).exit_code, 0);
  RunResult r = RunTrit({"quantize", q8, q4, "q4_0", "-q"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Expected<gguf::File> f = gguf::File::Open(q4);
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->FindTensor("blk.0.attn_q.weight")->type->name, "q4_0");
  EXPECT_EQ(*f->GetUint("general.file_type"), 2u);
}

TEST_F(QuantizeCommandTest, OutputDoesNotDependOnThreadCount) {
  std::vector<std::string> bytes;
  for (const char* threads : {"1", "3", "0"}) {
    const std::string out = dir_ + "/q4_1-" + threads + ".gguf";
    RunResult r = RunTrit({"quantize", BundledModelPath(), out, "q4_1", "-q", "--threads", threads});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::ifstream in(out, std::ios::binary);
    bytes.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  EXPECT_EQ(bytes[0], bytes[1]);
  EXPECT_EQ(bytes[0], bytes[2]);
  EXPECT_EQ(RunTrit({"quantize", BundledModelPath(), dir_ + "/x.gguf", "q8_0", "--threads", "-2"}).exit_code, 2);
}

}  // namespace
}  // namespace trit::testing
