// Writes small llama-family GGUF models with random weights (gguf::Writer),
// for forward-pass tests, malformed-model tests and the numpy cross-check.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "quant/types.h"

namespace trit::testing {

struct RandomModelSpec {
  std::string architecture = "llama";  // written as general.architecture
  int64_t n_vocab = 48;
  int64_t n_embd = 64;
  int64_t n_layer = 2;
  int64_t n_head = 4;
  int64_t n_head_kv = 2;
  int64_t n_ff = 96;
  int64_t n_rot = 16;      // <= head_dim (n_embd / n_head)
  int64_t n_ctx = 256;
  bool tied = false;       // no output.weight
  bool qkv_bias = false;   // qwen2-style biases
  bool qk_norm = false;    // qwen3-style q/k norms
  quant::GgmlType matrix_type = quant::GgmlType::kF32;
  std::string skip_tensor;   // not written (a missing-tensor model)
  std::string wrong_tensor;  // written with its last dimension halved
  uint64_t seed = 1;
};

Status WriteRandomModel(const RandomModelSpec& spec, const std::string& path);

}  // namespace trit::testing
