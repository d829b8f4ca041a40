// Reading real files: the bundled model (written by llama.cpp's converter) and
// llama.cpp's vocab-only GGUFs; typed metadata getters and their errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "formats/gguf/reader.h"
#include "formats/gguf/writer.h"
#include "gguf_test_util.h"
#include "test_paths.h"

namespace trit::gguf {
namespace {

using ::testing::HasSubstr;
using trit::testing::BundledModelPath;
using trit::testing::ReadFileBytes;
using trit::testing::ScratchDir;
using trit::testing::SharedDataPath;

TEST(GgufReader, BundledModelHeader) {
  auto file = File::Open(BundledModelPath());
  ASSERT_TRUE(file.ok()) << file.status().message();
  EXPECT_EQ(file->version(), 3u);
  EXPECT_EQ(file->metadata().size(), 19u);
  EXPECT_EQ(file->tensors().size(), 48u);
  EXPECT_EQ(file->header().alignment, 32u);
  EXPECT_EQ(file->header().data_offset, 14176u);
  EXPECT_EQ(file->file_size(), std::filesystem::file_size(BundledModelPath()));

  auto arch = file->GetString("general.architecture");
  ASSERT_TRUE(arch.ok()) << arch.status().message();
  EXPECT_EQ(*arch, "llama");
  auto blocks = file->GetUint("llama.block_count");
  ASSERT_TRUE(blocks.ok()) << blocks.status().message();
  EXPECT_EQ(*blocks, 5u);
  auto eps = file->GetFloat("llama.attention.layer_norm_rms_epsilon");
  ASSERT_TRUE(eps.ok()) << eps.status().message();
  EXPECT_FLOAT_EQ(*eps, 1e-5f);

  auto tokens = file->GetArray("tokenizer.ggml.tokens");
  ASSERT_TRUE(tokens.ok()) << tokens.status().message();
  ASSERT_EQ((*tokens)->element_type, ValueType::kString);
  ASSERT_EQ((*tokens)->size(), 512u);
  EXPECT_EQ((*tokens)->strings[0], "<unk>");
  EXPECT_EQ((*tokens)->strings[1], "<s>");
  EXPECT_EQ((*tokens)->strings[2], "</s>");
  auto types = file->GetArray("tokenizer.ggml.token_type");
  ASSERT_TRUE(types.ok());
  ASSERT_EQ((*types)->element_type, ValueType::kInt32);
  ASSERT_EQ((*types)->size(), 512u);
  EXPECT_EQ((*types)->At<int32_t>(0), 2);  // <unk>: UNKNOWN
  EXPECT_EQ((*types)->At<int32_t>(1), 3);  // <s>: CONTROL

  // A uint32 key with the all-ones "none" value.
  auto sep = file->GetUint("tokenizer.ggml.seperator_token_id");
  ASSERT_TRUE(sep.ok());
  EXPECT_EQ(*sep, 0xffffffffu);
}

TEST(GgufReader, BundledModelTensors) {
  auto file = File::Open(BundledModelPath());
  ASSERT_TRUE(file.ok()) << file.status().message();
  const TensorInfo* embd = file->FindTensor("token_embd.weight");
  ASSERT_NE(embd, nullptr);
  EXPECT_EQ(embd->shape, (std::vector<int64_t>{64, 512}));
  EXPECT_EQ(embd->type->type, quant::GgmlType::kF32);
  EXPECT_EQ(embd->offset, 0u);
  EXPECT_EQ(embd->n_elements, 64 * 512);
  EXPECT_EQ(embd->n_bytes, 64u * 512 * 4);
  EXPECT_EQ(&file->tensors()[0], embd);
  EXPECT_EQ(file->FindTensor("no.such.tensor"), nullptr);

  const TensorInfo* norm = file->FindTensor("blk.4.ffn_norm.weight");
  ASSERT_NE(norm, nullptr);
  EXPECT_EQ(norm->shape, (std::vector<int64_t>{64}));
  EXPECT_EQ(norm->offset, 1170944u);

  // Zero-copy views: each tensor's span lies at data_offset + offset in the mapping,
  // and its bytes are the file's bytes there.
  const std::vector<uint8_t> bytes = ReadFileBytes(BundledModelPath());
  const uint8_t* base = file->TensorData(*embd).data() - file->header().data_offset;
  for (const TensorInfo& t : file->tensors()) {
    SCOPED_TRACE(t.name);
    EXPECT_EQ(t.type->type, quant::GgmlType::kF32);
    EXPECT_EQ(t.offset % 32, 0u);
    const auto data = file->TensorData(t);
    ASSERT_EQ(data.size(), t.n_bytes);
    EXPECT_EQ(data.data(), base + file->header().data_offset + t.offset);
    const size_t at = file->header().data_offset + t.offset;
    EXPECT_TRUE(std::equal(data.begin(), data.end(), bytes.begin() + at));
  }
}

TEST(GgufReader, ParseHeaderMatchesFileOpen) {
  const std::vector<uint8_t> bytes = ReadFileBytes(BundledModelPath());
  auto header = ParseHeader(bytes);
  ASSERT_TRUE(header.ok()) << header.status().message();
  auto file = File::Open(BundledModelPath());
  ASSERT_TRUE(file.ok());
  ASSERT_EQ(header->metadata.size(), file->metadata().size());
  for (size_t i = 0; i < header->metadata.size(); ++i) {
    EXPECT_EQ(header->metadata[i].key, file->metadata()[i].key);
    EXPECT_EQ(header->metadata[i].value, file->metadata()[i].value);
  }
  EXPECT_EQ(header->data_offset, file->header().data_offset);
}

TEST(GgufReader, VocabFilesFromLlamaCpp) {
  const std::string dir = SharedDataPath("vocab/llama.cpp");
  if (dir.empty()) GTEST_SKIP() << "shared data vocab/llama.cpp not found (set TRIT_SHARED_DATA)";
  int n_files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".gguf") continue;
    SCOPED_TRACE(entry.path().string());
    ++n_files;
    auto file = File::Open(entry.path().string());
    ASSERT_TRUE(file.ok()) << file.status().message();
    EXPECT_TRUE(file->version() == 2 || file->version() == 3);
    EXPECT_EQ(file->tensors().size(), 0u);
    auto tokens = file->GetArray("tokenizer.ggml.tokens");
    ASSERT_TRUE(tokens.ok()) << tokens.status().message();
    EXPECT_EQ((*tokens)->element_type, ValueType::kString);
    EXPECT_GT((*tokens)->size(), 1000u);
    EXPECT_TRUE(file->GetString("tokenizer.ggml.model").ok());
  }
  EXPECT_GT(n_files, 0) << "no *.gguf in " << dir;
}

TEST(GgufReader, OpenErrorsNameThePath) {
  auto missing = File::Open("/nonexistent/dir/model.gguf");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("/nonexistent/dir/model.gguf"));

  ScratchDir dir("gguf-open");
  const std::string path = dir.File("bad.gguf");
  {
    std::ofstream out(path, std::ios::binary);
    out << "GGML not a gguf file";
  }
  auto bad = File::Open(path);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), path + ": header: magic 'GGML' at byte 0 is not 'GGUF': not a GGUF file");

  const std::string empty = dir.File("empty.gguf");
  { std::ofstream out(empty, std::ios::binary); }
  auto e = File::Open(empty);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(),
            empty + ": header: truncated at byte 0 reading magic (need 4 bytes, file has 0)");
}

TEST(GgufGetters, ErrorsNameKeyAndTypes) {
  auto file = File::Open(BundledModelPath());
  ASSERT_TRUE(file.ok());
  auto s = file->GetString("llama.context_length");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message(), "metadata 'llama.context_length' is uint32, expected string");
  auto u = file->GetUint("general.architecture");
  ASSERT_FALSE(u.ok());
  EXPECT_EQ(u.status().message(), "metadata 'general.architecture' is string, expected an integer");
  auto i = file->GetInt("tokenizer.ggml.tokens");
  ASSERT_FALSE(i.ok());
  EXPECT_EQ(i.status().message(), "metadata 'tokenizer.ggml.tokens' is array, expected an integer");
  auto f = file->GetFloat("llama.block_count");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "metadata 'llama.block_count' is uint32, expected float32 or float64");
  auto b = file->GetBool("general.name");
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().message(), "metadata 'general.name' is string, expected bool");
  auto a = file->GetArray("llama.attention.layer_norm_rms_epsilon");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().message(),
            "metadata 'llama.attention.layer_norm_rms_epsilon' is float32, expected array");
  auto missing = file->GetUint("llama.no_such_key");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "metadata 'llama.no_such_key' is missing");
  EXPECT_EQ(file->Find("llama.no_such_key"), nullptr);
}

TEST(GgufGetters, IntegerRangesAndWidening) {
  Writer w;
  ASSERT_TRUE(w.SetMetadata("neg", Value(int32_t{-5})).ok());
  ASSERT_TRUE(w.SetMetadata("big", Value(uint64_t{0xffffffffffffffff})).ok());
  ASSERT_TRUE(w.SetMetadata("min", Value(int64_t{INT64_MIN})).ok());
  ASSERT_TRUE(w.SetMetadata("u8", Value(uint8_t{200})).ok());
  ASSERT_TRUE(w.SetMetadata("i16", Value(int16_t{-300})).ok());
  ASSERT_TRUE(w.SetMetadata("flag", Value(true)).ok());
  ASSERT_TRUE(w.SetMetadata("f64", Value(2.5)).ok());
  ScratchDir dir("gguf-getters");
  const std::string path = dir.File("getters.gguf");
  ASSERT_TRUE(w.WriteFile(path).ok());
  auto file = File::Open(path);
  ASSERT_TRUE(file.ok()) << file.status().message();

  auto neg_u = file->GetUint("neg");
  ASSERT_FALSE(neg_u.ok());
  EXPECT_EQ(neg_u.status().message(), "metadata 'neg' is int32 -5, expected a non-negative integer");
  auto neg_i = file->GetInt("neg");
  ASSERT_TRUE(neg_i.ok());
  EXPECT_EQ(*neg_i, -5);
  auto big_i = file->GetInt("big");
  ASSERT_FALSE(big_i.ok());
  EXPECT_EQ(big_i.status().message(), "metadata 'big' is uint64 18446744073709551615, which does not fit int64");
  auto big_u = file->GetUint("big");
  ASSERT_TRUE(big_u.ok());
  EXPECT_EQ(*big_u, 0xffffffffffffffffu);
  auto min_i = file->GetInt("min");
  ASSERT_TRUE(min_i.ok());
  EXPECT_EQ(*min_i, INT64_MIN);
  EXPECT_EQ(*file->GetUint("u8"), 200u);
  EXPECT_EQ(*file->GetInt("i16"), -300);
  EXPECT_EQ(*file->GetBool("flag"), true);
  EXPECT_EQ(*file->GetUint("flag"), 1u);
  EXPECT_FLOAT_EQ(*file->GetFloat("f64"), 2.5f);
}

}  // namespace
}  // namespace trit::gguf
