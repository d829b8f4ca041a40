// libFuzzer entry point for the safetensors reader (formats/safetensors/):
// Hugging Face checkpoints are downloaded from anywhere, so their bytes are
// untrusted. The same bytes are read as a whole safetensors file and as the
// text of a sharded checkpoint's model.safetensors.index.json.
//
// Any input must parse or give an error, never crash. Promises checked on a
// parsed file: the buffer starts right after the header, every tensor's
// [begin, end) lies inside it and holds exactly shape x dtype size bytes,
// and the tensors, in buffer order, cover it with no overlap and no gap. On
// a parsed index: every shard name is a plain file name, listed once, and
// every tensor's shard is one of them.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "base/check.h"
#include "formats/safetensors/safetensors_file.h"
#include "formats/safetensors/safetensors_index.h"

namespace {

void CheckFile(std::span<const uint8_t> bytes) {
  using namespace trit::safetensors;
  trit::Expected<Header> header = ParseHeader(bytes);
  if (!header.ok()) {
    TRIT_CHECK(!header.status().message().empty());
    return;
  }
  TRIT_CHECK(header->header_bytes <= kMaxHeaderBytes);
  TRIT_CHECK(header->data_offset == 8 + header->header_bytes);
  TRIT_CHECK(header->data_offset + header->data_bytes == bytes.size());
  uint64_t covered = 0;
  for (const TensorInfo& t : header->tensors) {
    TRIT_CHECK(t.begin <= t.end && t.end <= header->data_bytes);
    TRIT_CHECK(t.begin == covered);  // sorted, no overlap, no gap
    covered = t.end;
    uint64_t n = 1;
    bool has_zero = false;
    for (int64_t d : t.shape) {
      TRIT_CHECK(d >= 0);
      has_zero = has_zero || d == 0;
    }
    if (!has_zero) {
      for (int64_t d : t.shape) n *= static_cast<uint64_t>(d);  // cannot overflow: the reader checked
    }
    TRIT_CHECK(t.n_elements == (has_zero ? 0 : n));
    TRIT_CHECK(DtypeBytes(t.dtype, t.n_elements) == t.n_bytes());
    TRIT_CHECK(ParseDtype(DtypeName(t.dtype)) == t.dtype);
  }
  TRIT_CHECK(covered == header->data_bytes);
}

void CheckIndex(std::string_view text) {
  using namespace trit::safetensors;
  trit::Expected<ShardIndex> index = ParseShardIndex(text);
  if (!index.ok()) {
    TRIT_CHECK(!index.status().message().empty());
    return;
  }
  TRIT_CHECK(!index->weight_map.empty() && !index->shards.empty());
  TRIT_CHECK(std::adjacent_find(index->shards.begin(), index->shards.end()) == index->shards.end());
  for (const std::string& shard : index->shards) TRIT_CHECK(IsPlainShardName(shard));
  for (const auto& [tensor, shard] : index->weight_map) {
    TRIT_CHECK(std::binary_search(index->shards.begin(), index->shards.end(), shard));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  CheckFile(std::span<const uint8_t>(data, size));
  CheckIndex(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
