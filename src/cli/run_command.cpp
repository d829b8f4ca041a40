// `trit run [MODEL] [PROMPT]`: the main job. With a prompt, streams one
// answer to stdout and exits (stdout holds only the generated text; timings
// go to stderr with --verbose). Without one, an interactive chat. MODEL
// defaults to the bundled model.
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "cli/command.h"
#include "cli/default_model.h"
#include "cli/engine_option.h"
#include "cli/sampler_flags.h"
#include "cli/speculation_flags.h"
#include "engines/loaded_model.h"
#include "model/model.h"
#include "runtime/prompt_builder.h"
#include "runtime/generate.h"
#include "runtime/sampler.h"
#include "runtime/session.h"
#include "runtime/draft_model.h"
#include "runtime/speculative.h"
#include "store/resolve.h"
#include "tokenizer/tokenizer.h"

namespace trit::cli {
namespace {

// Set by SIGINT while an answer streams; the only state a signal handler may
// touch, hence global.
std::atomic<bool> g_stop_answer{false};

extern "C" void OnInterrupt(int) { g_stop_answer.store(true); }

// Ctrl-C stops the current answer while one streams; elsewhere it keeps its
// default meaning (end the program).
class InterruptScope {
 public:
  InterruptScope() {
    g_stop_answer.store(false);
    struct sigaction sa {};
    sa.sa_handler = OnInterrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &previous_);
  }
  ~InterruptScope() { sigaction(SIGINT, &previous_, nullptr); }

 private:
  struct sigaction previous_ {};
};

struct RunOptions {
  std::vector<std::string> positional;
  int64_t n_predict = 256;
  SamplerFlags sampling;
  int threads = 0;
  int64_t ctx = 0;
  std::string system;
  std::string chat_template_kwargs;  // JSON object text; "" none
  std::string kv = "f16";
  std::string engine;  // --engine: a name or alias; empty: the registry chooses
  bool raw = false;
  bool verbose = false;
  SpeculationFlags speculation;
};

struct Loaded {
  engines::LoadedModel model;  // engine, weights, tokenizer, prompt builder
  std::unique_ptr<runtime::Session> session;
  // Speculative decoding (--spec lookup, --draft MODEL); null: plain decoding.
  std::unique_ptr<model::Model> draft_model;
  std::unique_ptr<runtime::Drafter> drafter;
};

// The drafter --spec and --draft ask for. A draft model must have the
// target's vocabulary: token for token, or its guesses would mean other text.
Status LoadDrafter(const RunOptions& opt, Loaded* l) {
  const SpeculationFlags& f = opt.speculation;
  if (f.draft.empty()) {
    if (f.lookup()) l->drafter = std::make_unique<runtime::PromptLookupDrafter>();
    return Status::Ok();
  }
  Expected<std::string> path = store::ResolveModelArgument(f.draft);
  if (!path.ok()) return path.status().WithContext("--draft");
  Expected<std::unique_ptr<model::Model>> m = runtime::LoadDraftModel(*path, l->model.tokenizer->vocab());
  if (!m.ok()) return m.status().WithContext("--draft");
  l->draft_model = std::move(m).value();
  runtime::SessionOptions so;
  so.n_ctx = l->session->n_ctx();
  so.n_seq = 1;
  so.n_threads = l->session->n_threads();
  TRIT_ASSIGN_OR_RETURN(l->drafter, runtime::ModelDrafter::Create(*l->draft_model, so, f.draft_p_min));
  return Status::Ok();
}

// MODEL and PROMPT from the positional arguments: one argument is a model
// when it names a file, a pack directory, a URL or a model in the store (or
// ends in .gguf), otherwise a prompt for the bundled model.
Status ResolveArguments(const std::vector<std::string>& positional, std::string* model,
                        std::optional<std::string>* prompt) {
  if (positional.size() > 2) {
    return Error(ErrorCode::kInvalidArgument, "expected at most MODEL and PROMPT, got {} arguments (quote the prompt)",
                 positional.size());
  }
  std::vector<std::string> args = positional;
  if (args.size() == 1 && !store::LooksLikeModelArgument(args[0]) && !args[0].ends_with(".gguf")) {
    *prompt = args[0];
    args.clear();
  }
  if (args.size() == 2) *prompt = args[1];
  if (!args.empty()) {
    TRIT_ASSIGN_OR_RETURN(*model, store::ResolveModelArgument(args[0]));  // a path, a store name or a URL
    return Status::Ok();
  }
  TRIT_ASSIGN_OR_RETURN(*model, DefaultModelPath());
  return Status::Ok();
}

Expected<Loaded> Load(const std::string& path, const RunOptions& opt, int* exit_code) {
  engines::LoadOptions options;
  options.engine = opt.engine;
  options.chat_template = opt.raw ? engines::ChatTemplateUse::kSkip : engines::ChatTemplateUse::kUse;
  options.n_threads = opt.threads;
  options.n_ctx = opt.ctx;
  bool pin_rejected = false;
  Expected<engines::LoadedModel> m = engines::LoadedModel::Open(path, options, &pin_rejected);
  *exit_code = pin_rejected ? kExitUsage : kExitFailure;
  if (!m.ok()) return m.status();
  if (!m->chat_template_error.ok()) {
    return Status(m->chat_template_error.code(), m->chat_template_error.message() + " (run with --raw to skip it)");
  }
  Loaded l;
  l.model = std::move(m).value();
  runtime::SessionOptions so;
  so.n_ctx = l.model.n_ctx;
  so.n_threads = l.model.n_threads;
  so.kv_type = opt.kv == "f32" ? kernels::KvType::kF32 : kernels::KvType::kF16;
  TRIT_ASSIGN_OR_RETURN(l.session, l.model.engine->CreateSession(*l.model.model, so));
  return l;
}

// Streams one answer to `prompt_ids` on sequence 0, reusing the cached
// prefix the prompt shares with `*cached` (updated to what the cache holds).
// Returns the answer's text.
Expected<std::string> Answer(Loaded& l, runtime::Sampler& sampler, const RunOptions& opt,
                             const std::vector<tokenizer::TokenId>& prompt_ids, std::vector<int32_t>* cached) {
  runtime::Session& session = *l.session;
  size_t common = 0;
  while (common < cached->size() && common < prompt_ids.size() && (*cached)[common] == prompt_ids[common]) ++common;
  common = std::min(common, prompt_ids.size() - 1);  // feed at least one token to get logits
  if (Status s = session.Truncate(0, static_cast<int64_t>(common)); !s.ok()) return s;

  tokenizer::StreamingDecoder decoder(*l.model.tokenizer, {});
  decoder.Prime(prompt_ids);  // text in the context of the prompt (first-token rules)
  const tokenizer::Vocab& vocab = l.model.tokenizer->vocab();

  std::string answer;
  runtime::GenerateOptions go;
  go.max_tokens = opt.n_predict;
  go.end_ids = vocab.end_of_generation();
  const auto start = std::chrono::steady_clock::now();
  std::optional<std::chrono::steady_clock::time_point> first_token;
  go.on_token = [&](int32_t id) {
    if (!first_token) first_token = std::chrono::steady_clock::now();
    const std::string piece = decoder.Push(id);
    answer += piece;
    std::fwrite(piece.data(), 1, piece.size(), stdout);
    std::fflush(stdout);
    return !g_stop_answer.load();
  };
  InterruptScope interrupt;
  const std::vector<int32_t> suffix(prompt_ids.begin() + static_cast<std::ptrdiff_t>(common), prompt_ids.end());
  runtime::SpeculativeStats spec;
  Expected<runtime::Generation> g =
      l.drafter == nullptr
          ? runtime::Generate(session, suffix, sampler, go)
          : runtime::GenerateSpeculative(session, std::span<const int32_t>(prompt_ids).first(common), suffix, sampler,
                                         go, *l.drafter, {.draft_max = opt.speculation.draft_max}, &spec);
  if (!g.ok()) return g.status();
  const std::string rest = decoder.Flush();
  answer += rest;
  std::fwrite(rest.data(), 1, rest.size(), stdout);
  std::fflush(stdout);

  std::vector<int32_t> all(prompt_ids.begin(), prompt_ids.end());
  all.insert(all.end(), g->tokens.begin(), g->tokens.end());
  all.resize(static_cast<size_t>(session.Length(0)));
  *cached = std::move(all);

  if (opt.verbose) {
    const auto end = std::chrono::steady_clock::now();
    const double prefill = std::chrono::duration<double>(first_token.value_or(end) - start).count();
    const double decode = std::chrono::duration<double>(end - first_token.value_or(end)).count();
    const size_t n = g->tokens.size();
    const char* why = g->stop == runtime::StopReason::kEndOfSequence ? "end of sequence"
                      : g->stop == runtime::StopReason::kStopped     ? "interrupted"
                                                                     : "token limit";
    // The prompt's time runs to the first token (its pass and one sample);
    // generation's from there, over the n - 1 tokens after the first.
    const size_t n_fed = prompt_ids.size() - common;
    fmt::print(stderr,
               "\n[prompt {} tokens ({} reused) in {:.3f} s, {:.1f} tok/s; generated {} tokens in {:.3f} s, {:.1f} tok/s; {}]\n",
               prompt_ids.size(), common, prefill, prefill > 0.0 ? static_cast<double>(n_fed) / prefill : 0.0, n, decode,
               n > 1 && decode > 0.0 ? static_cast<double>(n - 1) / decode : 0.0, why);
    if (l.drafter != nullptr) {
      fmt::print(stderr, "[speculative: {} passes, {} drafted, {} accepted ({:.0f}%), {:.2f} tokens a pass]\n",
                 spec.passes, spec.drafted, spec.accepted,
                 spec.drafted > 0 ? 100.0 * static_cast<double>(spec.accepted) / static_cast<double>(spec.drafted) : 0.0,
                 spec.passes > 0 ? static_cast<double>(spec.passes + spec.accepted) / static_cast<double>(spec.passes)
                                 : 0.0);
    }
  }
  return answer;
}

// Reads one user turn; a line ending in '\' continues on the next line.
// Returns nullopt at end of input or /bye.
std::optional<std::string> ReadTurn() {
  std::string text;
  std::string line;
  fmt::print(">>> ");
  std::fflush(stdout);
  while (std::getline(std::cin, line)) {
    if (!line.empty() && line.back() == '\\') {
      line.pop_back();
      text += line + "\n";
      fmt::print("... ");
      std::fflush(stdout);
      continue;
    }
    text += line;
    if (text == "/bye") return std::nullopt;
    return text;
  }
  return std::nullopt;
}

int RunChat(Loaded& l, const runtime::PromptBuilder& builder, runtime::Sampler& sampler, const RunOptions& opt) {
  fmt::print(stderr, "trit: {} ({}). Type /bye or press Ctrl-D to quit; Ctrl-C stops an answer; end a line with \\ to continue it.\n",
             l.model.path, builder.chat() ? "chat template" : "no chat template: each line is continued as plain text");
  std::vector<chat::ChatMessage> messages;
  if (!opt.system.empty()) messages.push_back({"system", opt.system});
  std::vector<int32_t> cached;
  while (std::optional<std::string> turn = ReadTurn()) {
    if (turn->empty()) continue;
    std::vector<chat::ChatMessage> request = messages;
    request.push_back({"user", *turn});
    Expected<std::vector<tokenizer::TokenId>> ids =
        builder.Build(builder.chat() ? request : std::vector<chat::ChatMessage>{{"user", *turn}},
                      {.kwargs_json = opt.chat_template_kwargs});
    if (!ids.ok()) {
      PrintError(ids.status().message());
      return kExitFailure;
    }
    if (!builder.chat()) fmt::print("{}", *turn);  // plain completion continues the typed text
    Expected<std::string> answer = Answer(l, sampler, opt, *ids, &cached);
    fmt::print("\n");
    if (!answer.ok()) {
      PrintError(answer.status().message());
      continue;  // e.g. context full: the conversation so far is kept, the user may /bye
    }
    if (builder.chat()) {
      messages = std::move(request);
      messages.push_back({"assistant", *answer});
    }
  }
  return kExitSuccess;
}

int RunRun(const RunOptions& opt) {
  if (opt.kv != "f16" && opt.kv != "f32") {
    PrintError(fmt::format("--kv '{}': expected f16 or f32", opt.kv));
    return kExitUsage;
  }
  Expected<runtime::SamplerOptions> sampler_options = ResolveSamplerFlags(opt.sampling);
  if (!sampler_options.ok()) {
    PrintError(sampler_options.status().message());
    return kExitUsage;
  }
  const runtime::SamplerOptions& so = *sampler_options;
  if (Status s = chat::CheckTemplateKwargs(opt.chat_template_kwargs); !s.ok()) {
    PrintError("--chat-template-kwargs: " + s.message());
    return kExitUsage;
  }
  std::string model_path;
  std::optional<std::string> prompt;
  if (Status s = ResolveArguments(opt.positional, &model_path, &prompt); !s.ok()) {
    PrintError(s.message());
    return s.code() == ErrorCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  int exit_code = kExitFailure;
  Expected<Loaded> loaded = Load(model_path, opt, &exit_code);
  if (!loaded.ok()) {
    PrintError(loaded.status().message());
    return exit_code;
  }
  if (Status s = CheckSpeculationFlags(opt.speculation); !s.ok()) {
    PrintError(s.message());
    return kExitUsage;
  }
  if (Status s = LoadDrafter(opt, &*loaded); !s.ok()) {
    PrintError(s.message());
    return s.code() == ErrorCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  const runtime::PromptBuilder& builder = *loaded->model.prompt_builder;
  if (!opt.chat_template_kwargs.empty() && !builder.chat()) {
    PrintError(fmt::format("--chat-template-kwargs: {} has no chat template to read them{}", model_path,
                           opt.raw ? " (--raw skips it)" : ""));
    return kExitUsage;
  }
  if (opt.verbose) {
    fmt::print(stderr, "[{}: engine {}, {} threads, seed {}, {}]\n", model_path, loaded->model.engine->info().name,
               loaded->session->n_threads(), so.seed,
               builder.chat() ? "chat template" : "plain completion");
  }
  runtime::Sampler sampler(so);
  if (!prompt.has_value()) return RunChat(*loaded, builder, sampler, opt);

  std::vector<chat::ChatMessage> messages;
  if (!opt.system.empty()) messages.push_back({"system", opt.system});
  messages.push_back({"user", *prompt});
  Expected<std::vector<tokenizer::TokenId>> ids = builder.Build(messages, {.kwargs_json = opt.chat_template_kwargs});
  if (!ids.ok()) {
    PrintError(ids.status().message());
    return kExitFailure;
  }
  std::vector<int32_t> cached;
  Expected<std::string> answer = Answer(*loaded, sampler, opt, *ids, &cached);
  if (!answer.ok()) {
    PrintError(answer.status().message());
    return kExitFailure;
  }
  if (isatty(STDOUT_FILENO)) fmt::print("\n");  // piped output is exactly the generated text
  return kExitSuccess;
}

}  // namespace

Command AddRunCommand(CLI::App& parent) {
  auto opt = std::make_shared<RunOptions>();
  CLI::App* app = parent.add_subcommand("run", "Generate text: one answer to PROMPT, or a chat when no prompt is given");
  app->add_option("model_and_prompt", opt->positional,
                  "[MODEL] [PROMPT]: MODEL defaults to the bundled model; without PROMPT, an interactive chat");
  app->add_option("-n,--n-predict", opt->n_predict, "Most tokens to generate")->default_val(256)->check(CLI::PositiveNumber);
  AddSamplerFlags(app, &opt->sampling);
  app->add_option("-t,--threads", opt->threads, "Threads (0: one per hardware thread); results do not depend on it")
      ->default_val(0)
      ->check(CLI::NonNegativeNumber);
  app->add_option("-c,--ctx", opt->ctx, "Context length in tokens (0: the model's)")->default_val(0)->check(CLI::NonNegativeNumber);
  app->add_option("--system", opt->system, "System message for chat models");
  app->add_option("--chat-template-kwargs", opt->chat_template_kwargs,
                  "JSON object of extra chat template variables, e.g. '{\"enable_thinking\": false}'")
      ->type_name("JSON");
  app->add_option("--kv", opt->kv, "KV cache type: f16 or f32")->default_val("f16");
  AddEngineOption(app, &opt->engine);
  app->add_flag("--raw", opt->raw, "Skip the chat template: the prompt is plain text after BOS");
  app->add_flag("-v,--verbose", opt->verbose,
                "Print the seed, threads and timings on stderr (with speculation: drafted and accepted tokens)");
  AddSpeculationFlags(app, &opt->speculation, "pass");
  app->footer(
      "Examples:\n  trit run                                   # chat with the bundled model\n"
      "  trit run \"Once upon a time\" -n 64\n"
      "  trit run models/stories260K.gguf \"\" -n 200 --temp 0 --raw   # greedy story from BOS alone\n"
      "  trit run big.gguf \"Summarise: ...\" --spec lookup -v        # the same answer, drafts from the prompt\n"
      "  trit run big.gguf \"Hello\" --draft small.gguf -v            # the same answer, drafted by a small model\n"
      "  trit run qwen3.5.gguf \"Hi\" --chat-template-kwargs '{\"enable_thinking\": false}'   # no thinking");
  return {app, [opt] { return RunRun(*opt); }};
}

}  // namespace trit::cli
