// Random llama models with quantized matrices run through the optimized
// kernel set: logits bit-identical for every chunk size and thread count
// (DESIGN.md contract 2), and close to the reference kernel set (they differ
// by the per-row activation quantization only).
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "model/chunked_logits.h"
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

TEST_P(OptimizedKernelsTest, BatchInvariantAndCloseToTheReference) {
  RandomModelSpec spec;  // llama; rows of 256 and 512 fit every block size
  spec.n_embd = 256;
  spec.n_ff = 512;
  spec.n_head = 4;
  spec.n_head_kv = 2;
  spec.n_rot = 64;
  spec.embd_std = 0.5f;
  spec.matrix_type = GetParam();
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
                                           quant::GgmlType::kQ4_K, quant::GgmlType::kF16),
                         [](const ::testing::TestParamInfo<quant::GgmlType>& info) {
                           return std::string(quant::GetType(info.param).name);
                         });

}  // namespace
}  // namespace trit::testing
