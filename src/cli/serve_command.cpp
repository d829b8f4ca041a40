// `trit serve [MODEL]`: an OpenAI-compatible HTTP server (docs/SERVER.md).
// Loads the model, starts the scheduler (N slots sharing one session) and
// serves until SIGINT or SIGTERM.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pthread.h>
#include <signal.h>

#include <sys/resource.h>
#include <sys/stat.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "base/units.h"
#include "cli/command.h"
#include "cli/default_model.h"
#include "cli/engine_option.h"
#include "cli/speculation_flags.h"
#include "runtime/draft_model.h"
#include "server/api_keys.h"
#include "server/http_server.h"
#include "server/model_pool.h"
#include "store/model_store.h"
#include "store/resolve.h"

namespace trit::cli {
namespace {

struct ServeOptions {
  std::string model;
  std::string engine;  // --engine; empty: the registry chooses
  std::vector<std::string> aliases;  // --alias
  std::string host = "127.0.0.1";
  int port = 8080;
  int32_t parallel = 4;
  int32_t queue = 16;
  int32_t prefill_chunk = 256;
  int64_t ctx = 0;
  std::string api_key;
  std::string api_key_file;
  int threads = 0;
  size_t max_body = size_t{4} << 20;
  bool no_webui = false;
  bool truncatable_embeddings = false;
  bool no_prompt_reuse = false;
  int max_connections = 512;
  int max_connections_per_client = 0;
  int idle_timeout = 15;
  int32_t max_models = 2;
  std::string memory_budget = "auto";
  bool store_flags_given = false;  // --max-models or --memory-budget
  SpeculationFlags speculation;
};

// --alias NAME or NAME=MODEL: (alias, model); model is empty for NAME alone.
std::pair<std::string, std::string> SplitAlias(const std::string& alias) {
  const size_t eq = alias.find('=');
  if (eq == std::string::npos) return {alias, ""};
  return {alias.substr(0, eq), alias.substr(eq + 1)};
}

// Three quarters of the machine's memory: what --memory-budget auto means.
uint64_t DefaultMemoryBudget() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size) / 4 * 3;
}

// The bundled model as a source named by its file ("stories260K"); nullopt when it is missing.
std::optional<server::ModelSource> BundledSource() {
  Expected<std::string> path = DefaultModelPath();
  if (!path.ok()) return std::nullopt;
  return server::ModelSource{std::filesystem::path(*path).stem().string(), *path};
}

// The models `trit serve` without MODEL offers: those present in the store,
// and the bundled model unless the store has one of its name.
std::vector<server::ModelSource> StoreCatalog(const store::ModelStore& models) {
  std::vector<server::ModelSource> out;
  for (const store::StoreEntry& e : models.Scan()) {
    if (e.present) out.push_back({e.name, e.paths.model});
  }
  if (std::optional<server::ModelSource> bundled = BundledSource()) {
    const bool shadowed =
        std::any_of(out.begin(), out.end(), [&](const server::ModelSource& m) { return m.name == bundled->name; });
    if (!shadowed) out.push_back(std::move(*bundled));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return out;
}

// The pool of `trit serve MODEL`: that model, loaded now.
// `draft` receives the --draft model, which must outlive the pool.
Expected<std::unique_ptr<server::ModelPool>> ServeOneModel(const ServeOptions& opt, server::ModelPoolOptions po,
                                                          server::Metrics* metrics, std::string* banner,
                                                          std::unique_ptr<model::Model>* draft) {
  Expected<std::string> path = store::ResolveModelArgument(opt.model);  // a path, a store name or a URL
  if (!path.ok()) return path.status();
  Expected<std::unique_ptr<server::ServedModel>> model = server::LoadServedModel(*path, opt.engine);
  if (!model.ok()) return model.status();
  for (const auto& [alias, target] : po.aliases) {
    if (!target.empty() && target != (*model)->id) {
      return Error(ErrorCode::kInvalidArgument, "--alias {}={}: this server serves '{}' alone", alias, target,
                   (*model)->id);
    }
  }
  std::string spec;
  if (!opt.speculation.draft.empty()) {
    Expected<std::string> draft_path = store::ResolveModelArgument(opt.speculation.draft);
    if (!draft_path.ok()) return draft_path.status().WithContext("--draft");
    Expected<std::unique_ptr<model::Model>> m = runtime::LoadDraftModel(*draft_path, (*model)->tokenizer->vocab());
    if (!m.ok()) return m.status().WithContext("--draft");
    *draft = std::move(m).value();
    po.scheduler.draft_model = draft->get();
    spec = fmt::format(", drafts by {}", *draft_path);
  } else if (po.scheduler.spec_lookup) {
    spec = ", drafts by prompt lookup";
  }
  if ((*model)->embeds()) {
    const runtime::Embedder& e = *(*model)->embedder;
    *banner = fmt::format("{} (embedding model for /v1/embeddings: {} dimensions, {} pooling, up to {} tokens per "
                          "input",
                          *path, e.dimension(), model::PoolingName(runtime::ResolvePooling(*(*model)->encoder, std::nullopt)),
                          e.max_tokens());
    return server::ModelPool::ForModel(std::move(model).value(), po, metrics);
  }
  const bool chat = (*model)->prompt_builder->chat();
  Expected<std::unique_ptr<server::ModelPool>> pool = server::ModelPool::ForModel(std::move(model).value(), po, metrics);
  if (!pool.ok()) return pool.status();
  const int64_t n_ctx = (*pool)->Acquire("").lease->scheduler->n_ctx();
  *banner = fmt::format("{} ({}, {} slots x {} tokens{}", *path, chat ? "chat template" : "no chat template",
                        po.scheduler.n_slots, n_ctx, spec);
  return pool;
}

// The pool of `trit serve` without MODEL: the store's models, each loaded on
// its first request.
Expected<std::unique_ptr<server::ModelPool>> ServeStore(server::ModelPoolOptions po, server::Metrics* metrics,
                                                       std::string* banner) {
  Expected<store::ModelStore> models = store::ModelStore::OpenDefault();
  if (!models.ok()) return models.status();
  const std::vector<server::ModelSource> catalog = StoreCatalog(*models);
  if (catalog.empty()) {
    return Error(ErrorCode::kNotFound,
                 "nothing to serve: the model store {} holds no model (trit pull NAME adds one) and the bundled "
                 "model is missing; or name a MODEL to serve",
                 models->dir());
  }
  std::vector<std::string> names;
  for (const server::ModelSource& m : catalog) names.push_back(m.name);
  for (auto& [alias, target] : po.aliases) {
    if (target.empty()) {
      return Error(ErrorCode::kInvalidArgument,
                   "--alias {}: serving the model store, say which model the alias names: --alias {}=MODEL (one "
                   "of: {})",
                   alias, alias, fmt::join(names, ", "));
    }
    if (std::find(names.begin(), names.end(), target) == names.end()) {
      return Error(ErrorCode::kInvalidArgument, "--alias {}={}: the store has no model '{}' (it has: {})", alias,
                   target, target, fmt::join(names, ", "));
    }
  }
  // Requests that name no model go to the bundled one until one names a model.
  const std::optional<server::ModelSource> bundled = BundledSource();
  std::string first = bundled ? bundled->name : catalog.front().name;
  const std::string dir = models->dir();
  *banner = fmt::format(
      "the model store {} ({} models: {}; each loaded on its first request, at most {} at once{}; {} slots x {} "
      "tokens each",
      dir, catalog.size(), fmt::join(names, ", "), po.max_models,
      po.memory_budget == 0 ? std::string() : fmt::format(" within {}", FormatBytes(po.memory_budget)),
      po.scheduler.n_slots, po.scheduler.n_ctx == 0 ? std::string("<= 4096") : std::to_string(po.scheduler.n_ctx));
  return server::ModelPool::ForCatalog([store = std::move(models).value()] { return StoreCatalog(store); },
                                       std::move(first), std::move(po), metrics);
}

// Where a browser on this machine reaches a server listening on `host`.
std::string BrowserHost(const std::string& host) {
  if (host == "0.0.0.0") return "127.0.0.1";
  if (host == "::") return "[::1]";
  if (host.find(':') != std::string::npos) return "[" + host + "]";
  return host;
}

// The keys of --api-key (or TRIT_API_KEY) and --api-key-file together.
Expected<server::ApiKeys> LoadApiKeys(const ServeOptions& opt) {
  std::vector<server::ApiKey> keys;
  std::string single = opt.api_key;
  if (single.empty()) {
    if (const char* env = std::getenv("TRIT_API_KEY")) single = env;
  }
  if (!single.empty()) keys.push_back({server::DefaultKeyLabel(single), single});
  if (!opt.api_key_file.empty()) {
    std::ifstream in(opt.api_key_file, std::ios::binary);
    if (!in) return Error(ErrorCode::kInvalidArgument, "--api-key-file: cannot read '{}'", opt.api_key_file);
    std::ostringstream text;
    text << in.rdbuf();
    Expected<std::vector<server::ApiKey>> from_file = server::ParseApiKeyFile(text.str(), opt.api_key_file);
    if (!from_file.ok()) return from_file.status();
    for (server::ApiKey& k : *from_file) keys.push_back(std::move(k));
    struct stat st{};
    if (::stat(opt.api_key_file.c_str(), &st) == 0 && (st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
      fmt::print(stderr, "trit: warning: {} can be read by other users (chmod 600 it)\n", opt.api_key_file);
    }
  }
  return server::ApiKeys::Create(std::move(keys));
}

// Each connection is a file descriptor: the soft limit is raised (up to the
// hard one) to hold --max-connections, the few past it and the model's files.
Status RaiseDescriptorLimit(int max_connections) {
  const rlim_t needed = static_cast<rlim_t>(max_connections) + std::max(16, max_connections / 8) + 64;
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= needed) return Status::Ok();
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < needed) {
    return Error(ErrorCode::kInvalidArgument,
                 "--max-connections {} needs {} open files, but this process may open at most {} (ulimit -Hn); "
                 "lower --max-connections or raise the limit",
                 max_connections, needed, limit.rlim_max);
  }
  limit.rlim_cur = needed;
  if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
    return Error(ErrorCode::kIo, "cannot raise the open-file limit to {} for --max-connections {}", needed,
                 max_connections);
  }
  return Status::Ok();
}

int RunServe(const ServeOptions& opt) {
  if (Status s = RaiseDescriptorLimit(opt.max_connections); !s.ok()) {
    PrintError(s.message());
    return kExitUsage;
  }
  if (!opt.model.empty() && opt.store_flags_given) {
    PrintError("--max-models and --memory-budget apply to serving the model store (trit serve without MODEL); "
               "with MODEL, that one model is served");
    return kExitUsage;
  }
  if (Status s = CheckSpeculationFlags(opt.speculation); !s.ok()) {
    PrintError(s.message());
    return kExitUsage;
  }
  if (opt.model.empty() && !opt.speculation.draft.empty()) {
    PrintError("--draft MODEL drafts for one model: name the MODEL to serve (serving the model store, "
               "--spec lookup drafts for every model)");
    return kExitUsage;
  }
  Expected<server::ApiKeys> api_keys = LoadApiKeys(opt);
  if (!api_keys.ok()) {
    PrintError(api_keys.status().message());
    return kExitUsage;
  }
  server::ModelPoolOptions po;
  po.engine = opt.engine;
  po.max_models = opt.max_models;
  if (opt.memory_budget == "auto") {
    po.memory_budget = DefaultMemoryBudget();
  } else {
    Expected<uint64_t> budget = server::ParseMemorySize(opt.memory_budget);
    if (!budget.ok()) {
      PrintError("--memory-budget: " + budget.status().message());
      return kExitUsage;
    }
    po.memory_budget = *budget;
  }
  for (const std::string& alias : opt.aliases) po.aliases.push_back(SplitAlias(alias));
  server::SchedulerOptions& so = po.scheduler;
  so.n_slots = opt.parallel;
  so.max_queue = opt.queue;
  so.prefill_chunk = opt.prefill_chunk;
  so.n_ctx = opt.ctx;
  so.reuse_prompts = !opt.no_prompt_reuse;
  so.spec_lookup = opt.speculation.lookup();
  so.draft_max = opt.speculation.draft_max;
  so.draft_p_min = opt.speculation.draft_p_min;
  so.n_threads = opt.threads > 0 ? opt.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // SIGINT/SIGTERM are taken by one thread (sigwait) that stops the server;
  // they are blocked before any other thread starts, so all inherit that.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  server::Metrics metrics;
  std::unique_ptr<model::Model> draft_model;  // --draft: outlives the pool
  for (const std::string& label : api_keys->labels()) metrics.DeclareKey(label);
  std::string banner;
  Expected<std::unique_ptr<server::ModelPool>> pool =
      opt.model.empty() ? ServeStore(po, &metrics, &banner) : ServeOneModel(opt, po, &metrics, &banner, &draft_model);
  if (!pool.ok()) {
    PrintError(pool.status().message());
    return pool.status().code() == ErrorCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  server::HttpOptions ho;
  ho.transport.host = opt.host;
  ho.transport.port = opt.port;
  const size_t n_keys = api_keys->size();
  ho.api_keys = std::move(*api_keys);
  ho.transport.max_body_bytes = opt.max_body;
  // The chat page has nothing to offer a server of one embedding model.
  const bool embeds_only = !opt.model.empty() && (*pool)->Acquire("").lease->model->embeds();
  ho.webui = !opt.no_webui && !embeds_only;
  ho.truncatable_embeddings = opt.truncatable_embeddings;
  ho.transport.max_connections = opt.max_connections;
  ho.transport.max_connections_per_address = opt.max_connections_per_client;
  ho.transport.idle_timeout_seconds = opt.idle_timeout;
  server::HttpServer http(**pool, metrics, ho);
  if (Status s = http.Bind(); !s.ok()) {
    PrintError(s.message());
    return kExitFailure;
  }
  std::thread stopper([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    http.Stop();
  });
  fmt::print(stderr, "trit: serving {}, {} threads{}) at http://{}:{}\n", banner, so.n_threads,
             n_keys == 0 ? "" : n_keys == 1 ? ", API key required" : fmt::format(", {} API keys", n_keys), opt.host,
             http.port());
  fmt::print(stderr, "trit: requests name the model '{}'\n", fmt::join((*pool)->names(), "' or '"));
  if (ho.webui) fmt::print(stderr, "trit: chat in the browser at http://{}:{}/\n", BrowserHost(opt.host), http.port());
  std::fflush(stderr);
  const bool ok = http.Listen();
  // Wake the stopper if Listen ended on its own (an error).
  pthread_kill(stopper.native_handle(), SIGTERM);
  stopper.join();
  (*pool)->Stop();
  if (!ok) {
    PrintError(fmt::format("the HTTP server could not start its event loops on {}:{} (libmicrohttpd refused; "
                           "too many open files or threads?)",
                           opt.host, http.port()));
    return kExitFailure;
  }
  fmt::print(stderr, "trit: server stopped\n");
  return kExitSuccess;
}

}  // namespace

Command AddServeCommand(CLI::App& parent) {
  auto opt = std::make_shared<ServeOptions>();
  CLI::App* app = parent.add_subcommand("serve", "Serve a model over an OpenAI-compatible HTTP API (docs/SERVER.md)");
  app->add_option("model", opt->model,
                  "GGUF model to serve: a path, a store name (trit models list) or a URL. Without it, every model of "
                  "the store (and the bundled one) is served, each loaded on its first request");
  AddEngineOption(app, &opt->engine);
  app->add_option("--host", opt->host, "Address to listen on (loopback by default; 0.0.0.0 for every interface)")
      ->default_val("127.0.0.1");
  app->add_option("--port", opt->port, "TCP port (0: any free port, printed when ready)")
      ->default_val(8080)
      ->check(CLI::Range(0, 65535));
  app->add_option("-p,--parallel", opt->parallel, "Slots: requests generated at once, batched in one step")
      ->default_val(4)
      ->check(CLI::Range(1, 256));
  app->add_option("--queue", opt->queue, "Requests that may wait for a slot; beyond that the server answers 429")
      ->default_val(16)
      ->check(CLI::Range(0, 4096));
  app->add_option("--prefill-chunk", opt->prefill_chunk,
                  "Most prompt tokens computed in one step, all slots together: smaller lets generating slots "
                  "wait less behind a long prompt; larger computes prompts faster. Answers do not depend on it")
      ->default_val(256)
      ->check(CLI::Range(1, 65536));
  app->add_option("-c,--ctx", opt->ctx, "Context length of each slot in tokens (0: the model's, at most 4096)")
      ->default_val(0)
      ->check(CLI::NonNegativeNumber);
  app->add_option("--api-key", opt->api_key,
                  "Require 'Authorization: Bearer KEY' on every endpoint but /health and /metrics (or set TRIT_API_KEY)");
  app->add_option("--api-key-file", opt->api_key_file,
                  "Accept every key of this file (one per line: KEY or LABEL KEY; '#' comments); /metrics counts "
                  "requests and tokens per label")
      ->check(CLI::ExistingFile);
  app->add_option("-t,--threads", opt->threads, "Compute threads (0: one per hardware thread); results do not depend on it")
      ->default_val(0)
      ->check(CLI::NonNegativeNumber);
  app->add_option("--max-body", opt->max_body, "Largest request body in bytes (larger: 413)")
      ->default_val(size_t{4} << 20)
      ->check(CLI::Range(size_t{1024}, size_t{1} << 30));
  app->add_option("--max-connections", opt->max_connections,
                  "Open connections at most, idle ones included; past them a request gets 503 with Retry-After")
      ->default_val(512)
      ->check(CLI::Range(1, 65536));
  app->add_option("--max-connections-per-client", opt->max_connections_per_client,
                  "Open connections from one client address at most (0: no limit; behind a proxy every "
                  "request comes from the proxy's address)")
      ->default_val(0)
      ->check(CLI::Range(0, 65536));
  app->add_option("--idle-timeout", opt->idle_timeout,
                  "Seconds a connection may send nothing (inside a request or between requests) before it is closed")
      ->default_val(15)
      ->check(CLI::Range(1, 3600));
  app->add_option("--alias", opt->aliases,
                  "Another name a model answers to in a request's \"model\" (repeatable), for clients that send a "
                  "fixed name such as gpt-4o-mini; NAME=MODEL names a model of the store; /v1/models lists them")
      ->check([](const std::string& alias) -> std::string {
        const std::string name = SplitAlias(alias).first;
        if (name.empty() || name.size() > 256) return "a model alias must have 1 to 256 characters";
        for (unsigned char c : name) {
          if (c < 0x20 || c == 0x7F || c == ' ') return "a model alias may not hold spaces or control characters";
        }
        return "";
      });
  CLI::Option* max_models = app->add_option("--max-models", opt->max_models,
                  "Without MODEL (serving the model store): models resident at once; the one used least recently "
                  "and idle is unloaded to load another")
      ->default_val(2)
      ->check(CLI::Range(1, 64));
  CLI::Option* memory_budget = app->add_option("--memory-budget", opt->memory_budget,
                  "Without MODEL: memory the resident models may take (files and KV caches), e.g. 8G; 'auto': 3/4 "
                  "of this machine's memory; 0: no limit")
      ->default_val("auto");
  app->add_flag("--no-prompt-reuse", opt->no_prompt_reuse,
                "Compute every prompt in full, even where a slot's cache already holds its start (answers are the "
                "same either way; for comparisons)");
  AddSpeculationFlags(app, &opt->speculation, "slot and step");
  app->add_flag("--truncatable-embeddings", opt->truncatable_embeddings,
                "Let /v1/embeddings requests ask for fewer 'dimensions' (the first values, normalized again): "
                "only for embedding models trained for it (Matryoshka)");
  app->add_flag("--no-webui", opt->no_webui,
                "Do not serve the chat page at / (the API alone; docs/SERVER.md shows the page)");
  app->footer(
      "Examples:\n  trit serve model.gguf --parallel 8              # API at http://127.0.0.1:8080/v1, chat page at /\n"
      "  TRIT_API_KEY=secret trit serve model.gguf --host 0.0.0.0 --port 9000\n"
      "  trit serve model.gguf --api-key-file keys.txt   # keys.txt: 'alice sk-...' per line\n"
      "  trit serve model.gguf --alias gpt-4o-mini        # clients that send that name get this model\n"
      "  trit serve --max-models 2 --alias gpt-4o-mini=qwen2.5-0.5b   # the store's models, loaded on demand\n"
      "  trit serve model.gguf --spec lookup             # the same answers, sooner where they quote the prompt\n"
      "  curl http://127.0.0.1:8080/v1/chat/completions -H 'Content-Type: application/json' \\\n"
      "       -d '{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"max_tokens\":32}'");
  return {app, [opt, max_models, memory_budget] {
            opt->store_flags_given = max_models->count() + memory_budget->count() > 0;
            return RunServe(*opt);
          }};
}

}  // namespace trit::cli
