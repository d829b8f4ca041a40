// `trit serve [MODEL]`: an OpenAI-compatible HTTP server (docs/SERVER.md).
// Loads the model, starts the scheduler (N slots sharing one session) and
// serves until SIGINT or SIGTERM.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pthread.h>
#include <signal.h>

#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include "cli/command.h"
#include "cli/default_model.h"
#include "cli/engine_option.h"
#include "server/api_keys.h"
#include "server/http_server.h"
#include "server/scheduler.h"
#include "server/served_model.h"
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
  int64_t ctx = 0;
  std::string api_key;
  std::string api_key_file;
  int threads = 0;
  size_t max_body = size_t{4} << 20;
  bool no_webui = false;
  bool no_prompt_reuse = false;
  int max_connections = 512;
  int max_connections_per_client = 0;
  int idle_timeout = 15;
};

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
  std::string path = opt.model;
  if (path.empty()) {
    Expected<std::string> bundled = DefaultModelPath();
    if (!bundled.ok()) {
      PrintError(bundled.status().message());
      return kExitUsage;
    }
    path = *bundled;
  } else {
    Expected<std::string> resolved = store::ResolveModelArgument(path);  // a path, a store name or a URL
    if (!resolved.ok()) {
      PrintError(resolved.status().message());
      return kExitFailure;
    }
    path = *resolved;
  }
  Expected<server::ApiKeys> api_keys = LoadApiKeys(opt);
  if (!api_keys.ok()) {
    PrintError(api_keys.status().message());
    return kExitUsage;
  }
  // SIGINT/SIGTERM are taken by one thread (sigwait) that stops the server;
  // they are blocked before any other thread starts, so all inherit that.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  Expected<std::unique_ptr<server::ServedModel>> model = server::LoadServedModel(path, opt.engine);
  if (!model.ok()) {
    PrintError(model.status().message());
    return model.status().code() == ErrorCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  for (const std::string& alias : opt.aliases) {
    if (!(*model)->Answers(alias)) (*model)->aliases.push_back(alias);
  }
  server::Metrics metrics;
  for (const std::string& label : api_keys->labels()) metrics.DeclareKey(label);
  server::SchedulerOptions so;
  so.n_slots = opt.parallel;
  so.max_queue = opt.queue;
  so.n_ctx = opt.ctx;
  so.reuse_prompts = !opt.no_prompt_reuse;
  so.n_threads = opt.threads > 0 ? opt.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  Expected<std::unique_ptr<server::Scheduler>> scheduler = server::Scheduler::Create(**model, so, &metrics);
  if (!scheduler.ok()) {
    PrintError(scheduler.status().message());
    return scheduler.status().code() == ErrorCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  server::HttpOptions ho;
  ho.transport.host = opt.host;
  ho.transport.port = opt.port;
  const size_t n_keys = api_keys->size();
  ho.api_keys = std::move(*api_keys);
  ho.transport.max_body_bytes = opt.max_body;
  ho.webui = !opt.no_webui;
  ho.transport.max_connections = opt.max_connections;
  ho.transport.max_connections_per_address = opt.max_connections_per_client;
  ho.transport.idle_timeout_seconds = opt.idle_timeout;
  server::HttpServer http(**model, **scheduler, metrics, ho);
  if (Status s = http.Bind(); !s.ok()) {
    PrintError(s.message());
    return kExitFailure;
  }
  std::thread stopper([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    http.Stop();
  });
  fmt::print(stderr, "trit: serving {} ({}, {} slots x {} tokens, {} threads{}) at http://{}:{}\n", path,
             (*model)->prompt_builder->chat() ? "chat template" : "no chat template", opt.parallel,
             (*scheduler)->n_ctx(), so.n_threads,
             n_keys == 0 ? "" : n_keys == 1 ? ", API key required" : fmt::format(", {} API keys", n_keys), opt.host,
             http.port());
  fmt::print(stderr, "trit: requests name the model '{}'\n", fmt::join((*model)->names(), "' or '"));
  if (ho.webui) fmt::print(stderr, "trit: chat in the browser at http://{}:{}/\n", BrowserHost(opt.host), http.port());
  std::fflush(stderr);
  const bool ok = http.Listen();
  // Wake the stopper if Listen ended on its own (an error).
  pthread_kill(stopper.native_handle(), SIGTERM);
  stopper.join();
  (*scheduler)->Stop();
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
                  "GGUF model to serve: a path, a store name (trit models list) or a URL (default: the bundled model)");
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
                  "Another name the model answers to in a request's \"model\" (repeatable), for clients that send a "
                  "fixed name such as gpt-4o-mini; /v1/models lists them")
      ->check([](const std::string& name) -> std::string {
        if (name.empty() || name.size() > 256) return "a model alias must have 1 to 256 characters";
        for (unsigned char c : name) {
          if (c < 0x20 || c == 0x7F || c == ' ') return "a model alias may not hold spaces or control characters";
        }
        return "";
      });
  app->add_flag("--no-prompt-reuse", opt->no_prompt_reuse,
                "Compute every prompt in full, even where a slot's cache already holds its start (answers are the "
                "same either way; for comparisons)");
  app->add_flag("--no-webui", opt->no_webui,
                "Do not serve the chat page at / (the API alone; docs/SERVER.md shows the page)");
  app->footer(
      "Examples:\n  trit serve model.gguf --parallel 8              # API at http://127.0.0.1:8080/v1, chat page at /\n"
      "  TRIT_API_KEY=secret trit serve model.gguf --host 0.0.0.0 --port 9000\n"
      "  trit serve model.gguf --api-key-file keys.txt   # keys.txt: 'alice sk-...' per line\n"
      "  trit serve model.gguf --alias gpt-4o-mini        # clients that send that name get this model\n"
      "  curl http://127.0.0.1:8080/v1/chat/completions -H 'Content-Type: application/json' \\\n"
      "       -d '{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"max_tokens\":32}'");
  return {app, [opt] { return RunServe(*opt); }};
}

}  // namespace trit::cli
