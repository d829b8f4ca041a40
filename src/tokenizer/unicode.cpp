#include "tokenizer/unicode.h"

#include <algorithm>

#include "tokenizer/unicode_tables.h"

namespace trit::unicode {
namespace {

constexpr char32_t kMaxCodePoint = 0x10FFFF;

// Hangul syllable decomposition (Unicode §3.12).
constexpr char32_t kHangulSBase = 0xAC00, kHangulLBase = 0x1100, kHangulVBase = 0x1161, kHangulTBase = 0x11A7;
constexpr char32_t kHangulVCount = 21, kHangulTCount = 28, kHangulNCount = kHangulVCount * kHangulTCount;
constexpr char32_t kHangulSCount = 19 * kHangulNCount;

bool IsContinuation(uint8_t b) { return (b & 0xC0) == 0x80; }

}  // namespace

char32_t DecodeUtf8(std::string_view text, size_t* pos) {
  const size_t i = *pos;
  const auto byte = [&](size_t k) { return static_cast<uint8_t>(text[i + k]); };
  const uint8_t b0 = byte(0);
  *pos = i + 1;
  if (b0 < 0x80) return b0;
  size_t n = 0;
  char32_t cp = 0;
  char32_t min = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2, cp = b0 & 0x1F, min = 0x80;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3, cp = b0 & 0x0F, min = 0x800;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return kReplacementCharacter;  // continuation byte, C0, C1, F5..FF
  }
  if (text.size() - i < n) return kReplacementCharacter;
  for (size_t k = 1; k < n; ++k) {
    if (!IsContinuation(byte(k))) return kReplacementCharacter;
    cp = (cp << 6) | (byte(k) & 0x3F);
  }
  if (cp < min || cp > kMaxCodePoint || (cp >= 0xD800 && cp <= 0xDFFF)) return kReplacementCharacter;
  *pos = i + n;
  return cp;
}

std::vector<char32_t> DecodeUtf8(std::string_view text) {
  std::vector<char32_t> cps;
  cps.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) cps.push_back(DecodeUtf8(text, &pos));
  return cps;
}

void AppendUtf8(char32_t cp, std::string* out) {
  if (cp > kMaxCodePoint || (cp >= 0xD800 && cp <= 0xDFFF)) cp = kReplacementCharacter;
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

std::string EncodeUtf8(const std::vector<char32_t>& cps) {
  std::string out;
  out.reserve(cps.size());
  for (char32_t cp : cps) AppendUtf8(cp, &out);
  return out;
}

size_t IncompleteUtf8Suffix(std::string_view text) {
  // Look back over at most 3 continuation bytes for the lead byte.
  const size_t n = text.size();
  for (size_t k = 1; k <= 4 && k <= n; ++k) {
    const uint8_t b = static_cast<uint8_t>(text[n - k]);
    if (IsContinuation(b)) continue;
    size_t expected = 0;
    if (b >= 0xC2 && b <= 0xDF) expected = 2;
    else if (b >= 0xE0 && b <= 0xEF) expected = 3;
    else if (b >= 0xF0 && b <= 0xF4) expected = 4;
    return k < expected ? k : 0;
  }
  return 0;
}

const char* UnicodeVersion() { return tables::kUnicodeVersion; }

Category GetCategory(char32_t cp) {
  if (cp > kMaxCodePoint) return Category::kCn;
  const tables::CategoryRun* begin = tables::kCategoryRuns;
  const tables::CategoryRun* end = begin + tables::kNumCategoryRuns;
  // The last run whose first code point is <= cp (the first run starts at 0).
  const tables::CategoryRun* it =
      std::upper_bound(begin, end, cp, [](char32_t c, const tables::CategoryRun& r) { return c < r.first; });
  return static_cast<Category>((it - 1)->category);
}

bool IsLetter(char32_t cp) {
  const Category c = GetCategory(cp);
  return c >= Category::kLl && c <= Category::kLu;
}
bool IsMark(char32_t cp) {
  const Category c = GetCategory(cp);
  return c >= Category::kMc && c <= Category::kMn;
}
bool IsNumber(char32_t cp) {
  const Category c = GetCategory(cp);
  return c >= Category::kNd && c <= Category::kNo;
}
bool IsPunctuation(char32_t cp) {
  const Category c = GetCategory(cp);
  return c >= Category::kPc && c <= Category::kPs;
}
bool IsSymbol(char32_t cp) {
  const Category c = GetCategory(cp);
  return c >= Category::kSc && c <= Category::kSo;
}
bool IsSeparator(char32_t cp) {
  const Category c = GetCategory(cp);
  return c >= Category::kZl && c <= Category::kZs;
}
bool IsControl(char32_t cp) {
  const Category c = GetCategory(cp);
  return c >= Category::kCc && c <= Category::kCs;
}

bool IsWhiteSpace(char32_t cp) {
  for (size_t i = 0; i < tables::kNumWhiteSpace; ++i) {
    if (cp >= tables::kWhiteSpace[i].first && cp <= tables::kWhiteSpace[i].last) return true;
  }
  return false;
}

uint8_t CombiningClass(char32_t cp) {
  const tables::CombiningRun* begin = tables::kCombiningRuns;
  const tables::CombiningRun* end = begin + tables::kNumCombiningRuns;
  const tables::CombiningRun* it =
      std::upper_bound(begin, end, cp, [](char32_t c, const tables::CombiningRun& r) { return c < r.first; });
  if (it == begin) return 0;
  --it;
  return cp <= it->last ? it->ccc : 0;
}

char32_t ToLower(char32_t cp) {
  const tables::CaseMapping* begin = tables::kLowercase;
  const tables::CaseMapping* end = begin + tables::kNumLowercase;
  const tables::CaseMapping* it =
      std::lower_bound(begin, end, cp, [](const tables::CaseMapping& m, char32_t c) { return m.cp < c; });
  return it != end && it->cp == cp ? it->mapped : cp;
}

std::vector<char32_t> Nfd(const std::vector<char32_t>& cps) {
  std::vector<char32_t> out;
  out.reserve(cps.size());
  const tables::Decomposition* begin = tables::kDecompositions;
  const tables::Decomposition* end = begin + tables::kNumDecompositions;
  for (char32_t cp : cps) {
    if (cp >= kHangulSBase && cp < kHangulSBase + kHangulSCount) {
      const char32_t s = cp - kHangulSBase;
      out.push_back(kHangulLBase + s / kHangulNCount);
      out.push_back(kHangulVBase + (s % kHangulNCount) / kHangulTCount);
      if (s % kHangulTCount != 0) out.push_back(kHangulTBase + s % kHangulTCount);
      continue;
    }
    const tables::Decomposition* it =
        std::lower_bound(begin, end, cp, [](const tables::Decomposition& d, char32_t c) { return d.cp < c; });
    if (it != end && it->cp == cp) {
      out.insert(out.end(), tables::kDecompositionData + it->offset,
                 tables::kDecompositionData + it->offset + it->length);
    } else {
      out.push_back(cp);
    }
  }
  // Canonical ordering: each run of non-starters sorted by combining class, stably.
  for (size_t i = 0; i < out.size();) {
    if (CombiningClass(out[i]) == 0) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < out.size() && CombiningClass(out[j]) != 0) ++j;
    std::stable_sort(out.begin() + static_cast<ptrdiff_t>(i), out.begin() + static_cast<ptrdiff_t>(j),
                     [](char32_t a, char32_t b) { return CombiningClass(a) < CombiningClass(b); });
    i = j;
  }
  return out;
}

}  // namespace trit::unicode
