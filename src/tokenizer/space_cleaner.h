// llama.cpp's detokenizer clean-up of spaces (llama_vocab::impl::detokenize
// when tokenizer_clean_spaces is set: WordPiece, most byte-level BPE), in a
// form that accepts text in pieces, so that StreamingDecoder and Decode give
// the same bytes.
//
// llama.cpp runs three passes over the whole text; each is a left-to-right
// rule with at most three bytes of look-ahead:
//   1. a space before one of ? ! . , is removed          ("a ." -> "a.")
//   2. " ' " becomes "'" (leftmost first, non-overlapping) ("a ' b" -> "a'b")
//   3. a space before 's 'm 're 've is removed            ("it 's" -> "it's")
// Each pass here keeps the few trailing bytes whose fate depends on what
// follows, so pushing a text in any split gives the same output as pushing it
// whole.
#pragma once

#include <string>
#include <string_view>

namespace trit::tokenizer {

class SpaceCleaner {
 public:
  // Appends to *out the cleaned text that no later input can change.
  void Push(std::string_view text, std::string* out);
  // Appends everything still held (the text has ended) and starts afresh.
  void Finish(std::string* out);

 private:
  void Run(bool at_end, std::string* out);

  // Unconsumed input of each pass (at most 3 bytes between calls).
  std::string pending_[3];
};

// The whole-text form: Push(text) then Finish().
std::string CleanSpaces(std::string_view text);

}  // namespace trit::tokenizer
