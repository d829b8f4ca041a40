// Binds weights by name with shape and type checked. The first failure is
// kept and later calls do nothing, so an architecture lists its tensors
// straight down and checks status() once:
//   tensor 'blk.0.attn_q.weight': shape [64, 32], expected [64, 64]
//   tensor 'blk.0.ffn_up.weight' not found (architecture 'llama')
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "formats/gguf/reader.h"
#include "kernels/matmul.h"

namespace trit::model {

// Matrices rewritten at load because the file's type has no kernel of its
// own: I2_S ones as TQ2_0 blocks with d = 1 (quant/i2s_quants.h), the same
// ternary codes, their one scale kept apart to multiply the projection's
// output. Owned by the model's weights; a buffer is freed once nothing reads
// it (the row-group copy replaced it).
struct ConvertedWeights {
  std::vector<std::unique_ptr<uint8_t[]>> buffers;
  std::map<std::string, float> scales;  // weight name -> its per-tensor scale (node addresses are stable)
  std::vector<std::string> unclaimed;   // I2_S weights whose scale no OutputScale call has taken yet

  // Frees the buffers no matrix of `live` points into any more.
  void ReleaseUnused(std::span<const kernels::Matrix* const> live);
};

class TensorBinder {
 public:
  TensorBinder(const gguf::File& file, std::string architecture) : file_(file), arch_(std::move(architecture)) {}
  // With `converted`, I2_S matrices are read (into it); without, they are
  // refused: only architectures that apply per-tensor output scales pass one.
  TensorBinder(const gguf::File& file, std::string architecture, ConvertedWeights* converted)
      : file_(file), arch_(std::move(architecture)), converted_(converted) {}

  // A weight matrix of GGUF shape [n_cols, n_rows] of any type with a
  // dequantizer, or I2_S (see ConvertedWeights; n_cols a multiple of 256).
  kernels::Matrix Matrix(const std::string& name, int64_t n_cols, int64_t n_rows);
  // The per-tensor output scale of weight `weight` (1 element) when it has
  // one: the f32 tensor `scale_name` of the file, the scale of an I2_S
  // `weight`, or their product when both exist; nullptr when neither.
  // `weight` must have been bound by Matrix first.
  const float* OutputScale(const std::string& weight, const std::string& scale_name);
  // The n_expert slices of a 3-D tensor of GGUF shape [n_cols, n_rows,
  // n_expert] (an MoE block's ffn_*_exps), each a matrix viewed in place.
  std::vector<kernels::Matrix> Experts(const std::string& name, int64_t n_cols, int64_t n_rows, int64_t n_expert);
  // A vector of n f32 elements (norm weights, biases).
  const float* Vector(const std::string& name, int64_t n);
  // An f32 tensor of GGUF shape [n_cols, n_rows] read as floats (qwen35's conv kernels).
  const float* FloatMatrix(const std::string& name, int64_t n_cols, int64_t n_rows);

  // An error naming the first I2_S matrix whose scale nothing took (a
  // token embedding, say, whose lookups have no place to apply it).
  Status CheckScalesClaimed() const;

  bool Has(const std::string& name) const { return file_.FindTensor(name) != nullptr; }
  const Status& status() const { return status_; }

 private:
  // The tensor when present with exactly `shape`; records the error otherwise.
  const gguf::TensorInfo* Find(const std::string& name, const std::vector<int64_t>& shape);
  const float* Floats(const std::string& name, const std::vector<int64_t>& shape);

  kernels::Matrix ConvertI2S(const gguf::TensorInfo& t, int64_t n_cols, int64_t n_rows);

  const gguf::File& file_;
  std::string arch_;
  ConvertedWeights* converted_ = nullptr;
  Status status_;
};

}  // namespace trit::model
