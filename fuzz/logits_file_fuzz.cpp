// llama.cpp's KL-divergence base file (runtime/logits_file.h): arbitrary
// bytes must open and read chunk by chunk, or be refused with a status;
// never crash, never allocate what the bytes cannot back (the size is known).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/logits_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  trit::Expected<trit::runtime::LogitsFileReader> reader =
      trit::runtime::LogitsFileReader::Open(in, static_cast<int64_t>(size));
  if (!reader.ok()) return 0;
  std::vector<uint16_t> records;
  for (int32_t c = 0; c < reader->header().n_chunk; ++c) {
    if (!reader->ReadChunk(&records).ok()) break;
    const int64_t words = trit::runtime::RecordWords(reader->header().n_vocab);
    for (size_t at = 0; at + static_cast<size_t>(words) <= records.size(); at += static_cast<size_t>(words)) {
      const trit::runtime::LogProbRecord row(std::span<const uint16_t>(records).subspan(at, static_cast<size_t>(words)));
      volatile float sink = row.LogProb(row.size() - 1);
      (void)sink;
    }
  }
  return 0;
}
