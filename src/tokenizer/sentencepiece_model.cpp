// Protobuf wire format (varint keys, wire types 0, 1, 2, 5) over a bounded
// cursor; unknown fields are skipped by their wire type.
#include "tokenizer/sentencepiece_model.h"

#include <cstring>

namespace trit::tokenizer {
namespace {

class Cursor {
 public:
  Cursor(std::string_view bytes, size_t base) : bytes_(bytes), base_(base) {}
  bool done() const { return at_ == bytes_.size(); }
  size_t offset() const { return base_ + at_; }

  Expected<uint64_t> Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (at_ == bytes_.size()) return Error(ErrorCode::kCorrupt, "tokenizer.model: varint runs past the end at {}", offset());
      const uint8_t b = static_cast<uint8_t>(bytes_[at_++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return v;
    }
    return Error(ErrorCode::kCorrupt, "tokenizer.model: varint longer than 10 bytes at {}", offset());
  }
  Expected<std::string_view> Bytes(uint64_t n) {
    if (n > bytes_.size() - at_) {
      return Error(ErrorCode::kCorrupt, "tokenizer.model: a field of {} bytes at {} runs past the end ({} left)", n,
                   offset(), bytes_.size() - at_);
    }
    std::string_view out = bytes_.substr(at_, n);
    at_ += n;
    return out;
  }
  // Skips a field of `wire` type; false for a type this reader does not know (3, 4: groups).
  Status Skip(uint64_t wire) {
    switch (wire) {
      case 0: return Varint().status();
      case 1: return Bytes(8).status();
      case 2: {
        Expected<uint64_t> n = Varint();
        if (!n.ok()) return n.status();
        return Bytes(*n).status();
      }
      case 5: return Bytes(4).status();
      default: return Error(ErrorCode::kCorrupt, "tokenizer.model: wire type {} at {}", wire, offset());
    }
  }

 private:
  std::string_view bytes_;
  size_t base_;
  size_t at_ = 0;
};

Expected<SentencePiece> ParsePiece(std::string_view bytes, size_t base) {
  Cursor c(bytes, base);
  SentencePiece p;
  while (!c.done()) {
    Expected<uint64_t> key = c.Varint();
    if (!key.ok()) return key.status();
    const uint64_t field = *key >> 3, wire = *key & 7;
    if (field == 1 && wire == 2) {
      Expected<uint64_t> n = c.Varint();
      if (!n.ok()) return n.status();
      Expected<std::string_view> s = c.Bytes(*n);
      if (!s.ok()) return s.status();
      p.piece = std::string(*s);
    } else if (field == 2 && wire == 5) {
      Expected<std::string_view> s = c.Bytes(4);
      if (!s.ok()) return s.status();
      std::memcpy(&p.score, s->data(), 4);  // little-endian, as protobuf's fixed32
    } else if (field == 3 && wire == 0) {
      Expected<uint64_t> t = c.Varint();
      if (!t.ok()) return t.status();
      if (*t < 1 || *t > 6) return Error(ErrorCode::kCorrupt, "tokenizer.model: piece type {} at {}, expected 1..6", *t, c.offset());
      p.type = static_cast<int32_t>(*t);
    } else if (Status s = c.Skip(wire); !s.ok()) {
      return s;
    }
  }
  return p;
}

}  // namespace

Expected<std::vector<SentencePiece>> ParseSentencePieceModel(std::string_view bytes) {
  Cursor c(bytes, 0);
  std::vector<SentencePiece> pieces;
  while (!c.done()) {
    Expected<uint64_t> key = c.Varint();
    if (!key.ok()) return key.status();
    const uint64_t field = *key >> 3, wire = *key & 7;
    if (field != 1 || wire != 2) {
      if (Status s = c.Skip(wire); !s.ok()) return s;
      continue;
    }
    Expected<uint64_t> n = c.Varint();
    if (!n.ok()) return n.status();
    const size_t base = c.offset();
    Expected<std::string_view> body = c.Bytes(*n);
    if (!body.ok()) return body.status();
    Expected<SentencePiece> p = ParsePiece(*body, base);
    if (!p.ok()) return p.status().WithContext(fmt::format("piece {}", pieces.size()));
    pieces.push_back(std::move(p).value());
  }
  if (pieces.empty()) return Error(ErrorCode::kCorrupt, "tokenizer.model: no pieces (not a SentencePiece model?)");
  return pieces;
}

}  // namespace trit::tokenizer
