#include "formats/vectors/vector_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string_view>

#include "base/mapped_file.h"
#include "formats/npy/npy_file.h"
#include "formats/vectors/json_vectors.h"

namespace trit::vectors {
namespace {

constexpr uint8_t kNpyFirstByte = 0x93;  // "\x93NUMPY"

// The first byte that is not whitespace or part of a UTF-8 byte order mark.
size_t FirstSignificant(std::span<const uint8_t> bytes) {
  size_t i = 0;
  if (bytes.size() >= 3 && bytes[0] == 0xef && bytes[1] == 0xbb && bytes[2] == 0xbf) i = 3;
  while (i < bytes.size() && (bytes[i] == ' ' || bytes[i] == '\n' || bytes[i] == '\r' || bytes[i] == '\t')) ++i;
  return i;
}

}  // namespace

const char* VectorFormatName(VectorFormat format) { return format == VectorFormat::kNpy ? "npy" : "json"; }

std::string VectorTable::ShapeText() const {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

Expected<VectorTable> ParseVectorFile(std::span<const uint8_t> bytes) {
  VectorTable t;
  if (!bytes.empty() && bytes[0] == kNpyFirstByte) {
    Expected<npy::Array> a = npy::ReadArray(bytes);
    if (!a.ok()) return a.status();
    t.format = VectorFormat::kNpy;
    t.detail = fmt::format("npy {}.{}, {}", a->header.major, a->header.minor, npy::DtypeDescr(a->header.dtype));
    t.shape = a->header.shape;
    t.n_rows = a->n_rows;
    t.n_cols = a->n_cols;
    t.values = std::move(a->values);
    return t;
  }
  const size_t at = FirstSignificant(bytes);
  if (at == bytes.size()) {
    return Error(ErrorCode::kCorrupt, "the file is empty{}: expected .npy or JSON",
                 bytes.empty() ? "" : " but for whitespace");
  }
  if (bytes[at] != '[' && bytes[at] != '{') {
    return Error(ErrorCode::kCorrupt,
                 "neither .npy (no \\x93NUMPY magic) nor JSON (no '[' or '{{' first): byte {} is 0x{:02x}", at,
                 bytes[at]);
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes.data() + at), bytes.size() - at);
  Expected<JsonVectors> j = ParseJsonVectors(text);
  if (!j.ok()) return j.status();
  t.format = VectorFormat::kJson;
  t.detail = "JSON, " + j->layout;
  t.shape = j->n_dims == 1 ? std::vector<int64_t>{j->n_cols} : std::vector<int64_t>{j->n_rows, j->n_cols};
  t.n_rows = j->n_rows;
  t.n_cols = j->n_cols;
  t.values = std::move(j->values);
  return t;
}

Expected<VectorTable> ReadVectorFile(const std::string& path) {
  Expected<MappedFile> file = MappedFile::Open(path);
  if (!file.ok()) return file.status();
  Expected<VectorTable> t = ParseVectorFile(file->bytes());
  if (!t.ok()) return t.status().WithContext(path);
  return t;
}

}  // namespace trit::vectors
