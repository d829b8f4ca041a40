// Python str operations on UTF-8 text, as chat templates call them
// (s.strip(), s.split(), s[1:-1], |title ...). Indexing and lengths count
// code points like Python. Case mapping covers ASCII letters only; other
// characters pass through unchanged.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trit::chat::py {

// The code points of s as byte ranges (an invalid byte is one unit).
std::vector<std::string_view> CodePoints(std::string_view s);
size_t Length(std::string_view s);

bool IsSpace(uint32_t cp);  // str.isspace()

// chars: nullopt strips whitespace (Python's default).
std::string Strip(std::string_view s, const std::optional<std::string>& chars, bool left, bool right);
// sep: nullopt splits on whitespace runs. max_split < 0: no limit.
std::vector<std::string> Split(std::string_view s, const std::optional<std::string>& sep, int64_t max_split);
std::vector<std::string> SplitLines(std::string_view s);
// count < 0: replace all.
std::string Replace(std::string_view s, std::string_view old_text, std::string_view new_text, int64_t count);
std::string Upper(std::string_view s);
std::string Lower(std::string_view s);
std::string Capitalize(std::string_view s);  // str.capitalize()
std::string TitleMethod(std::string_view s); // str.title()
std::string TitleFilter(std::string_view s); // jinja2's |title filter (word starts after - space ( { [ <)

}  // namespace trit::chat::py
