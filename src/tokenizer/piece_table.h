// What each token id decodes to, for SentencePiece ("llama") and WordPiece
// ("bert") vocabularies: llama.cpp's token_to_piece for those types.
//   normal        its text with U+2581 '▁' written as ' '
//   byte          the byte its text "<0xNN>" names
//   user-defined  its text as is
//   control, unknown  their text, only when special tokens are rendered
//   unused, undefined, a byte token whose text is not "<0xNN>"  nothing
// Internal to tokenizer/.
#pragma once

#include <string>
#include <vector>

#include "tokenizer/vocab.h"

namespace trit::tokenizer {

// U+2581 LOWER ONE EIGHTH BLOCK, SentencePiece's escaped space.
inline constexpr std::string_view kEscapedSpace = "\xE2\x96\x81";

class PieceTable {
 public:
  explicit PieceTable(const Vocab& vocab);

  // `lstrip` removes one leading space (llama.cpp strips the SentencePiece
  // dummy prefix of the first token this way). Invalid ids give "".
  std::string Piece(TokenId id, bool render_special, bool lstrip) const;

 private:
  std::vector<std::string> pieces_;  // (n_vocab)
  std::vector<bool> special_;        // (n_vocab) control or unknown: printed only when rendered
};

// The byte a byte token's text "<0xNN>" (hex digits of either case) names;
// -1 when the text has another form.
int ParseByteToken(std::string_view text);

}  // namespace trit::tokenizer
