// GGUF writer (version 3): metadata, tensor infos and tensor data with the
// alignment llama.cpp expects (each tensor's offset a multiple of
// `general.alignment`, tensors laid out in order, padding zero-filled).
// Output goes to a temporary file renamed into place on success.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "formats/gguf/value.h"
#include "quant/types.h"

namespace trit::gguf {

class Writer {
 public:
  // Produces exactly the tensor's n_bytes into `out`.
  using FillFn = std::function<Status(std::span<uint8_t> out)>;

  explicit Writer(uint64_t alignment = 32);

  // Adds or replaces a metadata key (kept in insertion order). Setting
  // "general.alignment" (uint32, a power of two up to kMaxAlignment) changes
  // the alignment.
  Status SetMetadata(const std::string& key, Value value);

  // Adds a tensor whose bytes are produced at write time by `fill`, so that a
  // large model is written with at most one tensor in memory. Checks the
  // name (unique, < 64 bytes as llama.cpp requires), the shape (1..4 dims,
  // row length a multiple of the block size) and computes its size.
  Status AddTensor(const std::string& name, quant::GgmlType type, std::vector<int64_t> shape,
                   FillFn fill);
  // Convenience: the bytes are copied from `data`, whose size must match.
  Status AddTensorData(const std::string& name, quant::GgmlType type, std::vector<int64_t> shape,
                       std::span<const uint8_t> data);

  Status WriteFile(const std::string& path) const;
  Expected<std::vector<uint8_t>> WriteBuffer() const;

 private:
  struct PendingTensor {
    std::string name;
    quant::GgmlType type;
    std::vector<int64_t> shape;
    uint64_t n_bytes;
    FillFn fill;
  };
  template <typename Sink>
  Status WriteTo(Sink& sink) const;

  uint64_t alignment_;
  std::vector<std::pair<std::string, Value>> metadata_;
  std::vector<PendingTensor> tensors_;
};

}  // namespace trit::gguf
