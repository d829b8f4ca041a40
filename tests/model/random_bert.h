// Writes small BERT GGUF files (the layout llama.cpp's converter and trit
// convert write) with random weights, for the encoder's forward-pass tests,
// malformed-model tests and the embedding batcher's tests. A tokenizer only
// when `vocab_gguf` names a vocabulary file to take it from.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "quant/types.h"

namespace trit::testing {

struct RandomBertSpec {
  int64_t n_vocab = 50;
  int64_t n_embd = 64;
  int64_t n_layer = 2;
  int64_t n_head = 4;
  int64_t n_ff = 128;
  int64_t n_ctx = 96;            // rows of position_embd: the longest text
  int64_t pooling_type = 1;      // bert.pooling_type; < 0: not written
  bool causal = false;           // bert.attention.causal
  int64_t head_count_kv = 0;     // > 0: bert.attention.head_count_kv written
  quant::GgmlType matrix_type = quant::GgmlType::kF32;  // the layers' weight matrices
  std::string skip_tensor;       // not written
  // A GGUF whose tokenizer.* metadata is copied in (n_vocab becomes its
  // token count), e.g. tests/data/vocab/ggml-vocab-bert-bge.gguf.
  std::string vocab_gguf;
  uint64_t seed = 1;
};

Status WriteRandomBert(const RandomBertSpec& spec, const std::string& path);

}  // namespace trit::testing
