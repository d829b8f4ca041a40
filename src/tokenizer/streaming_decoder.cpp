#include "tokenizer/tokenizer.h"
#include "tokenizer/unicode.h"

namespace trit::tokenizer {

// Mirrors Tokenizer::Decode one id at a time: the same BOS/EOS removal, the
// same lstrip of the first piece, the same clean-up of spaces (through the
// streaming SpaceCleaner), and UTF-8 completeness on top.

StreamingDecoder::StreamingDecoder(const Tokenizer& tokenizer, const DecodeOptions& options)
    : tokenizer_(tokenizer), options_(options) {}

void StreamingDecoder::AppendPiece(TokenId id, std::string* raw) {
  *raw += tokenizer_.TokenToPiece(id, options_.render_special, remove_space_);
  remove_space_ = false;
}

std::string StreamingDecoder::Emit(std::string_view raw, bool at_end) {
  if (tokenizer_.clean_spaces()) {
    cleaner_.Push(raw, &held_);
    if (at_end) cleaner_.Finish(&held_);
  } else {
    held_ += raw;
  }
  const size_t keep = at_end ? 0 : unicode::IncompleteUtf8Suffix(held_);
  std::string out = held_.substr(0, held_.size() - keep);
  held_.erase(0, held_.size() - keep);
  return out;
}

std::string StreamingDecoder::Push(TokenId id) {
  const Vocab& vocab = tokenizer_.vocab();
  const SpecialIds& sp = vocab.special();
  if (!started_) {
    started_ = true;
    remove_space_ = vocab.add_space_prefix();
    if (options_.remove_special && vocab.add_bos() && id == sp.bos) {
      remove_space_ = false;
      return {};
    }
  }
  std::string raw;
  if (holding_eos_) {
    // Not the last id after all: write it as Decode would have.
    raw += tokenizer_.TokenToPiece(sp.eos, options_.render_special, eos_lstrip_);
    holding_eos_ = false;
  }
  if (options_.remove_special && vocab.add_eos() && id == sp.eos) {
    holding_eos_ = true;
    eos_lstrip_ = remove_space_;
    remove_space_ = false;
  } else {
    AppendPiece(id, &raw);
  }
  return Emit(raw, /*at_end=*/false);
}

void StreamingDecoder::Prime(std::span<const TokenId> prompt) {
  const size_t skip_bos = !prompt.empty() && prompt[0] == tokenizer_.vocab().special().bos ? 1 : 0;
  for (size_t i = skip_bos; i < prompt.size(); ++i) (void)Push(prompt[i]);
}

std::string StreamingDecoder::Flush() {
  // A held EOS was the last id: Decode drops it.
  std::string out = Emit({}, /*at_end=*/true);
  started_ = false;
  remove_space_ = false;
  holding_eos_ = false;
  eos_lstrip_ = false;
  return out;
}

}  // namespace trit::tokenizer
