// The pieces of a SentencePiece model file (tokenizer.model: a protobuf
// ModelProto), read with a small wire-format parser: field 1 (repeated
// SentencePiece: 1 piece, 2 score, 3 type) and nothing else. Every length
// is checked against the bytes left; a truncated or malformed file is an
// error naming the offset, never a read past the end.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace trit::tokenizer {

struct SentencePiece {
  std::string piece;
  float score = 0.0f;
  int32_t type = 1;  // sentencepiece's Type, the same numbers as GGUF's: 1 normal, 2 unknown, 3 control,
                     // 4 user-defined, 5 unused, 6 byte
};

// kCorrupt naming the offset for a malformed record, a piece type outside
// 1..6, or a file with no pieces.
Expected<std::vector<SentencePiece>> ParseSentencePieceModel(std::string_view bytes);

}  // namespace trit::tokenizer
