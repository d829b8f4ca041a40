// Vectors or logits saved as JSON, one of `trit compare`'s two input formats:
//
//   [0.1, -2, 3e-4]                 one vector (one row)
//   [[...], [...]]                  rows, all of one length
//   {"KEY": either of the above}    KEY one of "data", "embeddings",
//                                   "embedding", "logits" (exactly one of
//                                   them; other keys are ignored), e.g.
//                                   Ollama's {"embedding": [...]} and
//                                   {"embeddings": [[...]]}
//   {"data": [{"embedding": [...]}, ...]}
//                                   an OpenAI /v1/embeddings response (trit
//                                   serve's, saved as it came): one row per
//                                   item, in the order of the array
//
// Numbers only: JSON has no NaN or infinity (save .npy to compare those), and
// base64 embeddings (encoding_format "base64") are refused, saying so. The
// nesting is bounded before parsing. Errors name the element by its path,
// e.g. `data[2].embedding[17] is a string, not a number`.
// `npy_reader_fuzz` runs the reader.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace trit::vectors {

struct JsonVectors {
  std::string layout;  // where the rows were found: "array", "array of arrays", "'logits': array of arrays",
                       // "OpenAI embeddings response"
  int n_dims = 0;      // 1: one vector; 2: rows of vectors
  int64_t n_rows = 0;
  int64_t n_cols = 0;
  std::vector<double> values;  // (n_rows, n_cols), row-major
};

// The rows of `text`, in the layouts above. Errors are kCorrupt.
Expected<JsonVectors> ParseJsonVectors(std::string_view text);

}  // namespace trit::vectors
