#include "convert/quantize_file.h"

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
  auto convert_rows = [&](int64_t first, int64_t last) {
    std::vector<float> values(static_cast<size_t>(row));
    for (int64_t r = first; r < last; ++r) {
      from.dequantize(src + r * from_row_bytes, values.data(), row);
      to.quantize(values.data(), out.data() + r * to_row_bytes, row);
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

}  // namespace

Expected<std::vector<TensorPlan>> QuantizeFile(const gguf::File& input, const quant::TypeInfo& requested,
                                               const std::string& output, const QuantizeFileOptions& options) {
  Expected<std::vector<TensorPlan>> plans = PlanQuantization(input.tensors(), requested, options.fallback);
  if (!plans.ok()) return plans.status().WithContext(input.path());

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
