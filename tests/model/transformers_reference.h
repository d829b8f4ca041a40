// Shared by the tests of architectures checked against transformers: a
// source-tree model file loaded with a kernel set, the expected_logits.json
// beside it (transformers' float32 logits of every row of a few token
// sequences, written by tests/data/hf/make_*.py), and the check of every
// row against it.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <vector>

#include "model/model.h"

namespace trit::testing {

// The model at `path` (relative to the source tree); nullptr and a test
// failure when it does not load.
std::unique_ptr<model::Model> LoadSourceModel(const char* path,
                                              kernels::KernelSet set = kernels::KernelSet::kOptimized);

// expected_logits.json at `path`: {"sequences": [{"ids", "logits"}]}.
nlohmann::json ReadExpectedLogits(const char* path);
std::vector<int32_t> SequenceIds(const nlohmann::json& sequence);

// Every sequence of `logits_path` through the model of `model_path`, both
// kernel sets, an f32 cache, all rows in one pass: every logit within
// `tolerance` of transformers'.
void ExpectLogitsMatchTransformers(const char* model_path, const char* logits_path, float tolerance);

}  // namespace trit::testing
