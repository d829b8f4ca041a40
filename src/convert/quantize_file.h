// `trit quantize` as a library call: a new GGUF file whose weight matrices
// are converted to a requested type (quantize_plan.h decides which tensors
// and the fallbacks), everything else copied. What llama.cpp's
// llama_model_quantize is to its C API, for trit's CLI, server and C API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/status.h"
#include "convert/importance_matrix.h"
#include "convert/quantize_plan.h"
#include "formats/gguf/reader.h"
#include "quant/types.h"

namespace trit::convert {

struct QuantizeFileOptions {
  FallbackPolicy fallback = FallbackPolicy::kAllow;
  // Threads converting the rows of one tensor (at least 1 is used). The
  // output bytes do not depend on it: rows are converted independently.
  int n_threads = 1;
  // When set (it must outlive the call): each converted tensor whose target
  // type takes importance weights and that has an entry in it is quantized
  // with them, as llama-quantize --imatrix does, and the output records the
  // matrix (quantize.imatrix.* keys, llama.cpp's). A tensor without an entry
  // is quantized without; an entry whose size is not the tensor's row length
  // times its matrices is an error (token_embd.weight excepted, as in
  // llama.cpp: it is looked up by row, never multiplied).
  const ImportanceMatrix* importance = nullptr;
  // Called once per tensor, in file order, right after its bytes are
  // produced: its position (0-based) of `n`, its plan and its size in the
  // output. May be empty.
  std::function<void(size_t index, size_t n, const TensorPlan& plan, uint64_t out_bytes)> on_tensor;
};

// Writes `output` from `input`: its metadata copied (plus
// general.quantization_version and general.file_type when any tensor is
// converted), each tensor copied or dequantized and re-quantized as
// planned. The file is written under a temporary name and renamed into place
// only when complete (gguf::Writer). Returns the plans, which point into
// `input`'s tensors. Errors: a refused plan or unreadable metadata (prefixed
// with the input's path), a tensor the writer refuses (prefixed with
// `output`), an importance entry of the wrong size, and write failures.
Expected<std::vector<TensorPlan>> QuantizeFile(const gguf::File& input, const quant::TypeInfo& requested,
                                               const std::string& output, const QuantizeFileOptions& options);

}  // namespace trit::convert
