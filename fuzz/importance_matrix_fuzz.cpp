// llama.cpp's importance-matrix files (convert/importance_matrix.h), both
// formats: arbitrary bytes parse or give an error, never crash or read out of
// bounds; what parses keeps the reader's promises (at least one entry, every
// value finite and >= 0, no empty entry).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

#include "base/check.h"
#include "convert/importance_matrix.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  trit::Expected<trit::convert::ImportanceMatrix> m =
      trit::convert::ParseImportanceMatrix(std::span<const uint8_t>(data, size));
  if (!m.ok()) return 0;
  TRIT_CHECK(!m->entries.empty());
  for (const auto& [name, values] : m->entries) {
    TRIT_CHECK(!values.empty());
    for (float v : values) TRIT_CHECK(std::isfinite(v) && v >= 0.0f);
  }
  return 0;
}
