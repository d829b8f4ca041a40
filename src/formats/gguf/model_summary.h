// A GGUF file's headline facts beyond its raw metadata: the architecture's
// hyper-parameters (read from "<arch>.*" keys), parameter count and bytes
// per tensor type. What `trit show` and `trit models` report.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/gguf/reader.h"

namespace trit::gguf {

struct TypeUsage {
  std::string type;     // GGML type name
  uint64_t tensors = 0;
  uint64_t bytes = 0;
  uint64_t elements = 0;
};

struct ModelSummary {
  std::string architecture;  // general.architecture; empty when absent
  std::string name;          // general.name; empty when absent
  uint64_t parameters = 0;   // elements of all tensors
  uint64_t tensor_bytes = 0;
  std::vector<TypeUsage> types;  // by type id
  std::optional<uint64_t> context_length;
  std::optional<uint64_t> block_count;
  std::optional<uint64_t> embedding_length;
  std::optional<uint64_t> feed_forward_length;
  std::optional<uint64_t> head_count;
  std::optional<uint64_t> head_count_kv;
  // Set instead of the scalar when the file gives one value per layer
  // (Gemma 4: double-wide MLPs of shared-KV layers, full layers' KV heads).
  std::vector<uint64_t> feed_forward_per_layer;
  std::vector<uint64_t> head_count_kv_per_layer;
  // Mixture of experts ({arch}.expert_count, expert_used_count,
  // expert_feed_forward_length); absent for a dense model.
  std::optional<uint64_t> expert_count;
  std::optional<uint64_t> expert_used_count;
  std::optional<uint64_t> expert_feed_forward_length;
  std::string tokenizer_model;  // tokenizer.ggml.model; empty when absent
  uint64_t vocab_size = 0;      // length of tokenizer.ggml.tokens
  bool has_chat_template = false;
};

ModelSummary Summarize(const gguf::File& file);

}  // namespace trit::gguf
