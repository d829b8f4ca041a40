#include "chat/lexer.h"

#include <algorithm>
#include <cstdint>

namespace trit::chat {
namespace {

bool IsPySpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
bool IsNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNameChar(char c) { return IsNameStart(c) || IsDigit(c); }

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// jinja2 normalizes every newline to \n and drops one trailing newline
// (keep_trailing_newline=False).
std::string NormalizeNewlines(std::string_view source) {
  std::string out;
  out.reserve(source.size());
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\r') {
      out += '\n';
      if (i + 1 < source.size() && source[i + 1] == '\n') ++i;
    } else {
      out += source[i];
    }
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

class Lexer {
 public:
  Lexer(std::string source, const LexOptions& options) : src_(std::move(source)), options_(options) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < src_.size(); ++i) {
      if (src_[i] == '\n') line_starts_.push_back(i + 1);
    }
  }

  std::vector<Token> Run() {
    size_t pos = 0;
    bool line_starting = true;
    while (pos < src_.size()) {
      size_t tag = FindTagStart(pos);
      std::string text = src_.substr(pos, tag == std::string::npos ? std::string::npos : tag - pos);
      if (tag == std::string::npos) {
        Emit(TokenKind::kText, std::move(text), pos);
        break;
      }
      const char kind = src_[tag + 1];
      size_t p = tag + 2;
      char modifier = 0;
      if (p < src_.size() && (src_[p] == '-' || src_[p] == '+')) modifier = src_[p++];
      if (modifier == '-') {
        while (!text.empty() && IsPySpace(text.back())) text.pop_back();
      } else if (modifier != '+' && options_.lstrip_blocks && kind != '{') {
        size_t l_pos = text.rfind('\n');
        l_pos = l_pos == std::string::npos ? 0 : l_pos + 1;
        if ((l_pos > 0 || line_starting) &&
            std::all_of(text.begin() + static_cast<std::ptrdiff_t>(l_pos), text.end(),
                        [](char c) { return c == ' ' || c == '\t'; })) {
          text.resize(l_pos);
        }
      }
      if (!text.empty()) Emit(TokenKind::kText, std::move(text), pos);
      if (kind == '#') {
        pos = SkipComment(tag, p);
      } else {
        Emit(kind == '{' ? TokenKind::kVarBegin : TokenKind::kBlockBegin, kind == '{' ? "{{" : "{%", tag);
        pos = LexTag(kind, tag, p);
      }
      line_starting = pos > 0 && src_[pos - 1] == '\n';
    }
    Emit(TokenKind::kEnd, "", src_.size());
    return std::move(tokens_);
  }

 private:
  SourcePos PosOf(size_t offset) const {
    auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
    const size_t line = static_cast<size_t>(it - line_starts_.begin());
    return {static_cast<int>(line), static_cast<int>(offset - line_starts_[line - 1] + 1)};
  }

  void Emit(TokenKind kind, std::string text, size_t offset) {
    tokens_.push_back(Token{kind, std::move(text), PosOf(offset)});
  }

  [[noreturn]] void Fail(size_t offset, const std::string& message) const {
    throw TemplateError(PosOf(offset), message);
  }

  size_t FindTagStart(size_t from) const {
    for (size_t i = from; i + 1 < src_.size(); ++i) {
      if (src_[i] == '{' && (src_[i + 1] == '{' || src_[i + 1] == '%' || src_[i + 1] == '#')) return i;
    }
    return std::string::npos;
  }

  // After an end delimiter: "-" strips all following whitespace; a plain
  // block end drops one newline (trim_blocks).
  size_t AfterEnd(size_t pos, char modifier, bool is_block) const {
    if (modifier == '-') {
      while (pos < src_.size() && IsPySpace(src_[pos])) ++pos;
    } else if (modifier == 0 && is_block && options_.trim_blocks && pos < src_.size() && src_[pos] == '\n') {
      ++pos;
    }
    return pos;
  }

  size_t SkipComment(size_t tag, size_t body) const {
    size_t end = src_.find("#}", body);
    if (end == std::string::npos) Fail(tag, "unterminated comment: expected '#}'");
    char modifier = 0;
    if (end > body && (src_[end - 1] == '-' || src_[end - 1] == '+')) modifier = src_[end - 1];
    return AfterEnd(end + 2, modifier, /*is_block=*/true);
  }

  // Lexes expression tokens after "{{" or "{%" up to the matching end
  // delimiter; returns the offset after it. End delimiters inside brackets
  // are not ends (as in jinja2: {{ {'a': {'b': 1}} }}).
  size_t LexTag(char kind, size_t start, size_t pos) {
    std::vector<char> brackets;
    while (true) {
      while (pos < src_.size() && IsPySpace(src_[pos])) ++pos;
      if (pos >= src_.size()) {
        Fail(start, kind == '{' ? "unterminated '{{': expected '}}'" : "unterminated '{%': expected '%}'");
      }
      if (brackets.empty()) {
        const std::string_view rest(src_.data() + pos, src_.size() - pos);
        const std::string_view close = kind == '{' ? "}}" : "%}";
        for (char modifier : {'-', '+', '\0'}) {
          if (modifier == '+' && kind == '{') continue;  // jinja2 has no "+}}"
          const std::string end = modifier ? std::string(1, modifier) + std::string(close) : std::string(close);
          if (rest.substr(0, end.size()) == end) {
            Emit(kind == '{' ? TokenKind::kVarEnd : TokenKind::kBlockEnd, std::string(close), pos);
            return AfterEnd(pos + end.size(), modifier, kind == '%');
          }
        }
      }
      pos = LexOne(pos, brackets);
    }
  }

  size_t LexOne(size_t pos, std::vector<char>& brackets) {
    const char c = src_[pos];
    if (IsNameStart(c)) {
      size_t end = pos;
      while (end < src_.size() && IsNameChar(src_[end])) ++end;
      Emit(TokenKind::kName, src_.substr(pos, end - pos), pos);
      return end;
    }
    if (IsDigit(c)) return LexNumber(pos);
    if (c == '\'' || c == '"') return LexString(pos);
    static constexpr std::string_view kTwoChar[] = {"//", "**", "==", "!=", "<=", ">="};
    for (std::string_view op : kTwoChar) {
      if (src_.compare(pos, 2, op) == 0) {
        Emit(TokenKind::kOperator, std::string(op), pos);
        return pos + 2;
      }
    }
    static constexpr std::string_view kOneChar = "+-*/%~<>=|.,:()[]{}";
    if (kOneChar.find(c) == std::string_view::npos) {
      Fail(pos, std::string("unexpected character '") + c + "' in expression");
    }
    if (c == '(' || c == '[' || c == '{') {
      if (brackets.size() >= 256) Fail(pos, "brackets nested deeper than 256");
      brackets.push_back(c == '(' ? ')' : c == '[' ? ']' : '}');
    } else if (c == ')' || c == ']' || c == '}') {
      if (brackets.empty() || brackets.back() != c) Fail(pos, std::string("unexpected '") + c + "'");
      brackets.pop_back();
    }
    Emit(TokenKind::kOperator, std::string(1, c), pos);
    return pos + 1;
  }

  size_t LexNumber(size_t pos) {
    size_t end = pos;
    while (end < src_.size() && IsDigit(src_[end])) ++end;
    bool is_float = false;
    if (end + 1 < src_.size() && src_[end] == '.' && IsDigit(src_[end + 1])) {
      is_float = true;
      ++end;
      while (end < src_.size() && IsDigit(src_[end])) ++end;
    }
    if (end < src_.size() && (src_[end] == 'e' || src_[end] == 'E')) {
      size_t e = end + 1;
      if (e < src_.size() && (src_[e] == '+' || src_[e] == '-')) ++e;
      if (e < src_.size() && IsDigit(src_[e])) {
        is_float = true;
        end = e;
        while (end < src_.size() && IsDigit(src_[end])) ++end;
      }
    }
    Emit(is_float ? TokenKind::kFloat : TokenKind::kInteger, src_.substr(pos, end - pos), pos);
    return end;
  }

  size_t LexString(size_t pos) {
    const char quote = src_[pos];
    size_t end = pos + 1;
    while (end < src_.size() && src_[end] != quote) {
      end += src_[end] == '\\' ? 2 : 1;
    }
    if (end >= src_.size()) Fail(pos, std::string("unterminated string: expected closing ") + quote);
    Emit(TokenKind::kString, DecodeStringEscapes(std::string_view(src_).substr(pos + 1, end - pos - 1)), pos);
    return end + 1;
  }

  std::string src_;
  LexOptions options_;
  std::vector<size_t> line_starts_;
  std::vector<Token> tokens_;
};

}  // namespace

std::string DecodeStringEscapes(std::string_view body) {
  std::string out;
  out.reserve(body.size());
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 >= body.size()) {
      out += body[i];
      continue;
    }
    const char e = body[++i];
    switch (e) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case '\n': break;  // line continuation
      case 'x':
      case 'u':
      case 'U': {
        const size_t n_digits = e == 'x' ? 2 : e == 'u' ? 4 : 8;
        uint32_t cp = 0;
        bool valid = i + n_digits < body.size();
        for (size_t k = 1; valid && k <= n_digits; ++k) {
          const int h = HexValue(body[i + k]);
          if (h < 0) valid = false;
          else cp = cp * 16 + static_cast<uint32_t>(h);
        }
        if (!valid || cp > 0x10FFFF) {  // Python rejects these; keep them verbatim
          out += '\\';
          out += e;
        } else {
          AppendUtf8(out, cp);
          i += n_digits;
        }
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          uint32_t cp = static_cast<uint32_t>(e - '0');
          for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7'; ++k) {
            cp = cp * 8 + static_cast<uint32_t>(body[++i] - '0');
          }
          AppendUtf8(out, cp);
        } else {
          out += '\\';
          out += e;
        }
    }
  }
  return out;
}

std::vector<Token> Tokenize(std::string_view source, const LexOptions& options) {
  return Lexer(NormalizeNewlines(source), options).Run();
}

}  // namespace trit::chat
