#include "model/tensor_binder.h"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/mapped_file.h"
#include "quant/block_formats.h"
#include "quant/i2s_quants.h"

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
  if (t->type->type == quant::GgmlType::kI2_S) return ConvertI2S(*t, n_cols, n_rows);
  if (t->type->dequantize == nullptr) {
    status_ = Error(ErrorCode::kUnsupported, "tensor '{}': type {} cannot be computed by trit yet", name, t->type->name);
    return {};
  }
  const std::span<const uint8_t> bytes = file_.TensorData(*t);
  return kernels::Matrix{t->type, bytes.data(), n_cols, n_rows, t->n_bytes / static_cast<uint64_t>(n_rows)};
}

kernels::Matrix TensorBinder::ConvertI2S(const gguf::TensorInfo& t, int64_t n_cols, int64_t n_rows) {
  if (converted_ == nullptr) {
    status_ = Error(ErrorCode::kUnsupported,
                    "tensor '{}': type i2_s (BitNet) is read by the bitnet architectures, whose projections take "
                    "a per-tensor scale, not by '{}'",
                    t.name, arch_);
    return {};
  }
  if (n_cols % quant::kQK_K != 0) {
    status_ = Error(ErrorCode::kUnsupported,
                    "tensor '{}': i2_s rows of {} values: trit runs i2_s as tq2_0 blocks of 256 values, so the row "
                    "length must be a multiple of 256",
                    t.name, n_cols);
    return {};
  }
  const std::span<const uint8_t> bytes = file_.TensorData(t);
  const quant::TypeInfo& tq2 = quant::GetType(quant::GgmlType::kTQ2_0);
  const uint64_t row_bytes = static_cast<uint64_t>(n_cols / quant::kQK_K) * static_cast<uint64_t>(tq2.type_size);
  // Not zeroed first: every byte of every block is written below.
  auto buffer = std::make_unique_for_overwrite<uint8_t[]>(row_bytes * static_cast<uint64_t>(n_rows));
  for (int64_t r = 0; r < n_rows; ++r) {
    quant::I2SRowToTQ2_0(bytes, n_cols, r, buffer.get() + static_cast<uint64_t>(r) * row_bytes);
  }
  const float scale = quant::I2SScale(bytes);
  if (!std::isfinite(scale)) {
    status_ = Error(ErrorCode::kCorrupt, "tensor '{}': i2_s scale is {}", t.name, scale);
    return {};
  }
  converted_->scales[t.name] = scale;
  converted_->unclaimed.push_back(t.name);
  // Nothing reads the file's copy again: its pages leave the process's
  // memory now, not when the mapping goes (a 2B4T file's ternary half).
  ReleaseMappedPages(bytes);
  const kernels::Matrix m{&tq2, buffer.get(), n_cols, n_rows, row_bytes};
  converted_->buffers.push_back(std::move(buffer));
  return m;
}

Status TensorBinder::CheckScalesClaimed() const {
  if (!status_.ok()) return status_;
  if (converted_ == nullptr || converted_->unclaimed.empty()) return Status::Ok();
  return Error(ErrorCode::kUnsupported,
               "tensor '{}': type i2_s keeps one scale for the whole tensor, and architecture '{}' has no "
               "per-tensor scale for this weight (bitnet.cpp keeps embeddings in f16)",
               converted_->unclaimed.front(), arch_);
}

void ConvertedWeights::ReleaseUnused(std::span<const kernels::Matrix* const> live) {
  std::erase_if(buffers, [&](const std::unique_ptr<uint8_t[]>& b) {
    for (const kernels::Matrix* m : live) {
      if (m->data == b.get()) return false;
    }
    return true;
  });
}

const float* TensorBinder::OutputScale(const std::string& weight, const std::string& scale_name) {
  if (!status_.ok()) return nullptr;
  const float* file_scale = Has(scale_name) ? Vector(scale_name, 1) : nullptr;
  if (!status_.ok()) return nullptr;
  if (converted_ == nullptr) return file_scale;
  const auto it = converted_->scales.find(weight);
  if (it == converted_->scales.end()) return file_scale;
  std::erase(converted_->unclaimed, weight);
  if (file_scale != nullptr) it->second *= *file_scale;
  return &it->second;
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
