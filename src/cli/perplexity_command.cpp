// `trit perplexity MODEL FILE.txt [--ctx 512] [--chunks N] [--save-logits F]`
// and `trit perplexity MODEL --kld-base F`: llama.cpp's llama-perplexity
// method (runtime/perplexity.h), its figures printed the same way, and its
// --kl-divergence-base file read and written, so either program can be the
// base of the other.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "base/atomic_file.h"
#include "cli/command.h"
#include "cli/engine_option.h"
#include "engines/model_format.h"
#include "formats/gguf/reader.h"
#include "runtime/perplexity.h"
#include "store/resolve.h"
#include "tokenizer/tokenizer.h"

namespace trit::cli {
namespace {

struct PerplexityCommandOptions {
  std::string model;
  std::string text;
  int64_t ctx = 512;
  int64_t batch = 0;  // 0: the whole chunk in one pass
  int64_t chunks = 0;
  int threads = 0;
  std::string kv = "f16";
  std::string engine;
  std::string save_logits;
  std::string kld_base;
  bool json = false;
};

Expected<std::string> ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error(ErrorCode::kNotFound, "{}: cannot open the text file", path);
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) return Error(ErrorCode::kIo, "{}: read error", path);
  std::string text = std::move(s).str();
  // As llama-perplexity's -f: one trailing newline is not part of the text.
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

// Progress on stderr: a bar redrawn in place on a terminal, a line per chunk otherwise.
class ProgressPrinter {
 public:
  ProgressPrinter() : tty_(::isatty(STDERR_FILENO) != 0) {}

  void operator()(const runtime::PerplexityProgress& p) {
    const double per_chunk = p.seconds / static_cast<double>(p.chunk);
    const int64_t eta = static_cast<int64_t>(per_chunk * static_cast<double>(p.n_chunk - p.chunk) + 0.5);
    const std::string figures = fmt::format("chunk {}/{}  PPL {:.4f}  {:.2f} s/chunk  ETA {}:{:02}", p.chunk, p.n_chunk,
                                            p.ppl, per_chunk, eta / 60, eta % 60);
    if (!tty_) {
      fmt::print(stderr, "perplexity: {}\n", figures);
      return;
    }
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(kWidth * p.chunk / std::max<int64_t>(1, p.n_chunk));
    fmt::print(stderr, "\r[{}{}] {}\x1b[K", std::string(static_cast<size_t>(filled), '#'),
               std::string(static_cast<size_t>(kWidth - filled), '.'), figures);
    if (p.chunk == p.n_chunk) fmt::print(stderr, "\n");
  }

 private:
  bool tty_;
};

nlohmann::ordered_json MeanErrorJson(const runtime::MeanError& m) { return {{"value", m.mean}, {"error", m.error}}; }

nlohmann::ordered_json SpreadJson(const runtime::MeanError& m, const runtime::Spread& s) {
  return {{"mean", m.mean}, {"error", m.error}, {"max", s.max},   {"p99_9", s.p99_9},   {"p99", s.p99},
          {"p95", s.p95},   {"p90", s.p90},     {"p75", s.p75},   {"median", s.median}, {"p25", s.p25},
          {"p10", s.p10},   {"p5", s.p5},       {"p1", s.p1},     {"p0_1", s.p0_1},     {"min", s.min}};
}

// llama-perplexity's lines of a spread: "Maximum NAME", "99.9%   NAME", ... "Minimum NAME",
// each value formatted by `value` (llama.cpp prints Δp's 75% and 25% lines, not KLD's).
void PrintSpread(const std::string& name, const runtime::Spread& s, bool quartiles,
                 const std::function<std::string(double)>& value) {
  struct Line {
    const char* label;
    double value;
    bool quartile;
  };
  const Line lines[] = {{"Maximum", s.max, false},  {"99.9%  ", s.p99_9, false}, {"99.0%  ", s.p99, false},
                        {"95.0%  ", s.p95, false},  {"90.0%  ", s.p90, false},   {"75.0%  ", s.p75, true},
                        {"Median ", s.median, false}, {"25.0%  ", s.p25, true},  {"10.0%  ", s.p10, false},
                        {" 5.0%  ", s.p5, false},   {" 1.0%  ", s.p1, false},    {" 0.1%  ", s.p0_1, false},
                        {"Minimum", s.min, false}};
  for (const Line& line : lines) {
    if (!line.quartile || quartiles) fmt::print("{} {}: {}\n", line.label, name, value(line.value));
  }
}

nlohmann::ordered_json KldJson(const runtime::KldSummary& k) {
  nlohmann::ordered_json j;
  j["rows"] = k.count;
  j["ppl"] = MeanErrorJson(k.ppl);
  j["ppl_base"] = MeanErrorJson(k.ppl_base);
  j["ln_ppl_correlation"] = k.ln_ppl_correlation;
  j["ln_ppl_ratio"] = MeanErrorJson(k.ln_ppl_ratio);
  j["ppl_ratio"] = MeanErrorJson(k.ppl_ratio);
  j["ppl_diff"] = MeanErrorJson(k.ppl_diff);
  j["kld"] = SpreadJson(k.kld, k.kld_spread);
  j["delta_p"] = SpreadJson(k.p_diff, k.p_diff_spread);
  j["delta_p"]["rms"] = k.p_diff_rms.mean;
  j["delta_p"]["rms_error"] = k.p_diff_rms.error;
  j["same_top"] = MeanErrorJson(k.same_top);
  return j;
}

void PrintJson(const PerplexityCommandOptions& opt, const std::string& engine, int64_t n_tokens,
               const runtime::PerplexityResult& r) {
  nlohmann::ordered_json j;
  j["model"] = opt.model;
  j["engine"] = engine;
  if (!opt.text.empty()) j["text"] = opt.text;
  if (!opt.kld_base.empty()) j["kld_base"] = opt.kld_base;
  j["text_tokens"] = n_tokens;
  j["n_ctx"] = r.n_ctx;
  j["chunks"] = r.n_chunk;
  j["scored_tokens"] = r.nll.count();
  j["ppl"] = r.nll.Ppl();
  j["ppl_error"] = r.nll.PplError();
  j["mean_nll"] = r.nll.MeanNll();
  j["running_ppl"] = r.running_ppl;
  j["seconds"] = r.seconds;
  j["tokens_per_second"] = r.seconds > 0 ? static_cast<double>(r.n_chunk * (r.n_ctx - 1)) / r.seconds : 0.0;
  if (r.kld) j["kl_divergence"] = KldJson(*r.kld);
  if (!opt.save_logits.empty()) j["saved_logits"] = opt.save_logits;
  fmt::print("{}\n", j.dump());
}

void PrintKldText(const runtime::KldSummary& k) {
  fmt::print("====== Perplexity statistics ({} rows) ======\n", k.count);
  fmt::print("Mean PPL(Q)                   : {:10.6f} ± {:10.6f}\n", k.ppl.mean, k.ppl.error);
  fmt::print("Mean PPL(base)                : {:10.6f} ± {:10.6f}\n", k.ppl_base.mean, k.ppl_base.error);
  fmt::print("Cor(ln(PPL(Q)), ln(PPL(base))): {:6.2f}%\n", 100.0 * k.ln_ppl_correlation);
  fmt::print("Mean ln(PPL(Q)/PPL(base))     : {:10.6f} ± {:10.6f}\n", k.ln_ppl_ratio.mean, k.ln_ppl_ratio.error);
  fmt::print("Mean PPL(Q)/PPL(base)         : {:10.6f} ± {:10.6f}\n", k.ppl_ratio.mean, k.ppl_ratio.error);
  fmt::print("Mean PPL(Q)-PPL(base)         : {:10.6f} ± {:10.6f}\n\n", k.ppl_diff.mean, k.ppl_diff.error);
  fmt::print("====== KL divergence statistics ======\n");
  fmt::print("Mean    KLD: {:10.6f} ± {:10.6f}\n", k.kld.mean, k.kld.error);
  PrintSpread("KLD", k.kld_spread, false, [](double v) { return fmt::format("{:10.6f}", v); });
  fmt::print("\n");
  fmt::print("====== Token probability statistics ======\n");
  fmt::print("Mean    Δp: {:6.3f} ± {:5.3f} %\n", 100.0 * k.p_diff.mean, 100.0 * k.p_diff.error);
  PrintSpread("Δp", k.p_diff_spread, true, [](double v) { return fmt::format("{:6.3f}%", 100.0 * v); });
  fmt::print("RMS Δp    : {:6.3f} ± {:5.3f} %\n", 100.0 * k.p_diff_rms.mean, 100.0 * k.p_diff_rms.error);
  fmt::print("Same top p: {:6.3f} ± {:5.3f} %\n", 100.0 * k.same_top.mean, 100.0 * k.same_top.error);
}

void PrintText(const PerplexityCommandOptions& opt, const std::string& engine, int64_t n_tokens,
               const runtime::PerplexityResult& r) {
  fmt::print("model {} on engine {}: {} tokens{}, {} chunks of {}, {} tokens scored, {:.1f} s\n", opt.model, engine,
             n_tokens, opt.kld_base.empty() ? "" : " from the base", r.n_chunk, r.n_ctx, r.nll.count(), r.seconds);
  std::string running;
  for (size_t i = 0; i < r.running_ppl.size(); ++i) running += fmt::format("[{}]{:.4f},", i + 1, r.running_ppl[i]);
  fmt::print("{}\n", running);
  fmt::print("Final estimate: PPL = {:.4f} +/- {:.5f}\n", r.nll.Ppl(), r.nll.PplError());
  if (r.kld) {
    fmt::print("\n");
    PrintKldText(*r.kld);
  }
  if (!opt.save_logits.empty()) fmt::print("saved the log probabilities of {} rows to {}\n", r.nll.count(), opt.save_logits);
}

struct Prepared {
  EngineModel model;
  std::unique_ptr<runtime::Session> session;
  runtime::PerplexityOptions options;
};

Expected<Prepared> Prepare(PerplexityCommandOptions& opt, int64_t n_ctx, int* exit_code) {
  Expected<std::string> path = store::ResolveModelArgument(opt.model);  // a path, a store name or a URL
  if (!path.ok()) return path.status();
  opt.model = *path;
  Prepared p;
  Expected<EngineModel> model = OpenModel(opt.model, engines::kCapabilityGenerate, opt.engine, exit_code);
  if (!model.ok()) return model.status();
  p.model = std::move(model).value();
  *exit_code = kExitFailure;
  runtime::SessionOptions so;
  so.n_ctx = n_ctx;
  so.n_threads = opt.threads > 0 ? opt.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  so.kv_type = opt.kv == "f32" ? kernels::KvType::kF32 : kernels::KvType::kF16;
  Expected<std::unique_ptr<runtime::Session>> session = p.model.engine->CreateSession(*p.model.model, so);
  if (!session.ok()) return session.status();
  p.session = std::move(session).value();
  p.options.n_ctx = n_ctx;
  p.options.n_batch = opt.batch > 0 ? opt.batch : n_ctx;
  p.options.max_chunks = opt.chunks;
  return p;
}

// The model's tokenizer, from its GGUF file (a pack's weights file).
Expected<std::unique_ptr<tokenizer::Tokenizer>> ModelTokenizer(const std::string& model_path) {
  Expected<std::string> weights = engines::WeightsFile(model_path);
  if (!weights.ok()) return weights.status();
  return tokenizer::Tokenizer::FromGgufPath(*weights);
}

// The id that replaces each chunk's first token: BOS when the model adds one.
int32_t ChunkBos(const tokenizer::Vocab& vocab) { return vocab.add_bos() ? vocab.special().bos : -1; }

// The tokens of the text as llama-perplexity makes them, and the BOS each chunk starts with.
Expected<std::vector<int32_t>> TokenizeText(const std::string& model_path, const std::string& text_path,
                                            int32_t* bos) {
  Expected<std::string> text = ReadText(text_path);
  if (!text.ok()) return text.status();
  Expected<std::unique_ptr<tokenizer::Tokenizer>> tok = ModelTokenizer(model_path);
  if (!tok.ok()) return tok.status();
  const tokenizer::Vocab& vocab = (*tok)->vocab();
  if (vocab.add_eos()) {
    return Error(ErrorCode::kUnsupported,
                 "{}: the tokenizer adds an end-of-sequence token to every text, which perplexity's chunks cannot "
                 "score (llama-perplexity refuses such models too)",
                 model_path);
  }
  *bos = ChunkBos(vocab);
  return (*tok)->Encode(*text, tokenizer::EncodeOptions{.add_special = true, .parse_special = false});
}

struct Outcome {
  std::string engine;
  int64_t n_tokens = 0;  // the text's tokens (or the base's)
  runtime::PerplexityResult result;
};

using ProgressFn = std::function<void(const runtime::PerplexityProgress&)>;

// --kld-base: the base's tokens and n_ctx, compared row by row.
Expected<Outcome> CompareWithBase(PerplexityCommandOptions& opt, const ProgressFn& progress, int* exit_code) {
  std::ifstream in(opt.kld_base, std::ios::binary);
  if (!in) return Error(ErrorCode::kNotFound, "{}: cannot open the base logits file", opt.kld_base);
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(opt.kld_base, ec);
  Expected<runtime::LogitsFileReader> base =
      runtime::LogitsFileReader::Open(in, ec ? -1 : static_cast<int64_t>(bytes));
  if (!base.ok()) return base.status().WithContext(opt.kld_base);
  Expected<Prepared> p = Prepare(opt, base->header().n_ctx, exit_code);
  if (!p.ok()) return p.status();
  // The base holds the text's first token of each chunk; the BOS that replaces it is this model's.
  Expected<std::unique_ptr<tokenizer::Tokenizer>> tok = ModelTokenizer(opt.model);
  if (!tok.ok()) return tok.status();
  p->options.bos = ChunkBos((*tok)->vocab());
  Expected<runtime::PerplexityResult> r = runtime::RunKlDivergence(*p->session, *base, p->options, progress);
  if (!r.ok()) return r.status().WithContext(opt.kld_base);
  return Outcome{p->model.engine->info().name, static_cast<int64_t>(base->header().tokens.size()), std::move(*r)};
}

// A text file, its logits saved with --save-logits.
Expected<Outcome> ScoreText(PerplexityCommandOptions& opt, const ProgressFn& progress, int* exit_code) {
  Expected<Prepared> p = Prepare(opt, opt.ctx, exit_code);
  if (!p.ok()) return p.status();
  Expected<std::vector<int32_t>> tokens = TokenizeText(opt.model, opt.text, &p->options.bos);
  if (!tokens.ok()) return tokens.status();
  Outcome outcome{p->model.engine->info().name, static_cast<int64_t>(tokens->size()), {}};
  if (opt.save_logits.empty()) {
    Expected<runtime::PerplexityResult> r = runtime::RunPerplexity(*p->session, *tokens, p->options, nullptr, progress);
    if (!r.ok()) return r.status().WithContext(opt.text);
    outcome.result = std::move(*r);
    return outcome;
  }
  // Written under a temporary name and renamed when complete: a failed run leaves no base file.
  Expected<AtomicFileWriter> out = AtomicFileWriter::Create(opt.save_logits);
  if (!out.ok()) return out.status();
  const runtime::LogitsFileHeader header =
      runtime::PerplexityHeader(*tokens, p->options, p->model.model->hparams().n_vocab);
  Expected<runtime::LogitsFileWriter> writer = runtime::LogitsFileWriter::Start(
      [&out](std::span<const uint8_t> bytes) { return out->Write(bytes); }, header);
  if (!writer.ok()) return writer.status();
  Expected<runtime::PerplexityResult> r = runtime::RunPerplexity(*p->session, *tokens, p->options, &*writer, progress);
  if (!r.ok()) return r.status().WithContext(opt.text);
  if (Status s = out->Commit(); !s.ok()) return s;
  outcome.result = std::move(*r);
  return outcome;
}

int RunPerplexityCommand(PerplexityCommandOptions& opt) {
  if (!opt.save_logits.empty() && !opt.kld_base.empty()) {
    PrintError("--save-logits and --kld-base: choose one (a base run saves the logits, a comparison reads them)");
    return kExitUsage;
  }
  if (opt.kld_base.empty() == opt.text.empty()) {
    PrintError(opt.text.empty() ? "give a text file to score, or --kld-base FILE (whose tokens are the text)"
                                : "--kld-base FILE brings its own tokens; give no text file with it");
    return kExitUsage;
  }
  const auto printer = std::make_shared<ProgressPrinter>();
  const ProgressFn progress = [printer](const runtime::PerplexityProgress& p) { (*printer)(p); };
  int exit_code = kExitFailure;
  Expected<Outcome> outcome =
      opt.kld_base.empty() ? ScoreText(opt, progress, &exit_code) : CompareWithBase(opt, progress, &exit_code);
  if (!outcome.ok()) {
    PrintError(outcome.status().message());
    return exit_code;
  }
  if (opt.json) {
    PrintJson(opt, outcome->engine, outcome->n_tokens, outcome->result);
  } else {
    PrintText(opt, outcome->engine, outcome->n_tokens, outcome->result);
  }
  return kExitSuccess;
}

}  // namespace

Command AddPerplexityCommand(CLI::App& parent) {
  auto opt = std::make_shared<PerplexityCommandOptions>();
  CLI::App* app = parent.add_subcommand(
      "perplexity", "Perplexity of a model on a text, and KL divergence against a base model's logits (llama.cpp's method and file format)");
  app->add_option("model", opt->model, "GGUF model: a path, a name in the store or a URL")->required();
  app->add_option("text", opt->text, "UTF-8 text file to score (not with --kld-base, whose file holds the tokens)");
  app->add_option("--ctx", opt->ctx, "Tokens per chunk; the second half of each chunk is scored")
      ->default_val(512)
      ->check(CLI::Range(int64_t{3}, int64_t{1} << 20));
  app->add_option("--batch", opt->batch, "Rows per forward pass (default: the whole chunk in one pass)")
      ->check(CLI::PositiveNumber);
  app->add_option("--chunks", opt->chunks, "Score at most N chunks (default: every whole chunk of the text)")
      ->check(CLI::PositiveNumber);
  app->add_option("--threads", opt->threads, "Threads (default: every core)")->check(CLI::Range(1, 1024));
  app->add_option("--kv", opt->kv, "KV cache element type")->default_val("f16")->check(CLI::IsMember({"f16", "f32"}));
  AddEngineOption(app, &opt->engine);
  app->add_option("--save-logits", opt->save_logits,
                  "Write every scored row's log probabilities to FILE in llama.cpp's --kl-divergence-base format "
                  "(a base for 'trit perplexity --kld-base' or 'llama-perplexity --kl-divergence')");
  app->add_option("--kld-base", opt->kld_base,
                  "Compare with the base logits in FILE (written by --save-logits or by 'llama-perplexity "
                  "--kl-divergence-base'): KL divergence, Δp, same top token, PPL of both")
      ->check(CLI::ExistingFile);
  app->add_flag("--json", opt->json,
                "Print one JSON object: ppl, ppl_error, running_ppl, chunks, n_ctx, scored_tokens, and "
                "kl_divergence with --kld-base");
  app->footer(
      "The method of llama.cpp's llama-perplexity: the text (BOS added as the model does) is cut into chunks of\n"
      "--ctx tokens, each run on an empty cache with its first token replaced by BOS, and only each chunk's second\n"
      "half is scored. The same file and --ctx give figures comparable with llama-perplexity's.\n"
      "Progress goes to stderr; the result to stdout.\n\n"
      "Examples:\n"
      "  trit perplexity model-f16.gguf genesis.txt --save-logits base.kld\n"
      "  trit perplexity model-q4_k_m.gguf --kld-base base.kld\n"
      "  llama-perplexity -m model-f16.gguf -f genesis.txt --kl-divergence-base llama.kld && \\\n"
      "    trit perplexity model-q4_k_m.gguf --kld-base llama.kld --json");
  return {app, [opt] { return RunPerplexityCommand(*opt); }};
}

}  // namespace trit::cli
