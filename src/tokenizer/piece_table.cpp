#include "tokenizer/piece_table.h"

namespace trit::tokenizer {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string Unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    if (text.substr(i).starts_with(kEscapedSpace)) {
      out.push_back(' ');
      i += kEscapedSpace.size();
    } else {
      out.push_back(text[i++]);
    }
  }
  return out;
}

}  // namespace

int ParseByteToken(std::string_view text) {
  if (text.size() != 6 || !text.starts_with("<0x") || text[5] != '>') return -1;
  const int hi = HexValue(text[3]);
  const int lo = HexValue(text[4]);
  return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

PieceTable::PieceTable(const Vocab& vocab) {
  const size_t n = static_cast<size_t>(vocab.size());
  pieces_.resize(n);
  special_.assign(n, false);
  for (TokenId id = 0; id < vocab.size(); ++id) {
    const std::string& text = vocab.text(id);
    std::string& piece = pieces_[static_cast<size_t>(id)];
    switch (vocab.type(id)) {
      case TokenType::kNormal:
        piece = Unescape(text);
        break;
      case TokenType::kByte:
        if (const int byte = ParseByteToken(text); byte >= 0) piece = std::string(1, static_cast<char>(byte));
        break;
      case TokenType::kUserDefined:
        piece = text;
        break;
      case TokenType::kControl:
      case TokenType::kUnknown:
        piece = text;
        special_[static_cast<size_t>(id)] = true;
        break;
      case TokenType::kUnused:
      case TokenType::kUndefined:
        break;
    }
  }
}

std::string PieceTable::Piece(TokenId id, bool render_special, bool lstrip) const {
  if (id < 0 || static_cast<size_t>(id) >= pieces_.size()) return {};
  const size_t i = static_cast<size_t>(id);
  if (special_[i] && !render_special) return {};
  std::string_view piece = pieces_[i];
  if (lstrip && piece.starts_with(' ')) piece.remove_prefix(1);
  return std::string(piece);
}

}  // namespace trit::tokenizer
