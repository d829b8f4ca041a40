// `trit tokenize MODEL [TEXT]` and `trit detokenize MODEL IDS...`: the
// model's tokenizer on its own, from any GGUF file that carries one
// (vocabulary-only files included).
#include <fmt/format.h>

#include <cstdio>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "formats/gguf/reader.h"
#include "tokenizer/tokenizer.h"

namespace trit::cli {
namespace {

struct TokenizeOptions {
  std::string model;
  std::string text;
  bool from_stdin = false;
  bool raw = false;
  bool parse_special = false;
  bool json = false;
};

struct DetokenizeOptions {
  std::string model;
  std::vector<std::string> ids;
  bool render_special = false;
  bool no_newline = false;
};

int RunTokenize(const TokenizeOptions& opt, const CLI::App& app) {
  const bool has_text = app.count("text") > 0;
  if (has_text == opt.from_stdin) {
    PrintError(has_text ? "give TEXT or --stdin, not both" : "give the TEXT to tokenize, or --stdin to read it");
    return kExitUsage;
  }
  std::string text = opt.text;
  if (opt.from_stdin) text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());

  Expected<std::unique_ptr<tokenizer::Tokenizer>> tok = tokenizer::Tokenizer::FromGgufPath(opt.model);
  if (!tok.ok()) {
    PrintError(tok.status().message());
    return kExitFailure;
  }
  tokenizer::EncodeOptions encode;
  encode.add_special = !opt.raw;
  encode.parse_special = opt.parse_special && !opt.raw;
  const std::vector<tokenizer::TokenId> ids = (*tok)->Encode(text, encode);

  if (opt.json) {
    nlohmann::ordered_json pieces = nlohmann::ordered_json::array();
    for (tokenizer::TokenId id : ids) pieces.push_back((*tok)->TokenToPiece(id, /*render_special=*/true, false));
    nlohmann::ordered_json out = {{"ids", ids}, {"pieces", pieces}};
    // A piece can be a lone byte of a UTF-8 sequence: replace rather than fail.
    fmt::print("{}\n", out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  } else {
    fmt::print("{}\n", fmt::join(ids, " "));
  }
  return kExitSuccess;
}

int RunDetokenize(const DetokenizeOptions& opt) {
  std::vector<tokenizer::TokenId> ids;
  for (const std::string& s : opt.ids) {
    // Accept "1 2 3" as one argument as well as separate arguments.
    size_t pos = 0;
    while (pos < s.size()) {
      const size_t start = s.find_first_not_of(" ,\t\n", pos);
      if (start == std::string::npos) break;
      const size_t end = s.find_first_of(" ,\t\n", start);
      const std::string word = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
      char* rest = nullptr;
      const long long v = std::strtoll(word.c_str(), &rest, 10);
      if (rest == word.c_str() || *rest != '\0' || v < 0 || v > INT32_MAX) {
        PrintError(fmt::format("'{}' is not a token id (expected a non-negative integer)", word));
        return kExitUsage;
      }
      ids.push_back(static_cast<tokenizer::TokenId>(v));
      pos = end == std::string::npos ? s.size() : end;
    }
  }
  Expected<std::unique_ptr<tokenizer::Tokenizer>> tok = tokenizer::Tokenizer::FromGgufPath(opt.model);
  if (!tok.ok()) {
    PrintError(tok.status().message());
    return kExitFailure;
  }
  const int32_t n_vocab = (*tok)->vocab().size();
  for (tokenizer::TokenId id : ids) {
    if (id >= n_vocab) {
      PrintError(fmt::format("token id {} is outside the vocabulary of {} (0..{})", id, opt.model, n_vocab - 1));
      return kExitFailure;
    }
  }
  tokenizer::DecodeOptions decode;
  decode.render_special = opt.render_special;
  const std::string text = (*tok)->Decode(ids, decode);
  std::fwrite(text.data(), 1, text.size(), stdout);
  if (!opt.no_newline) std::fputc('\n', stdout);
  return kExitSuccess;
}

}  // namespace

Command AddTokenizeCommand(CLI::App& parent) {
  auto opt = std::make_shared<TokenizeOptions>();
  CLI::App* app = parent.add_subcommand("tokenize", "Turn text into the model's token ids");
  app->add_option("model", opt->model, "GGUF file with a tokenizer (a vocabulary-only file is enough)")->required();
  app->add_option("text", opt->text, "Text to tokenize (or use --stdin)");
  app->add_flag("--stdin", opt->from_stdin, "Read the text from standard input, byte for byte");
  app->add_flag("--raw", opt->raw,
                "Add no BOS/EOS and parse no special tokens (the mode of llama.cpp's tokenizer tests)");
  app->add_flag("--parse-special", opt->parse_special,
                "Recognise control tokens such as <|im_start|> written in the text");
  app->add_flag("--json", opt->json, "Print {\"ids\": [...], \"pieces\": [...]}");
  app->footer(
      "Examples:\n  trit tokenize models/stories260K.gguf \"Once upon a time\"\n"
      "  echo -n 'Hello' | trit tokenize model.gguf --stdin --raw --json");
  CLI::App* self = app;
  return {app, [opt, self] { return RunTokenize(*opt, *self); }};
}

Command AddDetokenizeCommand(CLI::App& parent) {
  auto opt = std::make_shared<DetokenizeOptions>();
  CLI::App* app = parent.add_subcommand("detokenize", "Turn token ids back into text");
  app->add_option("model", opt->model, "GGUF file with a tokenizer")->required();
  app->add_option("ids", opt->ids, "Token ids, as separate arguments or one quoted list")->required();
  app->add_flag("--render-special", opt->render_special, "Print control tokens (such as <s>) as their text");
  app->add_flag("-n,--no-newline", opt->no_newline, "Do not end the output with a newline");
  app->footer("Example:\n  trit detokenize models/stories260K.gguf 1 403 407 261");
  return {app, [opt] { return RunDetokenize(*opt); }};
}

}  // namespace trit::cli
