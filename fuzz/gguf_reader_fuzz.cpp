// libFuzzer entry point for the GGUF reader (see README.md for how to run it).
//
// Any input must parse or give an error, never crash, read out of bounds
// (ASan) or hit undefined behaviour (UBSan). On a successful parse it also
// checks the reader's promises: every tensor range lies inside the input,
// offsets are aligned, typed getters answer for every key, and writing the
// parsed file back and parsing that gives the same metadata and tensors.
#include <cstddef>
#include <cstdint>
#include <span>

#include "base/check.h"
#include "formats/gguf/lookup.h"
#include "formats/gguf/reader.h"
#include "formats/gguf/writer.h"

namespace {

using namespace trit;
using namespace trit::gguf;

// Tensors bigger than this in total are not re-written (keeps executions fast).
constexpr uint64_t kMaxRewriteBytes = uint64_t{4} << 20;

volatile uint8_t g_sink;

void TouchArray(const Array& a) {
  TRIT_CHECK(static_cast<uint32_t>(a.element_type) < kValueTypeCount);
  const size_t n = a.size();
  switch (a.element_type) {
    case ValueType::kString:
      for (const std::string& s : a.strings) {
        if (!s.empty()) g_sink = static_cast<uint8_t>(s.back());
      }
      break;
    case ValueType::kArray:
      for (const Array& inner : a.arrays) TouchArray(inner);
      break;
    case ValueType::kUint64:
    case ValueType::kInt64:
    case ValueType::kFloat64:
      if (n > 0) g_sink = static_cast<uint8_t>(a.At<uint64_t>(n - 1));
      break;
    case ValueType::kBool:
      if (n > 0) g_sink = a.At<bool>(n - 1) ? 1 : 0;
      break;
    default:
      TRIT_CHECK(a.packed.size() == n * ScalarSize(a.element_type));
      if (!a.packed.empty()) g_sink = a.packed.back();
      break;
  }
}

void CheckGetters(const MetadataEntry& entry) {
  const Value* v = &entry.value;
  const bool is_string = ValueAsString(entry.key, v).ok();
  const bool is_array = ValueAsArray(entry.key, v).ok();
  const bool is_float = ValueAsFloat(entry.key, v).ok();
  const bool is_bool = ValueAsBool(entry.key, v).ok();
  const auto as_int = ValueAsInt(entry.key, v);
  const auto as_uint = ValueAsUint(entry.key, v);
  TRIT_CHECK(is_string == (v->type() == ValueType::kString));
  TRIT_CHECK(is_array == (v->type() == ValueType::kArray));
  TRIT_CHECK(is_float == (v->type() == ValueType::kFloat32 || v->type() == ValueType::kFloat64));
  TRIT_CHECK(is_bool == (v->type() == ValueType::kBool));
  if (as_int.ok() && as_uint.ok()) TRIT_CHECK(*as_int < 0 || static_cast<uint64_t>(*as_int) == *as_uint);
  if (const Array* a = v->get_if<Array>()) TouchArray(*a);
}

// Writes `header` (with the tensor bytes from `bytes`) and parses the result.
void CheckRewrite(std::span<const uint8_t> bytes, const Header& header) {
  uint64_t total = 0;
  for (const TensorInfo& t : header.tensors) {
    if (t.shape.empty()) return;  // n_dims 0 is readable, but the writer asks for 1..4 dims
    total += t.n_bytes;           // no overflow: each range lies inside `bytes`
    if (total > kMaxRewriteBytes) return;
  }
  Writer writer;
  for (const MetadataEntry& entry : header.metadata) {
    TRIT_CHECK(writer.SetMetadata(entry.key, entry.value).ok());
  }
  for (const TensorInfo& t : header.tensors) {
    auto data = TensorBytes(bytes, header, t);
    TRIT_CHECK(data.ok());
    TRIT_CHECK(writer.AddTensorData(t.name, t.type->type, t.shape, *data).ok());
  }
  auto written = writer.WriteBuffer();
  TRIT_CHECK(written.ok());
  auto again = ParseHeader(*written);
  TRIT_CHECK(again.ok());
  TRIT_CHECK(again->alignment == header.alignment);
  TRIT_CHECK(again->metadata.size() == header.metadata.size());
  for (size_t i = 0; i < header.metadata.size(); ++i) {
    TRIT_CHECK(again->metadata[i].key == header.metadata[i].key);
    // A scalar NaN compares unequal to itself; arrays compare their packed bytes.
    const Value& original = header.metadata[i].value;
    TRIT_CHECK(again->metadata[i].value.type() == original.type());
    if (original == original) TRIT_CHECK(again->metadata[i].value == original);
  }
  TRIT_CHECK(again->tensors.size() == header.tensors.size());
  for (size_t i = 0; i < header.tensors.size(); ++i) {
    const TensorInfo& a = again->tensors[i];
    const TensorInfo& b = header.tensors[i];
    TRIT_CHECK(a.name == b.name && a.type == b.type && a.shape == b.shape && a.n_bytes == b.n_bytes);
    auto da = TensorBytes(*written, *again, a);
    auto db = TensorBytes(bytes, header, b);
    TRIT_CHECK(da.ok() && db.ok());
    TRIT_CHECK(std::equal(da->begin(), da->end(), db->begin(), db->end()));
  }
  // A second write of what was read back is byte-identical: the writer is deterministic.
  Writer writer2;
  for (const MetadataEntry& entry : again->metadata) TRIT_CHECK(writer2.SetMetadata(entry.key, entry.value).ok());
  for (const TensorInfo& t : again->tensors) {
    TRIT_CHECK(writer2.AddTensorData(t.name, t.type->type, t.shape, *TensorBytes(*written, *again, t)).ok());
  }
  auto written2 = writer2.WriteBuffer();
  TRIT_CHECK(written2.ok() && *written2 == *written);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  auto header = ParseHeader(bytes);
  if (!header.ok()) {
    TRIT_CHECK(!header.status().message().empty());
    return 0;
  }
  TRIT_CHECK(header->version == 2 || header->version == 3);
  TRIT_CHECK(header->alignment != 0 && (header->alignment & (header->alignment - 1)) == 0);
  TRIT_CHECK(header->data_offset % header->alignment == 0);
  TRIT_CHECK(header->file_size == size);
  for (const MetadataEntry& entry : header->metadata) CheckGetters(entry);
  for (const TensorInfo& t : header->tensors) {
    TRIT_CHECK(t.type != nullptr && t.shape.size() <= kMaxDims && t.offset % header->alignment == 0);
    auto range = TensorBytes(bytes, *header, t);
    TRIT_CHECK(range.ok() && range->size() == t.n_bytes);
    TRIT_CHECK(range->data() >= data && range->data() + range->size() <= data + size);
    if (!range->empty()) g_sink = static_cast<uint8_t>(range->front() ^ range->back());
  }
  CheckRewrite(bytes, *header);
  return 0;
}
