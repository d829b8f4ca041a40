// The weight matrices of a GGUF model that a pack's ops compute on the
// device: every 2-D tensor of a layer (blk.<L>.<role>), and the output head
// (output.weight, or token_embd.weight when the model ties its embeddings).
// `pack make` plans them and `pack check` refuses a plan that leaves one
// out, by this one rule.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "formats/gguf/reader.h"

namespace trit::pack {

struct ModelMatrix {
  std::string name;              // the tensor's name
  std::string role;              // "attn_q.weight"; "lmhead" for the output head
  std::optional<int64_t> layer;  // the layer, for tensors blk.<L>.*
  int64_t k = 0;                 // columns (GGUF shape[0])
  int64_t n = 0;                 // rows (shape[1])
};

// In file order, the output head last.
std::vector<ModelMatrix> ModelMatrices(const gguf::File& file);

}  // namespace trit::pack
