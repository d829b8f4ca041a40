#include "model/tensor_binder.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace trit::model {

const gguf::TensorInfo* TensorBinder::Find(const std::string& name, const std::vector<int64_t>& shape) {
  if (!status_.ok()) return nullptr;
  const gguf::TensorInfo* t = file_.FindTensor(name);
  if (t == nullptr) {
    status_ = Error(ErrorCode::kNotFound, "tensor '{}' not found (architecture '{}')", name, arch_);
    return nullptr;
  }
  if (t->shape != shape) {
    status_ = Error(ErrorCode::kCorrupt, "tensor '{}': shape [{}], expected [{}]", name, fmt::join(t->shape, ", "),
                    fmt::join(shape, ", "));
    return nullptr;
  }
  return t;
}

kernels::Matrix TensorBinder::Matrix(const std::string& name, int64_t n_cols, int64_t n_rows) {
  const gguf::TensorInfo* t = Find(name, {n_cols, n_rows});
  if (t == nullptr) return {};
  if (t->type->dequantize == nullptr) {
    status_ = Error(ErrorCode::kUnsupported, "tensor '{}': type {} cannot be computed by trit yet", name, t->type->name);
    return {};
  }
  const std::span<const uint8_t> bytes = file_.TensorData(*t);
  return kernels::Matrix{t->type, bytes.data(), n_cols, n_rows, t->n_bytes / static_cast<uint64_t>(n_rows)};
}

std::vector<kernels::Matrix> TensorBinder::Experts(const std::string& name, int64_t n_cols, int64_t n_rows,
                                                   int64_t n_expert) {
  const gguf::TensorInfo* t = Find(name, {n_cols, n_rows, n_expert});
  if (t == nullptr) return {};
  if (t->type->dequantize == nullptr) {
    status_ = Error(ErrorCode::kUnsupported, "tensor '{}': type {} cannot be computed by trit yet", name, t->type->name);
    return {};
  }
  const std::span<const uint8_t> bytes = file_.TensorData(*t);
  const uint64_t row_bytes = t->n_bytes / static_cast<uint64_t>(n_rows * n_expert);
  std::vector<kernels::Matrix> experts(static_cast<size_t>(n_expert));
  for (int64_t e = 0; e < n_expert; ++e) {
    experts[static_cast<size_t>(e)] = kernels::Matrix{t->type, bytes.data() + static_cast<uint64_t>(e * n_rows) * row_bytes,
                                                      n_cols, n_rows, row_bytes};
  }
  return experts;
}

const float* TensorBinder::Vector(const std::string& name, int64_t n) { return Floats(name, {n}); }

const float* TensorBinder::FloatMatrix(const std::string& name, int64_t n_cols, int64_t n_rows) {
  return Floats(name, {n_cols, n_rows});
}

const float* TensorBinder::Floats(const std::string& name, const std::vector<int64_t>& shape) {
  const gguf::TensorInfo* t = Find(name, shape);
  if (t == nullptr) return nullptr;
  if (t->type->type != quant::GgmlType::kF32) {
    status_ = Error(ErrorCode::kUnsupported, "tensor '{}': type {}, expected f32", name, t->type->name);
    return nullptr;
  }
  const std::span<const uint8_t> bytes = file_.TensorData(*t);
  if (reinterpret_cast<uintptr_t>(bytes.data()) % alignof(float) != 0) {
    status_ = Error(ErrorCode::kUnsupported, "tensor '{}': data is not 4-byte aligned", name);
    return nullptr;
  }
  return reinterpret_cast<const float*>(bytes.data());
}

}  // namespace trit::model
