// UTF-8 handling and the generated Unicode tables (src/tokenizer/unicode.*).
// Expected values are from the Unicode Character Database.
#include "tokenizer/unicode.h"

#include <gtest/gtest.h>

#include <memory>

namespace trit::unicode {
namespace {

std::vector<char32_t> Cps(std::string_view utf8) { return DecodeUtf8(utf8); }

TEST(Utf8Test, DecodesEveryLength) {
  EXPECT_EQ(Cps("a\xC3\xA9\xE2\x96\x81\xF0\x9F\xA6\x99"), (std::vector<char32_t>{'a', 0xE9, 0x2581, 0x1F999}));
  EXPECT_EQ(Cps(""), std::vector<char32_t>{});
  EXPECT_EQ(Cps(std::string_view("\0", 1)), std::vector<char32_t>{0});
}

TEST(Utf8Test, EachInvalidByteBecomesOneReplacementCharacter) {
  constexpr char32_t R = kReplacementCharacter;
  EXPECT_EQ(Cps("\x80"), std::vector<char32_t>{R});                       // stray continuation
  EXPECT_EQ(Cps("\xC0\xAF"), (std::vector<char32_t>{R, R}));              // overlong '/'
  EXPECT_EQ(Cps("\xE0\x80\xAF"), (std::vector<char32_t>{R, R, R}));       // overlong
  EXPECT_EQ(Cps("\xED\xA0\x80"), (std::vector<char32_t>{R, R, R}));       // surrogate D800
  EXPECT_EQ(Cps("\xF4\x90\x80\x80"), (std::vector<char32_t>{R, R, R, R}));  // 0x110000
  EXPECT_EQ(Cps("\xFF" "a"), (std::vector<char32_t>{R, 'a'}));
  EXPECT_EQ(Cps("\xE2\x96" "a"), (std::vector<char32_t>{R, R, 'a'}));     // cut short by 'a'
  EXPECT_EQ(Cps("a\xF0\x9F\xA6"), (std::vector<char32_t>{'a', R, R, R}));  // cut short by the end
}

TEST(Utf8Test, NeverReadsPastTheEnd) {
  // Exactly-sized heap buffers, so AddressSanitizer sees any over-read.
  for (std::string_view s : {"\xF0", "\xF0\x9F", "\xF0\x9F\xA6", "\xE2", "\xE2\x96", "\xC3"}) {
    std::unique_ptr<char[]> buf(new char[s.size()]);
    std::copy(s.begin(), s.end(), buf.get());
    const std::vector<char32_t> cps = DecodeUtf8(std::string_view(buf.get(), s.size()));
    EXPECT_EQ(cps, std::vector<char32_t>(s.size(), kReplacementCharacter));
  }
}

TEST(Utf8Test, EncodesAndRoundTrips) {
  for (char32_t cp : {0x0u, 0x7Fu, 0x80u, 0x7FFu, 0x800u, 0xFFFFu, 0x10000u, 0x10FFFFu}) {
    std::string s;
    AppendUtf8(cp, &s);
    EXPECT_EQ(Cps(s), std::vector<char32_t>{cp}) << std::hex << static_cast<uint32_t>(cp);
  }
  EXPECT_EQ(EncodeUtf8({0xD800}), "\xEF\xBF\xBD");
  EXPECT_EQ(EncodeUtf8({0x110000}), "\xEF\xBF\xBD");
  EXPECT_EQ(EncodeUtf8({'h', 0xE9}), "h\xC3\xA9");
}

TEST(Utf8Test, IncompleteSuffix) {
  EXPECT_EQ(IncompleteUtf8Suffix(""), 0u);
  EXPECT_EQ(IncompleteUtf8Suffix("abc"), 0u);
  EXPECT_EQ(IncompleteUtf8Suffix("a\xF0"), 1u);
  EXPECT_EQ(IncompleteUtf8Suffix("a\xF0\x9F"), 2u);
  EXPECT_EQ(IncompleteUtf8Suffix("a\xF0\x9F\xA6"), 3u);
  EXPECT_EQ(IncompleteUtf8Suffix("a\xF0\x9F\xA6\x99"), 0u);
  EXPECT_EQ(IncompleteUtf8Suffix("\xE2\x96"), 2u);
  EXPECT_EQ(IncompleteUtf8Suffix("\xC3"), 1u);
  EXPECT_EQ(IncompleteUtf8Suffix("\xC3\xA9"), 0u);
  EXPECT_EQ(IncompleteUtf8Suffix("\x80\x80"), 0u);  // nothing can complete these
  EXPECT_EQ(IncompleteUtf8Suffix("\xFF"), 0u);
  EXPECT_EQ(IncompleteUtf8Suffix("\xC0"), 0u);
  EXPECT_EQ(IncompleteUtf8Suffix("\xF0\x9F\xA6\x99\x99"), 0u);  // too many continuations
}

TEST(UnicodeTablesTest, Version) { EXPECT_STRNE(UnicodeVersion(), ""); }

TEST(UnicodeTablesTest, Categories) {
  EXPECT_EQ(GetCategory('A'), Category::kLu);
  EXPECT_EQ(GetCategory('z'), Category::kLl);
  EXPECT_EQ(GetCategory('5'), Category::kNd);
  EXPECT_EQ(GetCategory(0xBD), Category::kNo);     // ½
  EXPECT_EQ(GetCategory('!'), Category::kPo);
  EXPECT_EQ(GetCategory('('), Category::kPs);
  EXPECT_EQ(GetCategory('$'), Category::kSc);
  EXPECT_EQ(GetCategory('+'), Category::kSm);
  EXPECT_EQ(GetCategory('^'), Category::kSk);
  EXPECT_EQ(GetCategory(0x1F999), Category::kSo);  // 🦙
  EXPECT_EQ(GetCategory(0x0301), Category::kMn);   // combining acute
  EXPECT_EQ(GetCategory(0x0903), Category::kMc);   // Devanagari visarga
  EXPECT_EQ(GetCategory(0x20DD), Category::kMe);   // combining enclosing circle
  EXPECT_EQ(GetCategory(' '), Category::kZs);
  EXPECT_EQ(GetCategory(0x2028), Category::kZl);
  EXPECT_EQ(GetCategory('\n'), Category::kCc);
  EXPECT_EQ(GetCategory(0x200D), Category::kCf);   // zero-width joiner
  EXPECT_EQ(GetCategory(0xE000), Category::kCo);
  EXPECT_EQ(GetCategory(0xD800), Category::kCs);
  EXPECT_EQ(GetCategory(0x0378), Category::kCn);
  EXPECT_EQ(GetCategory(0x10FFFF), Category::kCn);
  EXPECT_EQ(GetCategory(0x110000), Category::kCn);
  EXPECT_EQ(GetCategory(0x4E00), Category::kLo);   // 一
  EXPECT_TRUE(IsPunctuation('-'));
  EXPECT_TRUE(IsSymbol('`'));
  EXPECT_TRUE(IsControl(0x200D));
  EXPECT_FALSE(IsControl(0x0378));
  EXPECT_TRUE(IsMark(0x0903));
  EXPECT_TRUE(IsLetter(0x0416));
  EXPECT_TRUE(IsNumber(0x2163));  // Ⅳ (Nl)
  EXPECT_TRUE(IsSeparator(0x3000));
}

TEST(UnicodeTablesTest, WhiteSpaceIsThePropListProperty) {
  for (char32_t cp : {0x09u, 0x0Au, 0x0Bu, 0x0Cu, 0x0Du, 0x20u, 0x85u, 0xA0u, 0x1680u, 0x2000u, 0x200Au, 0x2028u,
                      0x2029u, 0x202Fu, 0x205Fu, 0x3000u}) {
    EXPECT_TRUE(IsWhiteSpace(cp)) << std::hex << static_cast<uint32_t>(cp);
  }
  for (char32_t cp : {0x08u, 0x1Cu, 0x1Fu, 0x200Bu, 0x180Eu, 0xFEFFu, 0x61u}) {
    EXPECT_FALSE(IsWhiteSpace(cp)) << std::hex << static_cast<uint32_t>(cp);
  }
}

TEST(UnicodeTablesTest, Lowercase) {
  EXPECT_EQ(ToLower('A'), U'a');
  EXPECT_EQ(ToLower('a'), U'a');
  EXPECT_EQ(ToLower('1'), U'1');
  EXPECT_EQ(ToLower(0xC4), 0xE4u);    // Ä
  EXPECT_EQ(ToLower(0x3A3), 0x3C3u);  // Σ -> σ
  EXPECT_EQ(ToLower(0x130), U'i');    // İ (simple mapping)
  EXPECT_EQ(ToLower(0x411), 0x431u);  // Б -> б
  EXPECT_EQ(ToLower(0x10400), 0x10428u);  // Deseret
  EXPECT_EQ(ToLower(0x1E9E), 0xDFu);  // ẞ -> ß
}

TEST(UnicodeTablesTest, CombiningClass) {
  EXPECT_EQ(CombiningClass('a'), 0);
  EXPECT_EQ(CombiningClass(0x0301), 230);
  EXPECT_EQ(CombiningClass(0x0316), 220);
  EXPECT_EQ(CombiningClass(0x0327), 202);
  EXPECT_EQ(CombiningClass(0x05B0), 10);
}

TEST(NfdTest, HandCheckedDecompositions) {
  EXPECT_EQ(Nfd({0xE9}), (std::vector<char32_t>{'e', 0x301}));                // é
  EXPECT_EQ(Nfd({0x1D6}), (std::vector<char32_t>{'u', 0x308, 0x304}));        // ǖ, recursive
  EXPECT_EQ(Nfd({0x1E09}), (std::vector<char32_t>{'c', 0x327, 0x301}));       // ḉ
  EXPECT_EQ(Nfd({0xD55C}), (std::vector<char32_t>{0x1112, 0x1161, 0x11AB}));  // 한
  EXPECT_EQ(Nfd({0xAC00}), (std::vector<char32_t>{0x1100, 0x1161}));          // 가
  EXPECT_EQ(Nfd({0x212B}), (std::vector<char32_t>{'A', 0x30A}));             // Å (angstrom sign)
  EXPECT_EQ(Nfd({0xFB01}), std::vector<char32_t>{0xFB01});                    // ﬁ: compatibility only
  EXPECT_EQ(Nfd({'a', 'b'}), (std::vector<char32_t>{'a', 'b'}));
  // Canonical ordering: below (220) before above (230), stable among equals.
  EXPECT_EQ(Nfd({'a', 0x301, 0x316}), (std::vector<char32_t>{'a', 0x316, 0x301}));
  EXPECT_EQ(Nfd({0xE9, 0x316}), (std::vector<char32_t>{'e', 0x316, 0x301}));
  EXPECT_EQ(Nfd({'a', 0x301, 0x300}), (std::vector<char32_t>{'a', 0x301, 0x300}));
}

TEST(NfdTest, IsIdempotentAndFullyDecomposedForEveryCodePoint) {
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    const std::vector<char32_t> once = Nfd({cp});
    if (once.size() == 1 && once[0] == cp) continue;
    ASSERT_EQ(Nfd(once), once) << std::hex << static_cast<uint32_t>(cp);
    for (char32_t c : once) ASSERT_EQ(Nfd({c}), std::vector<char32_t>{c}) << std::hex << static_cast<uint32_t>(cp);
  }
}

}  // namespace
}  // namespace trit::unicode
