#include "tokenizer/pretokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <span>

#include "base/check.h"

namespace trit::tokenizer {
namespace {

// ---- The regexes, as Hugging Face's tokenizer.json writes them. ----
// Where llama.cpp rewrites a construct for its own regex engine
// ((?i:...) spelled out as [sS], a trailing |\s+ dropped), these are the
// originals; llama.cpp's lists (src/llama-vocab.cpp, llm_tokenizer_bpe) give
// the order of the regexes of each type.

// GPT-2's ByteLevel regex (also the ByteLevel(use_regex=true) step of others).
constexpr std::string_view kGpt2 = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";
// Llama 3 (tiktoken cl100k): digits in groups of up to three.
constexpr std::string_view kLlama3 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
// Qwen2: as Llama 3 with single digits.
constexpr std::string_view kQwen2 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
// Qwen3.5: as Qwen2 with combining marks (\p{M}) inside words, not split off.
constexpr std::string_view kQwen35 =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kDigit = R"(\p{N})";
constexpr std::string_view kDigits = R"(\p{N}+)";
constexpr std::string_view kThreeDigits = R"([0-9][0-9][0-9])";
// DeepSeek LLM / Coder: CJK runs (the ranges are the models' own). Code
// points are escaped where a Unicode normalisation of the source text would
// change them (U+1F7D, U+1FBE, U+1FD3, U+1FDB, U+2126 and U+212A have
// singleton canonical decompositions): the letter class is the cased
// letters (Lu, Ll, Lt) up to U+1E943 as of the model's Unicode version.
constexpr std::string_view kDeepSeekCjk = R"([一-龥ࠀ-一가-퟿]+)";
constexpr std::string_view kDeepSeekLetters =
    R"(\s?[A-Za-z\x{b5}\x{c0}-\x{d6}\x{d8}-\x{f6}\x{f8}-\x{1ba}\x{1bc}-\x{1bf}\x{1c4}-\x{293}\x{295}-\x{2af})"
    R"(\x{370}-\x{373}\x{376}\x{377}\x{37b}-\x{37d}\x{37f}\x{386}\x{388}-\x{38a}\x{38c}\x{38e}-\x{3a1}\x{3a3}-\x{3f5})"
    R"(\x{3f7}-\x{481}\x{48a}-\x{52f}\x{531}-\x{556}\x{10a0}-\x{10c5}\x{13a0}-\x{13f5}\x{13f8}-\x{13fd}\x{1c90}-\x{1cba})"
    R"(\x{1cbd}-\x{1cbf}\x{1d00}-\x{1d2b}\x{1d6b}-\x{1d77}\x{1d79}-\x{1d9a}\x{1e00}-\x{1f15}\x{1f18}-\x{1f1d}\x{1f20}-\x{1f45})"
    R"(\x{1f48}-\x{1f4d}\x{1f50}-\x{1f57}\x{1f59}\x{1f5b}\x{1f5d}\x{1f5f}-\x{1f7d}\x{1f80}-\x{1fb4}\x{1fb6}-\x{1fbc}\x{1fbe})"
    R"(\x{1fc2}-\x{1fc4}\x{1fc6}-\x{1fcc}\x{1fd0}-\x{1fd3}\x{1fd6}-\x{1fdb}\x{1fe0}-\x{1fec}\x{1ff2}-\x{1ff4}\x{1ff6}-\x{1ffc})"
    R"(\x{2102}\x{2107}\x{210a}-\x{2113}\x{2115}\x{2119}-\x{211d}\x{2124}\x{2126}\x{2128}\x{212a}-\x{212d}\x{212f}-\x{2134})"
    R"(\x{2139}\x{213c}-\x{213f}\x{2145}-\x{2149}\x{214e}\x{2183}\x{2184}\x{2c00}-\x{2c7b}\x{2c7e}-\x{2ce4}\x{2ceb}-\x{2cee})"
    R"(\x{2cf2}\x{2cf3}\x{a640}-\x{a66d}\x{a680}-\x{a69b}\x{a722}-\x{a76f}\x{a771}-\x{a787}\x{a78b}-\x{a78e}\x{ab70}-\x{abbf})"
    R"(\x{fb00}-\x{fb06}\x{fb13}-\x{fb17}\x{ff21}-\x{ff3a}\x{ff41}-\x{ff5a}\x{10400}-\x{1044f}\x{104b0}-\x{104d3})"
    R"(\x{104d8}-\x{104fb}\x{10c80}-\x{10cb2}\x{10cc0}-\x{10cf2}\x{118a0}-\x{118df}\x{1e900}-\x{1e943}]+)";
constexpr std::string_view kDeepSeekPunct = R"(\s?[!-/:-~！-／：-～‘-‟　-。]+)";
constexpr std::string_view kDeepSeek3 =
    R"([!"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~][A-Za-z]+|[^\r\n\p{L}\p{P}\p{S}]?[\p{L}\p{M}]+| ?[\p{P}\p{S}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kPoro = R"( ?[^(\s|.,!?…。，、।۔،)]+)";
constexpr std::string_view kTekken =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kGpt4o =
    R"([^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
constexpr std::string_view kBailingMoe =
    R"('(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]++[\r\n]*|\s*[\r\n]|\s+(?!\S)|\s+)";
constexpr std::string_view kSeedCoder =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1}| ?[^\s\p{L}\p{N}\r\n]+|\s*[\r\n]+|\s+(?!\S)|\s+)";

// One pre type: the tokenizer.ggml.pre names that select it, its regexes in
// order, and llama.cpp's flags for it (llama_vocab::impl::load).
struct PreType {
  std::string_view type;
  std::vector<std::string_view> names;
  std::vector<std::string_view> regexes;
  bool clean_spaces = true;
  bool ignore_merges = false;
  bool spm_style = false;
};

const std::vector<PreType>& PreTypes() {
  static const std::vector<PreType> kTypes = {
      {"default", {"default"}, {R"([\p{P}\$\+<=>\^~\|]+)", kGpt2, kDigits, kThreeDigits}},
      // SentencePiece-style BPE: only newline runs apart (no merge holds one).
      {"gemma4", {"gemma4", "granite-embed-multi-311m"}, {R"([^\n]+|[\n]+)"}, true, false, true},
      {"gpt2",
       {"gpt-2", "phi-2", "jina-es", "jina-de", "jina-v2-es", "jina-v2-de", "gigachat", "a.x-4.0", "mellum", "exaone4"},
       {kGpt2}},
      {"mpt", {"mpt"}, {kGpt2}},
      {"olmo", {"olmo"}, {kGpt2}},
      {"jais", {"jais"}, {kGpt2}},
      {"trillion", {"trillion"}, {kGpt2}, false},
      {"granite-docling", {"granite-docling"}, {kGpt2}, false},
      {"llama3", {"llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2"}, {kLlama3},
       true, true},
      {"dbrx", {"dbrx"}, {kLlama3}},
      {"smaug", {"smaug-bpe"}, {kLlama3}},
      {"qwen2", {"qwen2", "deepseek-r1-qwen", "kormo"}, {kQwen2}, false},
      {"qwen2", {"megrez"}, {kQwen2}},
      {"qwen35", {"qwen35"}, {kQwen35}, false},
      {"stablelm2", {"stablelm2"}, {kQwen2}},
      {"hunyuan", {"hunyuan"}, {kQwen2}, false},
      {"grok-2", {"grok-2"}, {kQwen2}, false},
      {"falcon", {"falcon"}, {R"([\p{P}\$\+<=>\^~\|`]+)", kGpt2, kThreeDigits}},
      {"starcoder", {"starcoder"}, {kDigit, kGpt2}},
      {"refact", {"refact"}, {kDigit, kGpt2}},
      {"command-r", {"command-r"}, {kDigit, kGpt2}, false},
      {"smollm", {"smollm"}, {kDigit, kGpt2}, false},
      {"codeshell", {"codeshell"}, {kDigit, kGpt2}},
      {"exaone", {"exaone"}, {kDigit, kGpt2}},
      {"minerva", {"minerva-7b"}, {kDigit, kGpt2}},
      {"deepseek-llm",
       {"deepseek-llm"},
       {"[\r\n]", kDeepSeekLetters, kDeepSeekPunct, R"(\s+$)", kDeepSeekCjk, kDigits},
       false},
      {"deepseek-coder", {"deepseek-coder"}, {"[\r\n]", R"(\s?\p{L}+)", R"(\s?\p{P}+)", kDeepSeekCjk, kDigit}, false},
      {"deepseek3-llm", {"deepseek-v3"}, {R"(\p{N}{1,3})", R"([一-龥぀-ゟ゠-ヿ]+)", kDeepSeek3}, false},
      {"hunyuan-dense", {"hunyuan-dense"}, {R"(\p{N}{1,3})", R"([一-龥぀-ゟ゠-ヿ]+)", kDeepSeek3}, false},
      {"poro", {"poro-chat"}, {kPoro}, false},
      {"bloom", {"bloom"}, {kPoro}},
      {"gpt3-finnish", {"gpt3-finnish"}, {kPoro}},
      {"viking", {"viking"}, {kPoro, kDigit}, false},
      {"tekken", {"tekken"}, {kTekken}, false, true},
      {"gpt-4o", {"gpt-4o", "llama4"}, {kGpt4o}, false},
      {"minimax-m2", {"minimax-m2"}, {kGpt4o}, false},
      {"bailingmoe", {"bailingmoe", "bailingmoe2", "llada-moe"}, {kBailingMoe}, false},
      {"seed-coder", {"seed-coder"}, {kSeedCoder}, false},
      {"chameleon",
       {"chameleon"},
       {"<sentinel:[0-9]+>", "(IMGIMG)((A|B|C|D|E|F|G|H|I){1,4})Z", "([\\t\\n]|    |  )", kDigit,
        R"([\p{P}!-/:-@\[-`{-~])", kGpt2},
       false},
  };
  return kTypes;
}

// Hugging Face runs these regexes with Oniguruma, whose Unicode \s is
// U+0009..U+000D, U+0085 and the separators (Zs, Zl, Zp) -- the same set as
// llama.cpp's is_whitespace. PCRE2 10.42's \s leaves out U+0085, so \s and \S
// are spelled out before compiling.
constexpr std::string_view kSpaceClassBody = R"(\t-\r \x{85}\p{Z})";

std::string SpellOutWhitespace(std::string_view regex) {
  std::string out;
  bool in_class = false;
  for (size_t i = 0; i < regex.size(); ++i) {
    const char c = regex[i];
    if (c == '\\' && i + 1 < regex.size()) {
      const char e = regex[++i];
      if (e == 's') {
        out += in_class ? std::string(kSpaceClassBody) : "[" + std::string(kSpaceClassBody) + "]";
      } else if (e == 'S') {
        TRIT_CHECK(!in_class);  // no table regex has \S inside a class
        out += "[^" + std::string(kSpaceClassBody) + "]";
      } else {
        out += c;
        out += e;
      }
      continue;
    }
    if (!in_class && c == '[') {
      in_class = true;
      out += c;
      // A ']' right after '[' or '[^' is a literal.
      if (i + 1 < regex.size() && regex[i + 1] == '^') out += regex[++i];
      if (i + 1 < regex.size() && regex[i + 1] == ']') out += regex[++i];
      continue;
    }
    if (in_class && c == ']') in_class = false;
    out += c;
  }
  return out;
}

struct CodeDeleter {
  void operator()(pcre2_code* code) const { pcre2_code_free(code); }
};

struct CompiledRegex {
  std::unique_ptr<pcre2_code, CodeDeleter> code;
  bool jit = false;
};

}  // namespace

struct PreTokenizer::Impl {
  const PreType* type = nullptr;
  std::vector<CompiledRegex> regexes;
};

PreTokenizer::PreTokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PreTokenizer::PreTokenizer(PreTokenizer&&) noexcept = default;
PreTokenizer& PreTokenizer::operator=(PreTokenizer&&) noexcept = default;
PreTokenizer::~PreTokenizer() = default;

std::vector<std::string_view> PreTokenizer::SupportedNames() {
  std::vector<std::string_view> names;
  for (const PreType& t : PreTypes()) names.insert(names.end(), t.names.begin(), t.names.end());
  std::sort(names.begin(), names.end());
  return names;
}

Expected<PreTokenizer> PreTokenizer::ForName(std::string_view pre) {
  const PreType* type = nullptr;
  for (const PreType& t : PreTypes()) {
    if (std::find(t.names.begin(), t.names.end(), pre) != t.names.end()) type = &t;
  }
  if (type == nullptr) {
    std::string supported;
    for (std::string_view name : SupportedNames()) {
      if (!supported.empty()) supported += ", ";
      supported += name;
    }
    return Error(ErrorCode::kUnsupported, "tokenizer.ggml.pre '{}' is not supported (supported: {})", pre, supported);
  }
  auto impl = std::make_unique<Impl>();
  impl->type = type;
  for (std::string_view regex : type->regexes) {
    const std::string pattern = SpellOutWhitespace(regex);
    int error = 0;
    PCRE2_SIZE error_offset = 0;
    // UTF + UCP: Unicode properties; MATCH_INVALID_UTF: any subject bytes are
    // safe; DOLLAR_ENDONLY: '$' is the piece's end only (as in Oniguruma with
    // no newline left in the piece, and std::regex).
    pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                     PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF | PCRE2_DOLLAR_ENDONLY, &error,
                                     &error_offset, nullptr);
    // The table is trit's own: a regex that does not compile is a bug.
    TRIT_CHECK(code != nullptr);
    CompiledRegex compiled;
    compiled.code.reset(code);
    compiled.jit = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
    impl->regexes.push_back(std::move(compiled));
  }
  return PreTokenizer(std::move(impl));
}

std::string_view PreTokenizer::type_name() const { return impl_->type->type; }
bool PreTokenizer::clean_spaces() const { return impl_->type->clean_spaces; }
bool PreTokenizer::ignore_merges() const { return impl_->type->ignore_merges; }
bool PreTokenizer::spm_style() const { return impl_->type->spm_style; }

namespace {

struct MatchDataDeleter {
  void operator()(pcre2_match_data* m) const { pcre2_match_data_free(m); }
};
struct MatchContextDeleter {
  void operator()(pcre2_match_context* m) const { pcre2_match_context_free(m); }
};
struct JitStackDeleter {
  void operator()(pcre2_jit_stack* s) const { pcre2_jit_stack_free(s); }
};

// Per-call matching state (a JIT stack serves one thread at a time).
class Matcher {
 public:
  Matcher()
      : data_(pcre2_match_data_create(1, nullptr)),
        context_(pcre2_match_context_create(nullptr)),
        stack_(pcre2_jit_stack_create(32 * 1024, 8 * 1024 * 1024, nullptr)) {
    TRIT_CHECK(data_ != nullptr && context_ != nullptr);
    if (stack_ != nullptr) pcre2_jit_stack_assign(context_.get(), nullptr, stack_.get());
  }

  // Finds the first non-empty match in subject[offset..]; false when none.
  bool Next(const CompiledRegex& re, std::string_view subject, size_t offset, size_t* begin, size_t* end) {
    const auto* s = reinterpret_cast<PCRE2_SPTR>(subject.data());
    int rc = PCRE2_ERROR_NOMATCH;
    if (re.jit && stack_ != nullptr) {
      rc = pcre2_jit_match(re.code.get(), s, subject.size(), offset, PCRE2_NOTEMPTY, data_.get(), context_.get());
    }
    if (!re.jit || stack_ == nullptr || (rc < 0 && rc != PCRE2_ERROR_NOMATCH)) {
      // The interpreter: no JIT, or the JIT ran out of stack.
      rc = pcre2_match(re.code.get(), s, subject.size(), offset, PCRE2_NOTEMPTY, data_.get(), context_.get());
    }
    if (rc == PCRE2_ERROR_NOMATCH) return false;
    if (rc < 0) {
      // A resource limit even for the interpreter (not reached by the table's
      // regexes in practice): the rest of the piece stays one piece.
      return false;
    }
    const PCRE2_SIZE* ovector = pcre2_get_ovector_pointer(data_.get());
    *begin = ovector[0];
    *end = ovector[1];
    return true;
  }

 private:
  std::unique_ptr<pcre2_match_data, MatchDataDeleter> data_;
  std::unique_ptr<pcre2_match_context, MatchContextDeleter> context_;
  std::unique_ptr<pcre2_jit_stack, JitStackDeleter> stack_;
};

}  // namespace

void PreTokenizer::Split(std::string_view text, std::vector<std::string_view>* pieces) const {
  if (text.empty()) return;
  Matcher matcher;
  std::vector<std::string_view> current = {text};
  std::vector<std::string_view> next;
  for (const CompiledRegex& re : impl_->regexes) {
    next.clear();
    for (std::string_view piece : current) {
      size_t pos = 0;
      size_t begin = 0;
      size_t end = 0;
      while (pos < piece.size() && matcher.Next(re, piece, pos, &begin, &end)) {
        if (begin > pos) next.push_back(piece.substr(pos, begin - pos));
        next.push_back(piece.substr(begin, end - begin));
        pos = end;
      }
      if (pos < piece.size()) next.push_back(piece.substr(pos));
    }
    current.swap(next);
  }
  pieces->insert(pieces->end(), current.begin(), current.end());
}

}  // namespace trit::tokenizer
