#include "convert/quantize_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <thread>
#include <utility>

#include "formats/gguf/writer.h"

namespace trit::convert {
namespace {

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

  const int n_threads = std::max(1, options.n_threads);
  const size_t n = plans->size();
  for (size_t i = 0; i < n; ++i) {
    const TensorPlan& p = (*plans)[i];
    gguf::Writer::FillFn fill = [&input, &p, &options, i, n, n_threads](std::span<uint8_t> out) -> Status {
      if (p.action == TensorAction::kCopy) {
        std::span<const uint8_t> data = input.TensorData(*p.tensor);
        std::copy(data.begin(), data.end(), out.begin());
      } else {
        ConvertTensor(input, p, out, n_threads);
      }
      if (options.on_tensor) options.on_tensor(i, n, p, out.size());
      return Status::Ok();
    };
    if (Status s = writer.AddTensor(p.tensor->name, p.target->type, p.tensor->shape, std::move(fill)); !s.ok()) {
      return s.WithContext(output);
    }
  }
  if (Status s = writer.WriteFile(output); !s.ok()) return s;
  return plans;
}

}  // namespace trit::convert
