// Random bytes in, ids out, back to text: every vocabulary under
// tests/data/vocab, with and without special-token parsing. Checks that every
// id is inside the vocabulary and that the streaming decoder emits exactly
// the one-shot decoder's bytes; sanitizers catch the rest.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "formats/gguf/reader.h"
#include "tokenizer/tokenizer.h"

namespace {

using trit::tokenizer::Tokenizer;

std::vector<std::unique_ptr<Tokenizer>> LoadAll() {
  std::vector<std::unique_ptr<Tokenizer>> all;
  std::vector<std::filesystem::path> paths;
  for (const auto& e : std::filesystem::directory_iterator(TRIT_SOURCE_DIR "/tests/data/vocab")) {
    if (e.path().extension() == ".gguf") paths.push_back(e.path());
  }
  paths.push_back(TRIT_SOURCE_DIR "/models/stories260K.gguf");
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    trit::Expected<trit::gguf::File> file = trit::gguf::File::Open(p.string());
    if (!file.ok()) continue;
    trit::Expected<std::unique_ptr<Tokenizer>> tok = Tokenizer::FromGguf(*file);
    if (tok.ok()) all.push_back(std::move(tok).value());
  }
  if (all.empty()) {
    std::fprintf(stderr, "tokenizer_fuzz: no tokenizer loads from %s/tests/data/vocab\n", TRIT_SOURCE_DIR);
    std::abort();
  }
  return all;
}

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "tokenizer_fuzz: %s\n", what);
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::unique_ptr<Tokenizer>> tokenizers = LoadAll();
  if (size == 0) return 0;
  const Tokenizer& tok = *tokenizers[data[0] % tokenizers.size()];
  const bool parse_special = (data[0] >> 7) & 1;
  const bool add_special = (data[0] >> 6) & 1;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  const std::vector<trit::tokenizer::TokenId> ids =
      tok.Encode(text, {.add_special = add_special, .parse_special = parse_special});
  for (trit::tokenizer::TokenId id : ids) Check(tok.vocab().Valid(id), "Encode produced an id outside the vocabulary");

  const trit::tokenizer::DecodeOptions options{.remove_special = add_special, .render_special = parse_special};
  const std::string whole = tok.Decode(ids, options);
  trit::tokenizer::StreamingDecoder stream(tok, options);
  std::string streamed;
  for (trit::tokenizer::TokenId id : ids) streamed += stream.Push(id);
  streamed += stream.Flush();
  Check(streamed == whole, "streaming decoder output differs from Decode");
  return 0;
}
