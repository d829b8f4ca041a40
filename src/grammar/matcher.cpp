#include "grammar/matcher.h"

#include <utility>

#include <fmt/format.h>

#include "base/check.h"
#include "grammar/grammar.h"
#include "grammar/parse_stacks.h"

namespace trit::grammar {
namespace {

std::string DescribeByte(uint8_t byte) {
  if (byte >= 0x20 && byte < 0x7F) return fmt::format("byte 0x{:02X} '{}'", byte, static_cast<char>(byte));
  return fmt::format("byte 0x{:02X}", byte);
}

}  // namespace

Matcher::Matcher(std::shared_ptr<const Grammar> grammar) : grammar_(std::move(grammar)) {
  TRIT_CHECK(grammar_ != nullptr);
  ParseStacks& stacks = ThreadScratch(grammar_.get());
  const int32_t start = stacks.Start();
  TRIT_CHECK(start >= 0);  // ParseGbnf refuses grammars whose start does not fit (CheckStartState)
  stacks.Export(start, &stacks_, &n_stacks_, &partial_);
}

bool Matcher::Accept(std::string_view bytes) {
  if (bytes.empty()) return true;
  ParseStacks& stacks = ThreadScratch(grammar_.get());
  int32_t state = stacks.Import(stacks_, partial_);
  for (size_t i = 0; i < bytes.size(); ++i) {
    const auto byte = static_cast<uint8_t>(bytes[i]);
    const int32_t next = stacks.StepOnce(state, byte);
    if (next >= 0) {
      state = next;
      continue;
    }
    if (next == kBadUtf8) {
      last_rejection_ = fmt::format("{} at offset {} is not valid UTF-8 here", DescribeByte(byte), i);
    } else if (next == kTooManyStacks) {
      last_rejection_ = fmt::format(
          "{} at offset {}: the grammar is too ambiguous here (more than {} parse stacks or {} steps for one "
          "character)",
          DescribeByte(byte), i, kMaxStacks, kMaxStepsPerCodePoint);
    } else {
      last_rejection_ = fmt::format("{} at offset {} is not allowed by the grammar here", DescribeByte(byte), i);
    }
    return false;
  }
  stacks.Export(state, &stacks_, &n_stacks_, &partial_);
  return true;
}

bool Matcher::CanEnd() const {
  if (partial_.n_pending != 0) return false;
  for (size_t i = 0; i < stacks_.size(); i += 1 + stacks_[i]) {
    if (stacks_[i] == 0) return true;
  }
  return false;
}

bool Matcher::MustEnd() const { return n_stacks_ == 1 && CanEnd(); }

bool Matches(std::shared_ptr<const Grammar> grammar, std::string_view text) {
  Matcher matcher(std::move(grammar));
  return matcher.Accept(text) && matcher.CanEnd();
}

}  // namespace trit::grammar
