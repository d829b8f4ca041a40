// make_random_model OUT.gguf ARCH [tied] [bias] [qknorm] [q8_0|tq1_0|tq2_0|i2_s]:
// writes a small random-weight model of ARCH (ArchitecturePreset: the
// tensors and metadata ARCH needs) for tests/python/llama_forward_test.py.
#include <fmt/format.h>

#include <string>

#include "model/random_model.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    fmt::print(stderr, "usage: make_random_model OUT.gguf ARCH [tied] [bias] [qknorm] [q8_0|tq1_0|tq2_0|i2_s]\n");
    return 2;
  }
  trit::testing::RandomModelSpec spec = trit::testing::ArchitecturePreset(argv[2]);
  for (int i = 3; i < argc; ++i) {
    const std::string f = argv[i];
    if (f == "tied") spec.tied = true;
    else if (f == "bias") spec.qkv_bias = true;
    else if (f == "qknorm") spec.qk_norm = true;
    else if (f == "q8_0") spec.matrix_type = trit::quant::GgmlType::kQ8_0;
    else if (f == "tq1_0") spec.matrix_type = trit::quant::GgmlType::kTQ1_0;
    else if (f == "tq2_0") spec.matrix_type = trit::quant::GgmlType::kTQ2_0;
    else if (f == "i2_s") {  // ternary matrices of one scale each, as I2_S holds them
      spec.matrix_type = trit::quant::GgmlType::kI2_S;
      spec.ternary_matrices = true;
    }
    else {
      fmt::print(stderr, "unknown flag '{}'\n", f);
      return 2;
    }
  }
  const trit::Status s = trit::testing::WriteRandomModel(spec, argv[1]);
  if (!s.ok()) {
    fmt::print(stderr, "{}\n", s.message());
    return 1;
  }
  return 0;
}
