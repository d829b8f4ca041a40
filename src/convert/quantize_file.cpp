#include "convert/quantize_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string_view>
#include <thread>
#include <utility>

#include "formats/gguf/writer.h"
#include "quant/i2s_quants.h"

namespace trit::convert {
namespace {

// The weight whose per-tensor scale `name` is ("blk.0.attn_q.scale" ->
// "blk.0.attn_q.weight"); empty for other names.
std::string WeightOfScale(const std::string& name) {
  constexpr std::string_view kSuffix = ".scale";
  if (name.size() <= kSuffix.size() || name.compare(name.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
    return {};
  }
  return name.substr(0, name.size() - kSuffix.size()) + ".weight";
}

// The one float of an f32 [1] tensor, if `t` is one.
std::optional<float> ScalarOf(const gguf::File& file, const gguf::TensorInfo& t) {
  if (t.type->type != quant::GgmlType::kF32 || t.n_elements != 1) return std::nullopt;
  float v;
  std::memcpy(&v, file.TensorData(t).data(), sizeof v);
  return v;
}

// A tensor to or from I2_S, whose one scale is the whole tensor's. To I2_S:
// the values dequantized, the weight's own `.scale` (multiplier) folded in,
// bitnet.cpp's rule (refusing values that are not ternary). From I2_S to
// TQ1_0/TQ2_0: the ternary values with d = 1 per block (the I2_S scale goes
// to a `.scale` tensor, so nothing is rounded); to other types: the scaled
// values.
Status ConvertWholeI2S(const gguf::File& file, const TensorPlan& plan, float multiplier, std::span<uint8_t> out) {
  const gguf::TensorInfo& t = *plan.tensor;
  const quant::TypeInfo& from = *t.type;
  const quant::TypeInfo& to = *plan.target;
  const int64_t row = t.shape[0];
  const int64_t n_rows = t.n_elements / row;
  const std::span<const uint8_t> src = file.TensorData(t);
  std::vector<float> values(static_cast<size_t>(t.n_elements));
  if (from.type == quant::GgmlType::kI2_S) {
    if (IsBlockTernary(to.type)) {
      std::vector<int8_t> ternary(values.size());
      quant::UnpackI2S(src.data(), ternary.data(), t.n_elements);
      for (size_t i = 0; i < values.size(); ++i) values[i] = ternary[i];
    } else {
      quant::DequantizeI2S(src, values.data(), t.n_elements);
    }
  } else {
    const uint64_t from_row_bytes = *quant::RowBytes(from, row);
    for (int64_t r = 0; r < n_rows; ++r) from.dequantize(src.data() + r * from_row_bytes, values.data() + r * row, row);
  }
  if (to.type == quant::GgmlType::kI2_S) {
    if (Status s = quant::QuantizeI2S(values.data(), t.n_elements, multiplier, out); !s.ok()) {
      return s.WithContext(fmt::format("tensor '{}'", t.name));
    }
    return Status::Ok();
  }
  const uint64_t to_row_bytes = *quant::RowBytes(to, row);
  for (int64_t r = 0; r < n_rows; ++r) to.quantize(values.data() + r * row, out.data() + r * to_row_bytes, row);
  return Status::Ok();
}

// Dequantizes the source tensor to f32 and quantizes it into `out`, rows
// split over `n_threads` threads. Both types' blocks never straddle a row
// (the reader and the plan checked the row length), and the quantizers are
// row-independent, so the bytes do not depend on the thread count.
void ConvertTensor(const gguf::File& file, const TensorPlan& plan, std::span<uint8_t> out, int n_threads) {
  const gguf::TensorInfo& t = *plan.tensor;
  const quant::TypeInfo& from = *t.type;
  const quant::TypeInfo& to = *plan.target;
  const int64_t row = t.shape[0];
  const int64_t n_rows = t.n_elements / row;
  const uint64_t from_row_bytes = *quant::RowBytes(from, row);
  const uint64_t to_row_bytes = *quant::RowBytes(to, row);
  const uint8_t* src = file.TensorData(t).data();
  // Rows per matrix: a 3-D tensor's experts each have their own importance row.
  const int64_t rows_per_matrix = t.shape.size() > 1 ? t.shape[1] : 1;
  auto convert_rows = [&](int64_t first, int64_t last) {
    std::vector<float> values(static_cast<size_t>(row));
    for (int64_t r = first; r < last; ++r) {
      from.dequantize(src + r * from_row_bytes, values.data(), row);
      if (plan.importance != nullptr) {
        const float* weights = plan.importance->data() + (r / rows_per_matrix) * row;
        to.quantize_weighted(values.data(), out.data() + r * to_row_bytes, row, weights);
      } else {
        to.quantize(values.data(), out.data() + r * to_row_bytes, row);
      }
    }
  };
  const int64_t n_workers = std::clamp<int64_t>(n_threads, 1, n_rows);
  std::vector<std::thread> workers;
  for (int64_t w = 1; w < n_workers; ++w) {
    workers.emplace_back(convert_rows, n_rows * w / n_workers, n_rows * (w + 1) / n_workers);
  }
  convert_rows(0, n_rows / n_workers);
  for (std::thread& w : workers) w.join();
}

// Points each plan that can use one at its importance entry. Errors on an
// entry whose size does not match its tensor, and when tensors could take
// weights but no entry names any of them (a matrix made for another model
// would otherwise change nothing, silently).
Status AttachImportance(const ImportanceMatrix& m, std::vector<TensorPlan>* plans) {
  size_t could = 0;
  size_t attached = 0;
  for (TensorPlan& p : *plans) {
    if (p.action != TensorAction::kConvert || p.target->quantize_weighted == nullptr) continue;
    ++could;
    const auto it = m.entries.find(p.tensor->name);
    if (it == m.entries.end()) continue;
    const std::vector<int64_t>& shape = p.tensor->shape;
    const int64_t expected = shape[0] * (shape.size() > 2 ? shape[2] : 1);
    if (static_cast<int64_t>(it->second.size()) != expected) {
      if (p.tensor->name == "token_embd.weight") continue;
      return Error(ErrorCode::kInvalidArgument,
                   "the importance matrix has {} values for tensor '{}', which needs {} (row length {}{}): "
                   "is it from another model?",
                   it->second.size(), p.tensor->name, expected, shape[0],
                   shape.size() > 2 ? fmt::format(" x {} matrices", shape[2]) : std::string());
    }
    p.importance = &it->second;
    ++attached;
  }
  if (could > 0 && attached == 0) {
    return Error(ErrorCode::kInvalidArgument,
                 "none of the importance matrix's {} entries (e.g. '{}') names one of the {} tensors to be "
                 "quantized with importance weights: is it from another model?",
                 m.entries.size(), m.entries.begin()->first, could);
  }
  return Status::Ok();
}

// llama-quantize's record of the importance matrix in the file it writes.
void RecordImportance(const ImportanceMatrix& m, gguf::Writer* writer) {
  (void)writer->SetMetadata("quantize.imatrix.file", gguf::Value(m.path));
  if (!m.datasets.empty()) (void)writer->SetMetadata("quantize.imatrix.dataset", gguf::Value(m.datasets[0]));
  (void)writer->SetMetadata("quantize.imatrix.entries_count", gguf::Value(static_cast<uint32_t>(m.entries.size())));
  if (m.chunk_count > 0) {
    (void)writer->SetMetadata("quantize.imatrix.chunks_count", gguf::Value(static_cast<uint32_t>(m.chunk_count)));
  }
}

}  // namespace

Expected<std::vector<TensorPlan>> QuantizeFile(const gguf::File& input, const quant::TypeInfo& requested,
                                               const std::string& output, const QuantizeFileOptions& options) {
  Expected<std::vector<TensorPlan>> plans = PlanQuantization(input.tensors(), requested, options.fallback);
  if (!plans.ok()) return plans.status().WithContext(input.path());
  if (options.importance != nullptr) {
    if (Status s = AttachImportance(*options.importance, &*plans); !s.ok()) return s.WithContext(input.path());
  }

  gguf::Writer writer(input.header().alignment);
  for (const gguf::MetadataEntry& e : input.metadata()) {
    if (Status s = writer.SetMetadata(e.key, e.value); !s.ok()) return s.WithContext(input.path());
  }
  bool any_converted = false;
  for (const TensorPlan& p : *plans) any_converted |= p.action == TensorAction::kConvert;
  if (any_converted) {
    (void)writer.SetMetadata("general.quantization_version", gguf::Value(uint32_t{2}));
    if (const int ftype = LlamaFileType(requested.type); ftype >= 0) {
      (void)writer.SetMetadata("general.file_type", gguf::Value(static_cast<uint32_t>(ftype)));
    }
  }
  if (options.importance != nullptr) RecordImportance(*options.importance, &writer);

  // Per-tensor scales around I2_S (ConvertWholeI2S): a weight going to I2_S
  // takes its `.scale` tensor into its own scale, so that tensor is dropped;
  // an I2_S weight going to TQ1_0/TQ2_0 leaves its scale in a `.scale`
  // tensor (its existing one, multiplied, or a new one after it).
  std::map<std::string, const gguf::TensorInfo*> scale_of;  // weight name -> its f32 [1] `.scale` tensor
  for (const gguf::TensorInfo& t : input.tensors()) {
    const std::string w = WeightOfScale(t.name);
    if (!w.empty() && input.FindTensor(w) != nullptr && ScalarOf(input, t)) scale_of[w] = &t;
  }
  std::set<std::string> folded;                 // `.scale` tensors taken into an I2_S weight
  std::map<std::string, float> ternary_scales;  // I2_S weight going to TQ1_0/TQ2_0 -> its scale
  for (const TensorPlan& p : *plans) {
    if (p.action != TensorAction::kConvert) continue;
    const auto it = scale_of.find(p.tensor->name);
    const float own = it != scale_of.end() ? *ScalarOf(input, *it->second) : 1.0f;
    if (p.target->type == quant::GgmlType::kI2_S && it != scale_of.end()) folded.insert(it->second->name);
    if (p.tensor->type->type == quant::GgmlType::kI2_S && IsBlockTernary(p.target->type)) {
      ternary_scales[p.tensor->name] = quant::I2SScale(input.TensorData(*p.tensor)) * own;
    }
  }
  auto add_scale = [&writer](const std::string& name, float v) {
    std::vector<uint8_t> bytes(sizeof v);
    std::memcpy(bytes.data(), &v, sizeof v);
    return writer.AddTensorData(name, quant::GgmlType::kF32, {1}, bytes);
  };

  const int n_threads = std::max(1, options.n_threads);
  const size_t n = plans->size();
  for (size_t i = 0; i < n; ++i) {
    const TensorPlan& p = (*plans)[i];
    const std::string& name = p.tensor->name;
    if (folded.contains(name)) continue;
    const std::string weight = WeightOfScale(name);
    if (const auto it = ternary_scales.find(weight); it != ternary_scales.end() && scale_of.contains(weight)) {
      if (Status s = add_scale(name, it->second); !s.ok()) return s.WithContext(output);
      continue;
    }
    const auto own_scale = scale_of.find(name);
    const float multiplier = own_scale != scale_of.end() ? *ScalarOf(input, *own_scale->second) : 1.0f;
    const bool whole = p.action == TensorAction::kConvert &&
                       (p.tensor->type->type == quant::GgmlType::kI2_S || p.target->type == quant::GgmlType::kI2_S);
    gguf::Writer::FillFn fill = [&input, &p, &options, i, n, n_threads, whole,
                                 multiplier](std::span<uint8_t> out) -> Status {
      if (p.action == TensorAction::kCopy) {
        std::span<const uint8_t> data = input.TensorData(*p.tensor);
        std::copy(data.begin(), data.end(), out.begin());
      } else if (whole) {
        if (Status s = ConvertWholeI2S(input, p, multiplier, out); !s.ok()) return s;
      } else {
        ConvertTensor(input, p, out, n_threads);
      }
      if (options.on_tensor) options.on_tensor(i, n, p, out.size());
      return Status::Ok();
    };
    if (Status s = writer.AddTensor(name, p.target->type, p.tensor->shape, std::move(fill)); !s.ok()) {
      return s.WithContext(output);
    }
    if (const auto it = ternary_scales.find(name); it != ternary_scales.end() && !scale_of.contains(name)) {
      if (!name.ends_with(".weight")) {
        return Error(ErrorCode::kUnsupported, "tensor '{}': an i2_s weight's scale is written as '<name>.scale', "
                     "which needs a name ending in '.weight'", name).WithContext(output);
      }
      const std::string scale_name = name.substr(0, name.size() - std::string_view(".weight").size()) + ".scale";
      if (Status s = add_scale(scale_name, it->second); !s.ok()) return s.WithContext(output);
    }
  }
  if (Status s = writer.WriteFile(output); !s.ok()) return s;
  return plans;
}

}  // namespace trit::convert
