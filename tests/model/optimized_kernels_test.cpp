// Random llama models with quantized matrices run through the optimized
// kernel set: logits bit-identical for every chunk size and thread count
// (docs/DESIGN.md contract 2), and close to the reference kernel set (they differ
// by the per-row activation quantization only).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <algorithm>
#include <cstring>
#include <filesystem>

#include "formats/gguf/reader.h"
#include "kernels/repack.h"
#include "model/chunked_logits.h"
#include "model/decoder.h"
#include "model/model.h"
#include "model/random_model.h"
#include "runtime/session.h"

namespace trit::testing {
namespace {

const std::vector<int32_t> kIds = {1, 5, 9, 33, 47, 0, 3, 17, 22, 40, 41, 2, 8, 13, 29, 31, 7, 44, 12, 19,
                                   26, 38, 4, 46, 11, 20, 35, 6, 15, 27, 39, 42, 10, 23, 30, 36, 14};

std::vector<float> Chunked(const model::Model& m, size_t chunk, int n_threads) {
  return ChunkedLogits(m, kIds, chunk, n_threads);
}

class OptimizedKernelsTest : public ::testing::TestWithParam<quant::GgmlType> {
 protected:
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_ =
      std::filesystem::temp_directory_path() / ("trit-optimized-test-" + std::to_string(::getpid()));
};

// A llama model with matrices of `type`; rows of 256 and 512 fit every block size.
RandomModelSpec SpecOf(quant::GgmlType type) {
  RandomModelSpec spec;
  spec.n_embd = 256;
  spec.n_ff = 512;
  spec.n_head = 4;
  spec.n_head_kv = 2;
  spec.n_rot = 64;
  spec.embd_std = 0.5f;
  spec.matrix_type = type;
  return spec;
}

std::string TypeName(const ::testing::TestParamInfo<quant::GgmlType>& info) {
  return std::string(quant::GetType(info.param).name);
}

TEST_P(OptimizedKernelsTest, BatchInvariantAndCloseToTheReference) {
  const RandomModelSpec spec = SpecOf(GetParam());
  std::filesystem::create_directories(dir_);
  const std::string path = (dir_ / "m.gguf").string();
  ASSERT_TRUE(WriteRandomModel(spec, path).ok());
  auto fast = model::LoadModel(path);
  auto ref = model::LoadModel(path, {kernels::KernelSet::kReference});
  ASSERT_TRUE(fast.ok() && ref.ok());

  const std::vector<float> all = Chunked(**fast, kIds.size(), 2);
  for (size_t chunk : {1, 3, 7}) {
    for (int threads : {1, 3}) {
      EXPECT_TRUE(SameBits(Chunked(**fast, chunk, threads), all)) << "chunk " << chunk << " threads " << threads;
    }
  }
  const std::vector<float> reference = Chunked(**ref, kIds.size(), 2);
  ASSERT_EQ(reference.size(), all.size());
  double worst = 0.0, scale = 0.0;
  for (size_t i = 0; i < all.size(); ++i) {
    ASSERT_TRUE(std::isfinite(all[i]));
    worst = std::max(worst, std::abs(static_cast<double>(all[i]) - reference[i]));
    scale = std::max(scale, std::abs(static_cast<double>(reference[i])));
  }
  RecordProperty("worst_abs_difference", std::to_string(worst));
  EXPECT_LE(worst, 0.05 * scale + 1e-3) << "largest logit " << scale;
}

INSTANTIATE_TEST_SUITE_P(Types, OptimizedKernelsTest,
                         ::testing::Values(quant::GgmlType::kTQ2_0, quant::GgmlType::kTQ1_0, quant::GgmlType::kQ4_0,
                                           quant::GgmlType::kQ8_0, quant::GgmlType::kQ2_K, quant::GgmlType::kQ3_K,
                                           quant::GgmlType::kQ4_K, quant::GgmlType::kQ5_K, quant::GgmlType::kQ6_K, quant::GgmlType::kIQ4_NL,
                                           quant::GgmlType::kIQ4_XS, quant::GgmlType::kF16),
                         TypeName);

// A tied embedding in row groups (the output matmul reads the groups, the
// lookups read rows out of them): the same logits, bit for bit, as the
// untied file whose output.weight is a copy of token_embd (the output in row
// groups, the embedding in row layout), for every chunk size and thread
// count. 33,005 tokens: two or three 4 MiB repack slices (by type) and five
// rows after the groups; the ids look up rows of the first and last slices
// and after the groups.
class TiedEmbeddingTest : public OptimizedKernelsTest {};

TEST_P(TiedEmbeddingTest, InRowGroupsSameBitsAsAnUntiedCopy) {
  RandomModelSpec spec = SpecOf(GetParam());
  spec.n_vocab = 33005;
  spec.tied = true;
  std::filesystem::create_directories(dir_);
  const std::string tied_path = (dir_ / "tied.gguf").string();
  const std::string untied_path = (dir_ / "untied.gguf").string();
  ASSERT_TRUE(WriteRandomModel(spec, tied_path).ok());
  ASSERT_TRUE(WriteUntiedCopy(tied_path, untied_path).ok());

  // The tied embedding is repacked with the output it is (on a CPU with
  // row-group kernels), the two stay one matrix, and every row read out of
  // it, across the slices, is the file's row.
  Expected<gguf::File> f = gguf::File::Open(tied_path);
  ASSERT_TRUE(f.ok());
  Expected<model::HParams> h = model::ReadHParams(*f, "llama", kernels::RopeMode::kNormal);
  ASSERT_TRUE(h.ok());
  Expected<model::DecoderWeights> w = model::BindDecoderWeights(*f, *h, {});
  ASSERT_TRUE(w.ok());
  const bool repacks = kernels::ShouldRepack(w->token_embd);
  const kernels::Matrix file_rows = w->token_embd;
  model::RepackForOptimizedKernels(*w);
  EXPECT_EQ(w->token_embd.layout == kernels::WeightLayout::kRowGroups8, repacks);
  EXPECT_EQ(w->output.data, w->token_embd.data);
  std::vector<uint8_t> row(file_rows.row_bytes);
  for (int64_t r = 0; r < spec.n_vocab; ++r) {
    kernels::CopyRow(w->token_embd, r, row.data());
    const uint8_t* want = file_rows.data + static_cast<uint64_t>(r) * file_rows.row_bytes;  // read back from the file
    ASSERT_TRUE(std::equal(row.begin(), row.end(), want)) << "row " << r;
  }

  auto tied = model::LoadModel(tied_path);
  auto untied = model::LoadModel(untied_path);
  ASSERT_TRUE(tied.ok() && untied.ok());
  std::vector<int32_t> ids = kIds;
  for (int32_t id : {33004, 15417, 33000, 29120, 33003, 32999}) ids.push_back(id);
  const std::vector<float> want = ChunkedLogits(**untied, ids, ids.size(), 2);
  for (size_t chunk : {ids.size(), size_t{1}, size_t{3}, size_t{7}}) {
    for (int threads : {1, 3}) {
      EXPECT_TRUE(SameBits(ChunkedLogits(**tied, ids, chunk, threads), want))
          << "chunk " << chunk << " threads " << threads;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Types, TiedEmbeddingTest,
                         ::testing::Values(quant::GgmlType::kQ8_0, quant::GgmlType::kQ4_0, quant::GgmlType::kQ5_0,
                                           quant::GgmlType::kQ4_K, quant::GgmlType::kQ6_K, quant::GgmlType::kF16),
                         TypeName);

}  // namespace
}  // namespace trit::testing
