#include "tokenizer/space_cleaner.h"

#include <array>

namespace trit::tokenizer {
namespace {

// Each pass consumes a prefix of `in`, appending its output, and returns how
// many bytes it consumed; it stops early only where the decision about a
// byte needs input that has not arrived (never when at_end).
using Pass = size_t (*)(std::string_view in, bool at_end, std::string* out);

bool IsCleanedPunct(char c) { return c == '?' || c == '!' || c == '.' || c == ','; }

// Pass 1: drop a space followed by ? ! . ,
size_t PunctuationPass(std::string_view in, bool at_end, std::string* out) {
  size_t i = 0;
  for (; i < in.size(); ++i) {
    if (in[i] != ' ') {
      out->push_back(in[i]);
      continue;
    }
    if (i + 1 == in.size()) {
      if (!at_end) break;
      out->push_back(' ');
    } else if (!IsCleanedPunct(in[i + 1])) {
      out->push_back(' ');
    }
  }
  return i;
}

// Pass 2: " ' " -> "'", leftmost first; the matched bytes take no part in a
// further match.
size_t LoneApostrophePass(std::string_view in, bool at_end, std::string* out) {
  constexpr std::string_view kPattern = " ' ";
  size_t i = 0;
  while (i < in.size()) {
    const std::string_view rest = in.substr(i);
    if (rest.starts_with(kPattern)) {
      out->push_back('\'');
      i += kPattern.size();
      continue;
    }
    if (!at_end && rest.size() < kPattern.size() && kPattern.starts_with(rest)) break;
    out->push_back(in[i]);
    ++i;
  }
  return i;
}

// Pass 3: drop a space followed by 's 'm 're 've ('t 'd 'll keep theirs, as in llama.cpp).
size_t ContractionPass(std::string_view in, bool at_end, std::string* out) {
  static constexpr std::array<std::string_view, 4> kContractions = {"'s", "'m", "'re", "'ve"};
  size_t i = 0;
  for (; i < in.size(); ++i) {
    if (in[i] != ' ') {
      out->push_back(in[i]);
      continue;
    }
    const std::string_view rest = in.substr(i + 1);
    bool drop = false;
    bool undecided = false;
    for (std::string_view c : kContractions) {
      if (rest.starts_with(c)) drop = true;
      if (rest.size() < c.size() && c.starts_with(rest)) undecided = true;
    }
    if (!drop && undecided && !at_end) break;
    if (!drop) out->push_back(' ');
  }
  return i;
}

constexpr std::array<Pass, 3> kPasses = {PunctuationPass, LoneApostrophePass, ContractionPass};

}  // namespace

void SpaceCleaner::Run(bool at_end, std::string* out) {
  std::string stage_out;
  for (size_t p = 0; p < kPasses.size(); ++p) {
    stage_out.clear();
    const size_t consumed = kPasses[p](pending_[p], at_end, &stage_out);
    pending_[p].erase(0, consumed);
    if (p + 1 < kPasses.size()) {
      pending_[p + 1] += stage_out;
    } else {
      *out += stage_out;
    }
  }
}

void SpaceCleaner::Push(std::string_view text, std::string* out) {
  pending_[0] += text;
  Run(/*at_end=*/false, out);
}

void SpaceCleaner::Finish(std::string* out) {
  Run(/*at_end=*/true, out);
  for (std::string& p : pending_) p.clear();
}

std::string CleanSpaces(std::string_view text) {
  SpaceCleaner cleaner;
  std::string out;
  cleaner.Push(text, &out);
  cleaner.Finish(&out);
  return out;
}

}  // namespace trit::tokenizer
