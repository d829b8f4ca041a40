// `trit embed MODEL "text" ... [--file F] [--normalize] [--json]
// [--output F.npy]`: one vector per input from an embedding model
// (runtime/embedder.h), all inputs in batched forward passes. Vectors go
// to stdout (a short line per input, or --json) and to an .npy file that
// `trit compare` and numpy read; the timing goes to stderr.
#include <fmt/format.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/float_text.h"
#include "cli/command.h"
#include "cli/engine_option.h"
#include "cli/format_util.h"
#include "formats/gguf/reader.h"
#include "formats/npy/npy_file.h"
#include "runtime/embedder.h"
#include "store/resolve.h"
#include "tokenizer/tokenizer.h"

namespace trit::cli {
namespace {

struct EmbedOptions {
  std::string model;
  std::vector<std::string> texts;
  std::string file;
  std::string output;
  std::string pooling;
  std::string engine;
  int threads = 0;
  bool normalize = false;
  bool json = false;
  bool quiet = false;
};

// Every line of `path` ("-": standard input) is one input, an empty line
// included; a final newline ends the last line rather than adding one.
Expected<std::vector<std::string>> ReadLines(const std::string& path) {
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error(ErrorCode::kNotFound, "--file {}: cannot open it", path);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (in.bad()) return Error(ErrorCode::kIo, "--file {}: read failed", path);
  }
  std::vector<std::string> lines;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    at = end + 1;
  }
  return lines;
}

// "[0.0123, -0.0456, 0.0789, ..., 0.0012, -0.0345]": the first 4 and last 2 values.
std::string Preview(const float* v, int64_t n) {
  std::string out = "[";
  for (int64_t i = 0; i < n; ++i) {
    if (n > 6 && i == 4) {
      out += ", ...";
      i = n - 3;
      continue;
    }
    out += fmt::format("{}{:.4f}", i == 0 ? "" : ", ", v[i]);
  }
  return out + "]";
}

int RunEmbed(const EmbedOptions& opt) {
  std::optional<model::Pooling> pooling;
  if (!opt.pooling.empty()) {
    pooling = model::ParsePooling(opt.pooling);
    if (!pooling) {
      PrintError(fmt::format("--pooling '{}': expected mean, cls or last", opt.pooling));
      return kExitUsage;
    }
  }
  std::vector<std::string> inputs = opt.texts;
  if (!opt.file.empty()) {
    Expected<std::vector<std::string>> lines = ReadLines(opt.file);
    if (!lines.ok()) {
      PrintError(lines.status().message());
      return kExitFailure;
    }
    inputs.insert(inputs.end(), lines->begin(), lines->end());
  }
  if (inputs.empty()) {
    PrintError("nothing to embed: give texts after MODEL or --file F (one input per line, - for stdin)");
    return kExitUsage;
  }
  Expected<std::string> path = store::ResolveModelArgument(opt.model);
  if (!path.ok()) {
    PrintError(path.status().message());
    return kExitFailure;
  }
  int exit_code = kExitFailure;
  Expected<EngineModel> m = OpenModel(*path, engines::kCapabilityEmbed, opt.engine, &exit_code);
  if (!m.ok()) {
    PrintError(m.status().message());
    return exit_code;
  }
  Expected<std::unique_ptr<tokenizer::Tokenizer>> tok = tokenizer::Tokenizer::FromGgufPath(*path);
  if (!tok.ok()) {
    PrintError(tok.status().message());
    return kExitFailure;
  }
  const model::Encoder& encoder = *m->encoder;
  runtime::Embedder embedder(encoder, **tok);
  std::vector<std::vector<int32_t>> ids;
  for (size_t i = 0; i < inputs.size(); ++i) {
    Expected<std::vector<int32_t>> t = embedder.Tokenize(inputs[i]);
    if (!t.ok()) {
      PrintError(fmt::format("input {} ({}): {}", i, Quoted(inputs[i], 40), t.status().message()));
      return kExitFailure;
    }
    ids.push_back(std::move(t).value());
  }
  const model::Pooling used = runtime::ResolvePooling(encoder, pooling);
  const int threads = opt.threads > 0 ? opt.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ThreadPool pool(threads);
  const int64_t dim = embedder.dimension();
  std::vector<float> vectors(inputs.size() * static_cast<size_t>(dim));
  const auto start = std::chrono::steady_clock::now();
  embedder.Embed(ids, used, opt.normalize, pool, vectors.data());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  size_t n_tokens = 0;
  for (const std::vector<int32_t>& t : ids) n_tokens += t.size();

  if (!opt.output.empty()) {
    if (Status s = npy::WriteF32File(opt.output, static_cast<int64_t>(inputs.size()), dim, vectors); !s.ok()) {
      PrintError(fmt::format("--output {}: {}", opt.output, s.message()));
      return kExitFailure;
    }
  }
  const std::string pooling_note = fmt::format("{} pooling{}", model::PoolingName(used),
                                               pooling                  ? " (--pooling)"
                                               : encoder.file_pooling() ? " (the model's)"
                                                                        : " (default: the model states none)");
  if (opt.json) {
    nlohmann::ordered_json data = nlohmann::ordered_json::array();
    for (size_t i = 0; i < inputs.size(); ++i) {
      nlohmann::ordered_json v = nlohmann::ordered_json::array();
      for (int64_t j = 0; j < dim; ++j) v.push_back(ShortFloat(vectors[i * static_cast<size_t>(dim) + j]));
      data.push_back({{"index", i}, {"tokens", ids[i].size()}, {"embedding", std::move(v)}});
    }
    nlohmann::ordered_json out = {{"model", *path},
                                  {"dimension", dim},
                                  {"pooling", model::PoolingName(used)},
                                  {"normalized", opt.normalize},
                                  {"tokens", n_tokens},
                                  {"data", std::move(data)}};
    fmt::print("{}\n", out.dump());
  } else if (!opt.quiet) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      fmt::print("{:>3}  {:<42} {:>4} tokens  {}\n", i, Quoted(inputs[i], 40), ids[i].size(),
                 Preview(&vectors[i * static_cast<size_t>(dim)], dim));
    }
  }
  fmt::print(stderr, "embedded {} input{} ({} tokens) in {:.3f} s: {} dimensions, {}, {}{}\n", inputs.size(),
             inputs.size() == 1 ? "" : "s", n_tokens, seconds, dim, pooling_note,
             opt.normalize ? "L2-normalized" : "not normalized",
             opt.output.empty() ? "" : fmt::format("; wrote {}", opt.output));
  return kExitSuccess;
}

}  // namespace

Command AddEmbedCommand(CLI::App& parent) {
  auto opt = std::make_shared<EmbedOptions>();
  CLI::App* app = parent.add_subcommand("embed", "Turn texts into vectors with an embedding model (BERT family)");
  app->add_option("model", opt->model, "Embedding model: a GGUF file (e.g. from `trit convert`) or a store name")
      ->required();
  app->add_option("texts", opt->texts, "Texts to embed, one vector each");
  app->add_option("-f,--file", opt->file, "Also embed every line of this file (- for standard input), one input per line");
  app->add_flag("--normalize", opt->normalize, "Scale each vector to length 1 (L2), as sentence-transformers' Normalize does");
  app->add_option("--pooling", opt->pooling, "mean, cls or last (default: the model's, else mean)");
  app->add_option("-o,--output", opt->output, "Write the vectors to an .npy file (float32, inputs x dimensions)");
  app->add_flag("--json", opt->json, "Print {\"data\": [{\"index\", \"tokens\", \"embedding\"}], ...} on stdout");
  app->add_flag("-q,--quiet", opt->quiet, "Print no line per input (with --output)");
  app->add_option("-t,--threads", opt->threads, "Threads (0: one per hardware thread); the vectors do not depend on it")
      ->default_val(0)
      ->check(CLI::NonNegativeNumber);
  AddEngineOption(app, &opt->engine);
  app->footer(
      "Each input's vector is bit-identical whether it is embedded alone or with others, with any\n"
      "thread count, here and through trit serve's /v1/embeddings. An input longer than the model's\n"
      "context is refused, never cut. docs/EMBEDDINGS.md.\n\n"
      "Examples:\n"
      "  trit convert ~/models/all-MiniLM-L6-v2 minilm.gguf\n"
      "  trit embed minilm.gguf \"The cat sat\" \"A dog ran\" --normalize\n"
      "  trit embed minilm.gguf --file sentences.txt --normalize --output vectors.npy -q\n"
      "  trit compare vectors.npy other-machine.npy --min-cos 0.99999");
  return {app, [opt] { return RunEmbed(*opt); }};
}

}  // namespace trit::cli
