#include "formats/npy/npy_file.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>

#include "base/atomic_file.h"
#include "base/check.h"
#include "base/checked_math.h"
#include "base/half.h"
#include "base/mapped_file.h"

namespace trit::npy {
namespace {

constexpr uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr uint64_t kMagicBytes = sizeof kMagic;
constexpr uint64_t kVersionBytes = 2;  // major, minor
// numpy.lib.format.ARRAY_ALIGN: the data starts on a multiple of it.
constexpr uint64_t kArrayAlign = 64;
// numpy.lib.format.GROWTH_AXIS_MAX_DIGITS: numpy.save leaves room after the
// dict for the first axis to grow to this many digits.
constexpr size_t kGrowthAxisMaxDigits = 21;

constexpr const char* kReadTypes = "'<f2', '<f4' or '<f8'";

// The header text as an error shows it: printable ASCII, other bytes as
// \xNN, cut to 96 characters.
std::string Excerpt(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, 96)) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) {
      out += c;
    } else {
      out += fmt::format("\\x{:02x}", u);
    }
  }
  if (text.size() > 96) out += "...";
  return out;
}

// One value of the header dict, as far as trit reads Python literals.
struct PyValue {
  enum class Kind { kString, kBool, kTuple };
  Kind kind = Kind::kString;
  std::string text;            // kString
  bool flag = false;           // kBool
  std::vector<int64_t> items;  // kTuple: non-negative integers
};

// A recursive-descent parser of the subset of Python literals an .npy header
// holds: one dict of string keys whose values are strings, True/False or
// tuples of non-negative integers. Nothing nests beyond the tuple, so the
// depth is fixed. Errors name the header byte and show the header.
class DictParser {
 public:
  explicit DictParser(std::string_view text) : text_(text) {}

  // Parses the whole text: the dict, then only whitespace.
  Status Parse(std::vector<std::pair<std::string, PyValue>>* entries) {
    SkipSpace();
    if (!Eat('{')) return Fail("expected '{' opening the dict");
    SkipSpace();
    while (!Eat('}')) {
      Expected<std::string> key = ParseString("a key");
      if (!key.ok()) return key.status();
      SkipSpace();
      if (!Eat(':')) return Fail(fmt::format("expected ':' after key '{}'", Excerpt(*key)));
      SkipSpace();
      Expected<PyValue> value = ParseValue(*key);
      if (!value.ok()) return value.status();
      entries->emplace_back(std::move(*key), std::move(*value));
      SkipSpace();
      if (Eat(',')) {
        SkipSpace();
        continue;
      }
      if (Peek() != '}') return Fail("expected ',' or '}' after a value");
    }
    SkipSpace();
    if (pos_ != text_.size()) return Fail("unexpected text after the dict's '}'");
    return Status::Ok();
  }

 private:
  static bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }
  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  bool AtEnd() const { return pos_ >= text_.size(); }
  void SkipSpace() {
    while (!AtEnd() && IsSpace(text_[pos_])) ++pos_;
  }
  bool Eat(char c) {
    if (AtEnd() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  bool EatWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  Status Fail(std::string_view what) const {
    return Error(ErrorCode::kCorrupt, "npy header: malformed dict at header byte {}: {} (header: {})", pos_, what,
                 Excerpt(text_));
  }

  // A quoted string, '...' or "...", without escapes (numpy writes none).
  Expected<std::string> ParseString(std::string_view what) {
    const char quote = Peek();
    if (quote != '\'' && quote != '"') return Fail(fmt::format("expected a quoted string as {}", what));
    ++pos_;
    const size_t start = pos_;
    while (!AtEnd() && text_[pos_] != quote) {
      if (text_[pos_] == '\\') return Fail("a string holds an escape sequence, which trit does not read");
      if (text_[pos_] == '\n') return Fail("a string runs past the end of its line");
      ++pos_;
    }
    if (AtEnd()) return Fail("a string is not closed");
    std::string s(text_.substr(start, pos_ - start));
    ++pos_;
    return s;
  }

  Expected<PyValue> ParseValue(std::string_view key) {
    PyValue v;
    const char c = Peek();
    if (c == '\'' || c == '"') {
      Expected<std::string> s = ParseString("a value");
      if (!s.ok()) return s.status();
      v.kind = PyValue::Kind::kString;
      v.text = std::move(*s);
      return v;
    }
    if (EatWord("True") || EatWord("False")) {
      v.kind = PyValue::Kind::kBool;
      v.flag = text_.substr(pos_ - 4, 4) == "True";  // "False" ends in "alse"
      return v;
    }
    if (c == '(') return ParseTuple();
    if (c == '[' && key == "descr") {
      return Error(ErrorCode::kUnsupported, "npy header: 'descr' is a list, a structured type; trit reads {}",
                   kReadTypes);
    }
    return Fail(fmt::format("the value of '{}' is not a string, True, False or a tuple", Excerpt(key)));
  }

  // (), (n,), (n, m), (n, m,) ...: Python's tuples; "(n)" is an integer in
  // parentheses, not a tuple, and is refused.
  Expected<PyValue> ParseTuple() {
    PyValue v;
    v.kind = PyValue::Kind::kTuple;
    ++pos_;  // '('
    SkipSpace();
    bool trailing_comma = false;
    while (!Eat(')')) {
      Expected<int64_t> n = ParseDimension();
      if (!n.ok()) return n.status();
      v.items.push_back(*n);
      SkipSpace();
      trailing_comma = Eat(',');
      SkipSpace();
      if (!trailing_comma && Peek() != ')') return Fail("expected ',' or ')' in a tuple");
    }
    if (v.items.size() == 1 && !trailing_comma) return Fail("a one-element tuple needs its comma, as in (5,)");
    return v;
  }

  Expected<int64_t> ParseDimension() {
    if (Peek() == '-') return Fail("a negative dimension");
    if (Peek() < '0' || Peek() > '9') return Fail("expected an integer in a tuple");
    uint64_t n = 0;
    while (Peek() >= '0' && Peek() <= '9') {
      std::optional<uint64_t> times10 = CheckedMul(n, 10);
      std::optional<uint64_t> next = times10 ? CheckedAdd(*times10, static_cast<uint64_t>(Peek() - '0')) : std::nullopt;
      if (!next || *next > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return Fail("a dimension beyond 2^63 - 1");
      }
      n = *next;
      ++pos_;
    }
    return static_cast<int64_t>(n);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

Status CheckDescr(const std::string& descr, Dtype* dtype) {
  if (descr == "<f2") {
    *dtype = Dtype::kF16;
  } else if (descr == "<f4") {
    *dtype = Dtype::kF32;
  } else if (descr == "<f8") {
    *dtype = Dtype::kF64;
  } else if (descr.size() >= 2 && descr[0] == '>' && descr[1] == 'f') {
    return Error(ErrorCode::kUnsupported,
                 "npy header: 'descr' '{}' is big-endian; trit reads little-endian {} (save a.astype('<{}'))",
                 Excerpt(descr), kReadTypes, Excerpt(descr.substr(1)));
  } else if (descr.size() >= 2 && (descr[0] == '<' || descr[0] == '>' || descr[0] == '|' || descr[0] == '=') &&
             (descr[1] == 'i' || descr[1] == 'u' || descr[1] == 'b' || descr[1] == '?')) {
    return Error(ErrorCode::kUnsupported,
                 "npy header: 'descr' '{}' is an integer or boolean type; trit compares floating-point arrays, {} "
                 "(save a.astype(np.float32))",
                 Excerpt(descr), kReadTypes);
  } else {
    return Error(ErrorCode::kUnsupported, "npy header: 'descr' '{}' is not a type trit reads ({})", Excerpt(descr),
                 kReadTypes);
  }
  return Status::Ok();
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  if (shape.size() == 1) return fmt::format("({},)", shape[0]);
  return fmt::format("({})", fmt::join(shape, ", "));
}

// The dict's three keys, checked and copied into `header`.
Status ReadDict(const std::vector<std::pair<std::string, PyValue>>& entries, Header* header) {
  const PyValue* descr = nullptr;
  const PyValue* fortran = nullptr;
  const PyValue* shape = nullptr;
  for (const auto& [key, value] : entries) {
    const PyValue** slot = key == "descr"           ? &descr
                           : key == "fortran_order" ? &fortran
                           : key == "shape"         ? &shape
                                                    : nullptr;
    if (slot == nullptr) {
      return Error(ErrorCode::kCorrupt, "npy header: unknown key '{}' (an .npy header has 'descr', 'fortran_order' "
                   "and 'shape')", Excerpt(key));
    }
    if (*slot != nullptr) return Error(ErrorCode::kCorrupt, "npy header: key '{}' appears twice", key);
    *slot = &value;
  }
  for (const auto& [name, value] : {std::pair{"descr", descr}, {"fortran_order", fortran}, {"shape", shape}}) {
    if (value == nullptr) return Error(ErrorCode::kCorrupt, "npy header: no '{}' key", name);
  }
  if (descr->kind != PyValue::Kind::kString) {
    return Error(ErrorCode::kCorrupt, "npy header: 'descr' is not a string");
  }
  if (Status s = CheckDescr(descr->text, &header->dtype); !s.ok()) return s;
  if (fortran->kind != PyValue::Kind::kBool) {
    return Error(ErrorCode::kCorrupt, "npy header: 'fortran_order' is not True or False");
  }
  if (fortran->flag) {
    return Error(ErrorCode::kUnsupported,
                 "npy header: 'fortran_order' is True (column-major data); trit reads C order (save "
                 "np.ascontiguousarray(a))");
  }
  if (shape->kind != PyValue::Kind::kTuple) return Error(ErrorCode::kCorrupt, "npy header: 'shape' is not a tuple");
  if (shape->items.empty() || shape->items.size() > 2) {
    return Error(ErrorCode::kUnsupported,
                 "npy header: shape {} has {} dimensions; trit reads one vector (n,) or rows of vectors (rows, "
                 "columns)",
                 ShapeText(shape->items), shape->items.size());
  }
  header->shape = shape->items;
  uint64_t bytes = DtypeSize(header->dtype);
  for (int64_t d : header->shape) {
    std::optional<uint64_t> next = CheckedMul(bytes, static_cast<uint64_t>(d));
    if (!next || *next > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      return Error(ErrorCode::kCorrupt, "npy header: shape {} of '{}' would hold more than 2^63 bytes",
                   ShapeText(header->shape), DtypeDescr(header->dtype));
    }
    bytes = *next;
  }
  header->data_bytes = bytes;
  return Status::Ok();
}

uint64_t ReadLittleEndian(std::span<const uint8_t> bytes) {
  uint64_t v = 0;
  for (size_t i = bytes.size(); i-- > 0;) v = (v << 8) | bytes[i];
  return v;
}

}  // namespace

const char* DtypeDescr(Dtype dtype) {
  switch (dtype) {
    case Dtype::kF16: return "<f2";
    case Dtype::kF32: return "<f4";
    case Dtype::kF64: return "<f8";
  }
  return "?";
}

uint64_t DtypeSize(Dtype dtype) {
  switch (dtype) {
    case Dtype::kF16: return 2;
    case Dtype::kF32: return 4;
    case Dtype::kF64: return 8;
  }
  return 0;
}

std::string Header::ShapeText() const { return npy::ShapeText(shape); }

bool HasMagic(std::span<const uint8_t> bytes) {
  return bytes.size() >= kMagicBytes && std::equal(kMagic, kMagic + kMagicBytes, bytes.begin());
}

Expected<Header> ParseHeader(std::span<const uint8_t> bytes) {
  if (!HasMagic(bytes)) {
    const size_t n = std::min<size_t>(bytes.size(), kMagicBytes);
    if (std::equal(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n), kMagic)) {
      return Error(ErrorCode::kCorrupt, "npy file of {} bytes ends inside its 6-byte magic", bytes.size());
    }
    return Error(ErrorCode::kCorrupt, "not an .npy file: the first 6 bytes are not the magic \\x93NUMPY");
  }
  if (bytes.size() < kMagicBytes + kVersionBytes) {
    return Error(ErrorCode::kCorrupt, "npy file of {} bytes ends before its version", bytes.size());
  }
  Header h;
  h.major = bytes[6];
  h.minor = bytes[7];
  if (h.major < 1 || h.major > 3 || h.minor != 0) {
    return Error(ErrorCode::kUnsupported, "npy version {}.{} is not one trit reads (1.0, 2.0 or 3.0)", h.major,
                 h.minor);
  }
  const uint64_t length_bytes = h.major == 1 ? 2 : 4;  // uint16 in 1.0, uint32 after
  const uint64_t preamble = kMagicBytes + kVersionBytes + length_bytes;
  if (bytes.size() < preamble) {
    return Error(ErrorCode::kCorrupt, "npy file of {} bytes ends inside its {}-byte preamble", bytes.size(), preamble);
  }
  const uint64_t header_len = ReadLittleEndian(bytes.subspan(kMagicBytes + kVersionBytes, length_bytes));
  if (header_len > bytes.size() - preamble) {
    return Error(ErrorCode::kCorrupt, "npy header length {} runs past the end of the file ({} bytes follow the "
                 "{}-byte preamble)", header_len, bytes.size() - preamble, preamble);
  }
  h.data_offset = preamble + header_len;
  const std::string_view text(reinterpret_cast<const char*>(bytes.data() + preamble), header_len);
  std::vector<std::pair<std::string, PyValue>> entries;
  if (Status s = DictParser(text).Parse(&entries); !s.ok()) return s;
  if (Status s = ReadDict(entries, &h); !s.ok()) return s;
  return h;
}

Expected<Array> ReadArray(std::span<const uint8_t> bytes) {
  Expected<Header> header = ParseHeader(bytes);
  if (!header.ok()) return header.status();
  Array a;
  a.header = std::move(*header);
  const Header& h = a.header;
  const uint64_t data_bytes = bytes.size() - h.data_offset;
  if (data_bytes != h.data_bytes) {
    return Error(ErrorCode::kCorrupt, "npy data is {} bytes after the {}-byte header; shape {} of '{}' needs {}{}",
                 data_bytes, h.data_offset, h.ShapeText(), DtypeDescr(h.dtype), h.data_bytes,
                 data_bytes < h.data_bytes ? " (the file is truncated)" : "");
  }
  a.n_rows = h.shape.size() == 1 ? 1 : h.shape[0];
  a.n_cols = h.shape.back();
  const size_t n = static_cast<size_t>(h.data_bytes / DtypeSize(h.dtype));
  a.values.resize(n);
  const uint8_t* data = bytes.data() + h.data_offset;
  for (size_t i = 0; i < n; ++i) {
    switch (h.dtype) {
      case Dtype::kF16: {
        uint16_t v;
        std::memcpy(&v, data + 2 * i, sizeof v);
        a.values[i] = HalfToFloat(v);
        break;
      }
      case Dtype::kF32: {
        float v;
        std::memcpy(&v, data + 4 * i, sizeof v);
        a.values[i] = v;
        break;
      }
      case Dtype::kF64: {
        std::memcpy(&a.values[i], data + 8 * i, sizeof(double));
        break;
      }
    }
  }
  return a;
}

Expected<Array> ReadArrayFile(const std::string& path) {
  Expected<MappedFile> file = MappedFile::Open(path);
  if (!file.ok()) return file.status();
  Expected<Array> a = ReadArray(file->bytes());
  if (!a.ok()) return a.status().WithContext(path);
  return a;
}

std::vector<uint8_t> EncodeF32(int64_t n_rows, int64_t n_cols, std::span<const float> values) {
  TRIT_CHECK(n_rows >= 0 && n_cols >= 0);
  TRIT_CHECK(values.size() == static_cast<uint64_t>(n_rows) * static_cast<uint64_t>(n_cols));
  // numpy's _write_array_header: the dict with sorted keys, room for the
  // first axis to grow, then spaces and '\n' up to a multiple of 64.
  std::string dict = fmt::format("{{'descr': '<f4', 'fortran_order': False, 'shape': ({}, {}), }}", n_rows, n_cols);
  dict.append(kGrowthAxisMaxDigits - fmt::formatted_size("{}", n_rows), ' ');
  const uint64_t preamble = kMagicBytes + kVersionBytes + 2;
  const uint64_t with_newline = dict.size() + 1;
  const uint64_t pad = kArrayAlign - (preamble + with_newline) % kArrayAlign;  // 64 when already aligned, as numpy
  const uint64_t header_len = with_newline + pad;
  TRIT_CHECK(header_len <= 0xffff);  // a 2-D float32 header is about 128 bytes

  // Sized once and filled in place: the layout is fixed by now.
  std::vector<uint8_t> out(preamble + header_len + values.size() * sizeof(float));
  uint8_t* p = out.data();
  std::memcpy(p, kMagic, kMagicBytes);
  p[6] = 1;  // version 1.0
  p[7] = 0;
  p[8] = static_cast<uint8_t>(header_len & 0xff);
  p[9] = static_cast<uint8_t>(header_len >> 8);
  p += preamble;
  std::memcpy(p, dict.data(), dict.size());
  std::memset(p + dict.size(), ' ', pad);
  p[dict.size() + pad] = '\n';
  p += header_len;
  if (!values.empty()) std::memcpy(p, values.data(), values.size() * sizeof(float));
  return out;
}

Status WriteF32File(const std::string& path, int64_t n_rows, int64_t n_cols, std::span<const float> values) {
  const std::vector<uint8_t> bytes = EncodeF32(n_rows, n_cols, values);
  Expected<AtomicFileWriter> writer = AtomicFileWriter::Create(path);
  if (!writer.ok()) return writer.status();
  if (Status s = writer->Write(bytes); !s.ok()) return s;
  return writer->Commit();
}

}  // namespace trit::npy
