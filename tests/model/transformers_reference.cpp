#include "model/transformers_reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "model/chunked_logits.h"
#include "test_paths.h"

namespace trit::testing {

std::unique_ptr<model::Model> LoadSourceModel(const char* path, kernels::KernelSet set) {
  Expected<std::unique_ptr<model::Model>> m = model::LoadModel(SourcePath(path), {.kernels = set});
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? std::move(*m) : nullptr;
}

nlohmann::json ReadExpectedLogits(const char* path) {
  std::ifstream in(SourcePath(path));
  return nlohmann::json::parse(in);
}

std::vector<int32_t> SequenceIds(const nlohmann::json& sequence) {
  return sequence["ids"].get<std::vector<int32_t>>();
}

void ExpectLogitsMatchTransformers(const char* model_path, const char* logits_path, float tolerance) {
  const nlohmann::json ref = ReadExpectedLogits(logits_path);
  for (kernels::KernelSet set : {kernels::KernelSet::kOptimized, kernels::KernelSet::kReference}) {
    std::unique_ptr<model::Model> m = LoadSourceModel(model_path, set);
    ASSERT_NE(m, nullptr);
    for (const nlohmann::json& seq : ref["sequences"]) {
      const std::vector<int32_t> ids = SequenceIds(seq);
      const std::vector<float> got = ChunkedLogits(*m, ids, ids.size(), 1, kernels::KvType::kF32);
      const int64_t n_vocab = m->hparams().n_vocab;
      float worst = 0.0f;
      for (size_t r = 0; r < ids.size(); ++r) {
        const std::vector<float> want = seq["logits"][r].get<std::vector<float>>();
        ASSERT_EQ(static_cast<int64_t>(want.size()), n_vocab);
        for (int64_t t = 0; t < n_vocab; ++t) {
          worst = std::max(worst, std::abs(got[r * n_vocab + t] - want[static_cast<size_t>(t)]));
        }
      }
      EXPECT_LE(worst, tolerance) << model_path << ", kernels " << kernels::KernelSetName(set) << ", " << ids.size()
                                  << " tokens";
    }
  }
}

}  // namespace trit::testing
