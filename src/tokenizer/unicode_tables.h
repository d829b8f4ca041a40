// The raw Unicode tables that tools/gen_unicode_tables.py writes into
// unicode_tables.cpp. Internal to tokenizer/: use unicode.h.
#pragma once

#include <cstddef>
#include <cstdint>

namespace trit::unicode::tables {

// Code points first..(next run's first - 1) have general category `category`
// (the index of trit::unicode::Category). Covers 0..0x10FFFF.
struct CategoryRun {
  char32_t first;
  uint8_t category;
};
struct Range {
  char32_t first, last;
};
// Canonical combining class `ccc` (non-zero) for first..last.
struct CombiningRun {
  char32_t first, last;
  uint8_t ccc;
};
// The full canonical decomposition of `cp`: kDecompositionData[offset, offset + length).
struct Decomposition {
  char32_t cp;
  uint16_t offset;
  uint8_t length;
};
struct CaseMapping {
  char32_t cp, mapped;
};

extern const char kUnicodeVersion[];
extern const CategoryRun kCategoryRuns[];
extern const size_t kNumCategoryRuns;
extern const Range kWhiteSpace[];
extern const size_t kNumWhiteSpace;
extern const CombiningRun kCombiningRuns[];
extern const size_t kNumCombiningRuns;
extern const char32_t kDecompositionData[];
extern const Decomposition kDecompositions[];
extern const size_t kNumDecompositions;
extern const CaseMapping kLowercase[];
extern const size_t kNumLowercase;

}  // namespace trit::unicode::tables
