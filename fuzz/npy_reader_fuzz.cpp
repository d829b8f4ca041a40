// libFuzzer entry point for what `trit compare` reads: .npy files
// (formats/npy/npy_file.h) and vectors as JSON (formats/vectors/json_vectors.h),
// both from anywhere (another machine, another runtime, a saved HTTP
// response), so their bytes are untrusted.
//
// Any input must parse or give an error, never crash or allocate what the
// bytes cannot back. Promises checked: a parsed header's data offset lies
// inside the input and its data size is its shape's product times the item
// size; a read array holds rows x columns values; a float32 2-D array
// written back by the writer reads to the same values; what the JSON reader
// and the sniffing reader accept holds rows x columns values; and every
// accepted table compared with itself agrees (cosine 1, no difference, the
// same argmax) on each finite row.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "base/check.h"
#include "formats/npy/npy_file.h"
#include "formats/vectors/json_vectors.h"
#include "formats/vectors/vector_file.h"
#include "runtime/vector_compare.h"

namespace {

void CheckSelfComparison(const trit::vectors::VectorTable& t) {
  const trit::runtime::RowMatrix m{t.n_rows, t.n_cols, t.values};
  trit::Expected<trit::runtime::Comparison> c = trit::runtime::CompareRows(m, m);
  if (!c.ok()) {
    TRIT_CHECK(t.n_rows == 0 || t.n_cols == 0);  // the only refusal of equal shapes
    return;
  }
  TRIT_CHECK(c->argmax_agree == t.n_rows);
  for (const trit::runtime::RowComparison& r : c->rows) {
    if (!r.finite) continue;
    TRIT_CHECK(r.max_abs == 0.0 && r.mean_abs == 0.0);
    TRIT_CHECK(r.cosine >= 1.0 - 1e-12 && r.cosine <= 1.0);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trit;
  const std::span<const uint8_t> bytes(data, size);

  Expected<npy::Header> header = npy::ParseHeader(bytes);
  if (header.ok()) {
    TRIT_CHECK(header->data_offset <= size);
    TRIT_CHECK(header->shape.size() == 1 || header->shape.size() == 2);
    uint64_t n = 1;
    for (int64_t d : header->shape) n *= static_cast<uint64_t>(d);
    TRIT_CHECK(header->data_bytes == n * npy::DtypeSize(header->dtype));
  }
  Expected<npy::Array> array = npy::ReadArray(bytes);
  TRIT_CHECK(!array.ok() || header.ok());
  if (array.ok()) {
    TRIT_CHECK(array->values.size() == static_cast<size_t>(array->n_rows * array->n_cols));
    if (array->header.dtype == npy::Dtype::kF32 && array->header.shape.size() == 2) {
      const std::vector<float> floats(array->values.begin(), array->values.end());
      Expected<npy::Array> again = npy::ReadArray(npy::EncodeF32(array->n_rows, array->n_cols, floats));
      TRIT_CHECK(again.ok() && again->header.shape == array->header.shape);
      for (size_t i = 0; i < floats.size(); ++i) {
        const double a = array->values[i];
        const double b = again->values[i];
        TRIT_CHECK(a == b || (std::isnan(a) && std::isnan(b)));
      }
    }
  }

  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Expected<vectors::JsonVectors> json = vectors::ParseJsonVectors(text);
  if (json.ok()) {
    TRIT_CHECK(json->n_rows > 0 && json->n_cols > 0);
    TRIT_CHECK(json->values.size() == static_cast<size_t>(json->n_rows * json->n_cols));
    TRIT_CHECK(json->n_dims == 2 || json->n_rows == 1);
  }

  Expected<vectors::VectorTable> table = vectors::ParseVectorFile(bytes);
  if (table.ok()) {
    TRIT_CHECK(table->values.size() == static_cast<size_t>(table->n_rows * table->n_cols));
    CheckSelfComparison(*table);
  }
  return 0;
}
