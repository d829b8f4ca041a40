// Text to token ids and back, built from GGUF metadata alone.
//
// Encode(text) follows llama.cpp's llama_tokenize (the reference the
// conformance tests hold us to): the text is split around special tokens
// (control and unknown tokens only when parse_special is set; user-defined
// tokens always, as llama.cpp and Hugging Face do), each plain-text fragment
// goes through the model type's algorithm, and BOS/EOS/SEP are added as the
// metadata says when add_special is set.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "formats/gguf/reader.h"
#include "tokenizer/space_cleaner.h"
#include "tokenizer/vocab.h"

namespace trit::tokenizer {

struct EncodeOptions {
  bool add_special = true;     // BOS/EOS/SEP as the metadata says
  bool parse_special = false;  // recognise control tokens such as <|im_start|> in the text
};

struct DecodeOptions {
  bool remove_special = false;   // drop a leading BOS and trailing EOS that Encode would have added
  bool render_special = false;   // print control tokens' text (otherwise they print nothing)
};

// One piece of the input after special-token splitting.
struct Fragment {
  std::string_view text;       // plain text (when token == kNoToken)
  TokenId token = kNoToken;    // a special token found in the text
};

class Tokenizer {
 public:
  // Picks the algorithm from tokenizer.ggml.model (and .pre for BPE). An
  // unknown model or pre-tokenizer is refused by name.
  static Expected<std::unique_ptr<Tokenizer>> FromGguf(const gguf::File& file);
  // FromGguf of the GGUF file at `path`; errors name the path.
  static Expected<std::unique_ptr<Tokenizer>> FromGgufPath(const std::string& path);

  virtual ~Tokenizer() = default;

  std::vector<TokenId> Encode(std::string_view text, const EncodeOptions& options) const;

  // The bytes token `id` stands for (byte tokens give their byte, SentencePiece
  // '▁' becomes ' ', byte-level BPE characters map back to bytes). Control
  // tokens give "" unless render_special. `lstrip` removes one leading space
  // (the SentencePiece dummy prefix of the first token). Invalid ids give "".
  virtual std::string TokenToPiece(TokenId id, bool render_special, bool lstrip) const = 0;

  // All ids to text, as llama.cpp's llama_detokenize.
  std::string Decode(std::span<const TokenId> ids, const DecodeOptions& options) const;

  const Vocab& vocab() const { return vocab_; }

  // Whether Decode applies llama.cpp's clean-up of spaces before punctuation
  // and contractions (tokenizer_clean_spaces; see space_cleaner.h): true for
  // WordPiece and for the byte-level BPE pre-tokenizers llama.cpp sets it for.
  virtual bool clean_spaces() const { return false; }

  // Splits text around the special tokens that `parse_special` allows (see top).
  std::vector<Fragment> SplitSpecial(std::string_view text, bool parse_special) const;

 protected:
  explicit Tokenizer(Vocab vocab) : vocab_(std::move(vocab)) {}

  // Appends the ids of one plain-text fragment. `after_special` is true when
  // the fragment is the first of the text or follows a special token (where
  // SentencePiece adds its dummy-prefix space).
  virtual void EncodeFragment(std::string_view text, bool after_special, std::vector<TokenId>* out) const = 0;

  // Post-processing of Decode's concatenated pieces; default: none. The
  // clean-up of spaces is not done here but by clean_spaces(), which
  // StreamingDecoder can follow piece by piece; a tokenizer that overrides
  // this must keep StreamingDecoder's output equal to Decode's (it cannot
  // see this hook).
  virtual void FinishDecode(std::string* /*text*/) const {}

  Vocab vocab_;
};

// Turns ids into text as they arrive, never emitting a partial UTF-8
// sequence and never losing one: bytes of an incomplete character are held
// until it completes; Flush() returns what is left (invalid bytes included),
// so the concatenation of all outputs equals Decode() of all ids. Work per
// id is proportional to its piece (nothing already emitted is looked at
// again). With remove_special, an EOS that Decode would drop as the last id
// is held until the next id shows it was not the last.
class StreamingDecoder {
 public:
  // `tokenizer` must outlive the decoder.
  StreamingDecoder(const Tokenizer& tokenizer, const DecodeOptions& options);

  // Text that is complete after `id`; may be empty.
  std::string Push(TokenId id);
  // Everything still held back; the sequence ends and the decoder starts afresh.
  std::string Flush();
  // Pushes a prompt's ids as context and drops their text, so generated
  // text follows the prompt's first-token rules: a leading BOS is not text,
  // and after it SentencePiece's dummy-prefix space is dropped (as llama2.c
  // and Hugging Face print it). trit run, trit serve and the C API call it.
  void Prime(std::span<const TokenId> prompt);

 private:
  // Appends the piece of `id` as the next piece of Decode's text.
  void AppendPiece(TokenId id, std::string* raw);
  // Cleans `raw` (when the tokenizer cleans spaces) and returns what is
  // complete; an incomplete UTF-8 sequence at the end stays in held_.
  std::string Emit(std::string_view raw, bool at_end);

  const Tokenizer& tokenizer_;
  DecodeOptions options_;
  bool started_ = false;      // the first id of the sequence has been pushed
  bool remove_space_ = false; // the next piece loses one leading space (SentencePiece dummy prefix)
  bool holding_eos_ = false;  // an EOS that remove_special drops if nothing follows
  bool eos_lstrip_ = false;   // the lstrip the held EOS's piece gets if it is written after all
  SpaceCleaner cleaner_;      // used when tokenizer.clean_spaces()
  std::string held_;          // bytes of an incomplete UTF-8 character (at most 3)
};

}  // namespace trit::tokenizer
