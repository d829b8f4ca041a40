// Binds weights by name with shape and type checked. The first failure is
// kept and later calls do nothing, so an architecture lists its tensors
// straight down and checks status() once:
//   tensor 'blk.0.attn_q.weight': shape [64, 32], expected [64, 64]
//   tensor 'blk.0.ffn_up.weight' not found (architecture 'llama')
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "formats/gguf/reader.h"
#include "kernels/matmul.h"

namespace trit::model {

class TensorBinder {
 public:
  TensorBinder(const gguf::File& file, std::string architecture) : file_(file), arch_(std::move(architecture)) {}

  // A weight matrix of GGUF shape [n_cols, n_rows] of any type with a dequantizer.
  kernels::Matrix Matrix(const std::string& name, int64_t n_cols, int64_t n_rows);
  // The n_expert slices of a 3-D tensor of GGUF shape [n_cols, n_rows,
  // n_expert] (an MoE block's ffn_*_exps), each a matrix viewed in place.
  std::vector<kernels::Matrix> Experts(const std::string& name, int64_t n_cols, int64_t n_rows, int64_t n_expert);
  // A vector of n f32 elements (norm weights, biases).
  const float* Vector(const std::string& name, int64_t n);
  // An f32 tensor of GGUF shape [n_cols, n_rows] read as floats (qwen35's conv kernels).
  const float* FloatMatrix(const std::string& name, int64_t n_cols, int64_t n_rows);

  bool Has(const std::string& name) const { return file_.FindTensor(name) != nullptr; }
  const Status& status() const { return status_; }

 private:
  // The tensor when present with exactly `shape`; records the error otherwise.
  const gguf::TensorInfo* Find(const std::string& name, const std::vector<int64_t>& shape);
  const float* Floats(const std::string& name, const std::vector<int64_t>& shape);

  const gguf::File& file_;
  std::string arch_;
  Status status_;
};

}  // namespace trit::model
