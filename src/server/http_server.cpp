#include "server/http_server.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <atomic>
#include <functional>
#include <ctime>
#include <nlohmann/json.hpp>
#include <random>

#include "grammar/gbnf.h"
#include "server/completion_reply.h"
#include "server/embeddings_protocol.h"
#include "server/http_transport.h"
#include "server/openai_protocol.h"
#include "server/webui.h"

namespace trit::server {

using nlohmann::json;

namespace {

constexpr const char* kJson = "application/json";

ApiError MakeError(int status, std::string message, std::string type, std::string code, std::string param = {}) {
  ApiError e;
  e.status = status;
  e.message = std::move(message);
  e.type = std::move(type);
  e.code = std::move(code);
  e.param = std::move(param);
  return e;
}

// A request named a model this server does not answer to: the 404 names those it does.
ApiError UnknownModel(std::string_view asked, const std::vector<std::string>& names) {
  if (names.empty()) {
    return MakeError(404, fmt::format("the model '{}' does not exist; this server has no models", asked),
                     "invalid_request_error", "model_not_found", "model");
  }
  return MakeError(404, fmt::format("the model '{}' does not exist; this server has '{}'", asked,
                                    fmt::join(names, "', '")),
                   "invalid_request_error", "model_not_found", "model");
}

ApiError Stopping() { return MakeError(503, "the server is stopping", "server_error", "unavailable"); }

// What a request does with its model once the model is resident.
using ModelHandler = std::function<HttpReply(const ModelLease&)>;

// A request whose model is being loaded: it waits, without a thread, and
// then goes on as if the model had been there.
class LoadingReply final : public DeferredReply {
 public:
  LoadingReply(std::shared_ptr<ModelLoad> load, std::string id, ModelPool& pool, ModelHandler then)
      : load_(std::move(load)), id_(std::move(id)), pool_(pool), then_(std::move(then)) {}

  void SetWaker(Waker waker) override { load_->OnReady(std::move(waker)); }

  std::optional<HttpReply> Poll() override {
    std::optional<Expected<ModelLease>> loaded = load_->Poll();
    if (!loaded.has_value()) return std::nullopt;
    if (!loaded->ok()) {
      if (!pool_.running()) return ErrorResponse(Stopping());
      return ErrorResponse(MakeError(500,
                                     fmt::format("model '{}' could not be loaded: {}", id_,
                                                 loaded->status().message()),
                                     "server_error", "model_load_failed", "model"));
    }
    // A lease of the request's own (the load's counts no use), taken while
    // the load's still holds the model.
    ModelLease lease = pool_.Acquire(id_).lease;
    if (lease == nullptr) lease = loaded->value();
    load_.reset();
    return then_(lease);
  }

  void Abort() override {}
  HttpResponse Interrupted() override { return ErrorResponse(Stopping()); }

 private:
  std::shared_ptr<ModelLoad> load_;
  std::string id_;
  ModelPool& pool_;
  ModelHandler then_;
};

// The "model" of a request body, a JSON object ("" when absent or not a string).
std::string ModelField(const json& j) {
  auto it = j.find("model");
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

HttpResponse Json(std::string body) { return {.status = 200, .content_type = kJson, .body = std::move(body), .headers = {}}; }

// The label /metrics counts a request under: known routes by name, the rest together.
std::string EndpointLabel(const std::string& path) {
  static const char* const kKnown[] = {"/v1/chat/completions", "/v1/completions", "/v1/embeddings", "/v1/models",
                                       "/health", "/metrics", "/tokenize", "/detokenize"};
  for (const char* k : kKnown) {
    if (path == k) return k;
  }
  if (path.starts_with("/v1/models/")) return "/v1/models/{id}";
  if (path == "/") return "/";
  if (path.starts_with("/webui/")) return "/webui/{file}";
  return "other";
}

// The transport's own errors (413, 503 past the connection limit) in OpenAI's shape.
HttpResponse TransportError(int status, std::string message) {
  if (status == 413) return ErrorResponse(MakeError(413, std::move(message), "invalid_request_error", "request_too_large"));
  if (status == 503) return ErrorResponse(MakeError(503, std::move(message), "server_error", "too_many_connections"));
  return ErrorResponse(MakeError(status, std::move(message), status >= 500 ? "server_error" : "invalid_request_error",
                                 status >= 500 ? "internal_error" : ""));
}

HttpResponse WebAssetResponse(const WebAsset& asset) {
  return {.status = 200,
          .content_type = std::string(asset.content_type),
          .body = std::string(asset.body),
          .headers = {{"Content-Security-Policy", std::string(kWebUiContentSecurityPolicy)},
                      {"X-Content-Type-Options", "nosniff"},
                      {"Referrer-Policy", "no-referrer"},
                      {"Cache-Control", "no-cache"}}};
}

// An embeddings request waiting for its batch: woken by the batcher's thread.
class EmbeddingReply final : public DeferredReply {
 public:
  // `dimensions`: of the answer (the first values of each vector); `normalize`: as the job's.
  EmbeddingReply(std::shared_ptr<EmbeddingJob> job, ModelLease lease, EmbeddingEncoding encoding, int64_t dimensions,
                 bool normalize, int64_t n_tokens)
      : job_(std::move(job)),
        lease_(std::move(lease)),
        encoding_(encoding),
        dim_(dimensions),
        normalize_(normalize),
        n_tokens_(n_tokens) {}

  void SetWaker(Waker waker) override { job_->OnReady(std::move(waker)); }

  std::optional<HttpReply> Poll() override {
    if (!job_->ready()) return std::nullopt;
    if (job_->stopped()) return ErrorResponse(Stopping());
    const int64_t full = lease_->model->embedder->dimension();
    std::vector<float> vectors;
    const std::vector<float>& all = job_->vectors();
    if (dim_ == full) {
      vectors = all;
    } else {  // the first dim_ values of each, at unit length again when normalized
      for (size_t i = 0; i < job_->inputs().size(); ++i) {
        const float* v = all.data() + static_cast<int64_t>(i) * full;
        vectors.insert(vectors.end(), v, v + dim_);
        if (normalize_) runtime::NormalizeL2(vectors.data() + static_cast<int64_t>(i) * dim_, dim_);
      }
    }
    return HttpReply(HttpResponse{.status = 200,
                                  .content_type = kJson,
                                  .body = EmbeddingsBody(lease_->model->id, vectors, dim_, encoding_, n_tokens_),
                                  .headers = {}});
  }

  void Abort() override {}
  HttpResponse Interrupted() override { return ErrorResponse(Stopping()); }

 private:
  std::shared_ptr<EmbeddingJob> job_;
  ModelLease lease_;
  EmbeddingEncoding encoding_;
  int64_t dim_;
  bool normalize_;
  int64_t n_tokens_;
};

}  // namespace

struct HttpServer::Impl {
  ModelPool& models;
  Metrics& metrics;
  HttpOptions options;
  std::unique_ptr<HttpTransport> transport;
  int64_t started = static_cast<int64_t>(std::time(nullptr));
  std::atomic<uint64_t> next_id{0};
  uint64_t id_salt = std::random_device{}();

  Impl(ModelPool& p, Metrics& mt, HttpOptions o) : models(p), metrics(mt), options(std::move(o)) {
    HttpHandlers handlers;
    handlers.handle = [this](const HttpRequest& req) { return Handle(req); };
    handlers.error = &TransportError;
    handlers.log = [this](const HttpRequest& req, int status) {
      metrics.CountRequest(EndpointLabel(req.path), status);
      if (const std::string* key = KeyLabel(req)) metrics.CountKeyRequest(*key);
    };
    transport = std::make_unique<HttpTransport>(options.transport, std::move(handlers));
  }

  std::string NewId(const char* prefix) {
    return fmt::format("{}{:08x}{:06x}", prefix, id_salt & 0xffffffffu, next_id.fetch_add(1));
  }

  // The label of the request's API key; nullptr without keys or a valid one.
  const std::string* KeyLabel(const HttpRequest& req) const {
    if (options.api_keys.empty()) return nullptr;
    const std::string auth = req.Header("Authorization");
    constexpr std::string_view kPrefix = "Bearer ";
    if (!auth.starts_with(kPrefix)) return nullptr;
    return options.api_keys.Match(std::string_view(auth).substr(kPrefix.size()));
  }
  // A 401 for a request that needs a key and has none that is valid.
  std::optional<HttpResponse> CheckAuth(const HttpRequest& req) const;
  HttpReply Handle(const HttpRequest& req);
  // Runs `then` with the model `name` (empty: the one used last): at once
  // when it is resident, else once it is loaded; a 404 naming the models
  // when there is none of that name.
  HttpReply WithModel(const std::string& name, ModelHandler then);
  HttpReply Completion(const HttpRequest& req, Endpoint endpoint);
  // POST /v1/embeddings once its model is resident.
  HttpReply Embeddings(const ModelLease& lease, const EmbeddingsRequest& request);
  // Who sent a request, for metrics and fairness: its API key's label (empty
  // without keys) and the client (its key, or its address without keys).
  struct Sender {
    std::string key_label;
    std::string client;
  };
  HttpReply Generate(const ResidentModel& resident, ModelLease lease, CompletionRequest cr, Endpoint endpoint,
                     const Sender& sender);
  // `j`: the request body, a JSON object.
  HttpResponse Tokenize(const ServedModel& model, const json& j);
  HttpResponse Detokenize(const ServedModel& model, const json& j);
  std::vector<ModelEntry> ModelEntries();
};

HttpReply HttpServer::Impl::WithModel(const std::string& name, ModelHandler then) {
  ModelPool::Acquired acquired = models.Acquire(name);
  if (acquired.lease != nullptr) return then(acquired.lease);
  if (acquired.load == nullptr) return ErrorResponse(UnknownModel(name, models.names()));
  return std::make_shared<LoadingReply>(std::move(acquired.load), acquired.id, models, std::move(then));
}

std::vector<ModelEntry> HttpServer::Impl::ModelEntries() {
  std::vector<ModelEntry> out;
  for (const PoolListing& m : models.List()) {
    out.push_back({m.id, m.loaded});
    for (const std::string& alias : m.aliases) out.push_back({alias, m.loaded});
  }
  return out;
}

std::optional<HttpResponse> HttpServer::Impl::CheckAuth(const HttpRequest& req) const {
  // Probes of load balancers and scrapers go without the key, and so does
  // the chat page (a browser cannot send a bearer token when it opens a URL;
  // the page holds no secret, and asks for the key before it calls the API).
  if (options.api_keys.empty() || req.path == "/health" || req.path == "/metrics" ||
      (options.webui && req.method == "GET" && FindWebAsset(req.path).has_value())) {
    return std::nullopt;
  }
  if (KeyLabel(req) != nullptr) return std::nullopt;
  return ErrorResponse(MakeError(401,
                                 req.Header("Authorization").empty()
                                     ? "no API key given: send the header 'Authorization: Bearer KEY'"
                                     : "the API key given is not the server's",
                                 "invalid_request_error", "invalid_api_key"));
}

HttpReply HttpServer::Impl::Handle(const HttpRequest& req) {
  if (std::optional<HttpResponse> refused = CheckAuth(req)) return *refused;
  const std::string& path = req.path;
  if (req.method == "POST") {
    if (path == "/v1/chat/completions") return Completion(req, Endpoint::kChatCompletions);
    if (path == "/v1/completions") return Completion(req, Endpoint::kCompletions);
    if (path == "/tokenize" || path == "/detokenize") {
      if (auto e = CheckJsonObject(req.body)) return ErrorResponse(*e);
      const bool tokenize = path == "/tokenize";
      auto body = std::make_shared<const json>(json::parse(req.body));
      return WithModel(ModelField(*body), [this, tokenize, body](const ModelLease& m) -> HttpReply {
        return tokenize ? Tokenize(*m->model, *body) : Detokenize(*m->model, *body);
      });
    }
    if (path == "/v1/embeddings") {
      auto request = std::make_shared<EmbeddingsRequest>();
      if (auto e = ParseEmbeddingsRequest(req.body, request.get())) return ErrorResponse(*e);
      const std::string name = request->model;
      return WithModel(name, [this, request](const ModelLease& lease) { return Embeddings(lease, *request); });
    }
  } else if (req.method == "GET" || req.method == "HEAD") {
    if (path == "/v1/models") return Json(ModelsBody(ModelEntries(), started));
    if (path.starts_with("/v1/models/") && path.size() > std::string_view("/v1/models/").size()) {
      const std::string id = path.substr(std::string_view("/v1/models/").size());
      for (const ModelEntry& m : ModelEntries()) {
        if (m.id == id) return Json(ModelBody(m, started));
      }
      return ErrorResponse(UnknownModel(id, models.names()));
    }
    if (path == "/health") {
      if (models.running()) return Json(R"({"status":"ok"})");
      return ErrorResponse(MakeError(503, "the scheduler is not running", "server_error", "unavailable"));
    }
    if (path == "/metrics") {
      Gauges gauges = models.gauges();
      gauges.open_connections = transport->open_connections();
      return HttpResponse{.status = 200, .content_type = "text/plain; version=0.0.4", .body = metrics.Render(gauges),
                          .headers = {}};
    }
    if (options.webui && (path == "/" || path.starts_with("/webui/"))) {
      if (const std::optional<WebAsset> asset = FindWebAsset(path)) return WebAssetResponse(*asset);
      return ErrorResponse(MakeError(404, fmt::format("no file {} in the chat page", path), "invalid_request_error",
                                     "unknown_url"));
    }
  }
  return ErrorResponse(MakeError(404, fmt::format("no route for {} {}", req.method, path), "invalid_request_error",
                                 "unknown_url"));
}

HttpReply HttpServer::Impl::Completion(const HttpRequest& req, Endpoint endpoint) {
  auto cr = std::make_shared<CompletionRequest>();
  if (auto e = ParseCompletionRequest(req.body, endpoint, cr.get())) return ErrorResponse(*e);
  // Who sent it, for the scheduler's fairness between clients: its API key,
  // or without keys its address (every connection of one host is one client).
  Sender sender;
  if (const std::string* key = KeyLabel(req)) {
    sender = {*key, "key " + *key};
  } else {
    sender = {"", "address " + req.remote_address};
  }
  const std::string name = cr->model;
  return WithModel(name, [this, cr, endpoint, sender](const ModelLease& lease) {
    return Generate(*lease, lease, std::move(*cr), endpoint, sender);
  });
}

HttpReply HttpServer::Impl::Embeddings(const ModelLease& lease, const EmbeddingsRequest& request) {
  const ServedModel& model = *lease->model;
  if (!model.embeds()) {
    return ErrorResponse(MakeError(400,
                                   fmt::format("model '{}' cannot make embeddings: it is a text-generation model "
                                               "(trit serve computes embeddings with embedding models, e.g. a "
                                               "BERT file from `trit convert`)",
                                               model.id),
                                   "invalid_request_error", "model_not_supported", "model"));
  }
  const runtime::Embedder& embedder = *model.embedder;
  if (request.dimensions && *request.dimensions != embedder.dimension()) {
    if (*request.dimensions > embedder.dimension() || !options.truncatable_embeddings) {
      return ErrorResponse(MakeError(
          400,
          *request.dimensions > embedder.dimension()
              ? fmt::format("'dimensions' is {}, but model '{}' gives {}-dimension vectors", *request.dimensions,
                            model.id, embedder.dimension())
              : fmt::format("'dimensions' is {}: model '{}' gives {}-dimension vectors and this server does not "
                            "shorten them (start it with --truncatable-embeddings for a model trained for that)",
                            *request.dimensions, model.id, embedder.dimension()),
          "invalid_request_error", "invalid_value", "dimensions"));
    }
  }
  std::vector<std::vector<int32_t>> inputs;
  if (request.token_input) inputs = request.tokens;
  int64_t n_tokens = 0;
  for (size_t i = 0; i < request.size(); ++i) {
    if (!request.token_input) {
      Expected<std::vector<int32_t>> ids = embedder.Tokenize(request.texts[i]);
      if (!ids.ok()) {
        return ErrorResponse(MakeError(400, fmt::format("'input'[{}]: {}", i, ids.status().message()),
                                       "invalid_request_error", "context_length_exceeded", "input"));
      }
      inputs.push_back(std::move(ids).value());
    } else if (Status s = embedder.CheckIds(inputs[i]); !s.ok()) {
      return ErrorResponse(MakeError(400, fmt::format("'input'[{}]: {}", i, s.message()), "invalid_request_error",
                                     "invalid_value", "input"));
    }
    n_tokens += static_cast<int64_t>(inputs[i].size());
  }
  std::shared_ptr<EmbeddingJob> job = lease->embeddings->Submit(std::move(inputs), request.normalize);
  if (job == nullptr) {
    HttpResponse r = ErrorResponse(MakeError(429, "the embedding queue is full; retry shortly", "rate_limit_error",
                                             "server_busy"));
    r.headers.emplace_back("Retry-After", "1");
    return r;
  }
  return std::make_shared<EmbeddingReply>(std::move(job), lease, request.encoding,
                                          request.dimensions.value_or(embedder.dimension()), request.normalize, n_tokens);
}

HttpReply HttpServer::Impl::Generate(const ResidentModel& resident, ModelLease lease, CompletionRequest cr,
                                     Endpoint endpoint, const Sender& sender) {
  const ServedModel& model = *resident.model;
  if (model.embeds()) {
    return ErrorResponse(MakeError(400,
                                   fmt::format("model '{}' is an embedding model: it does not generate text; send "
                                               "its inputs to /v1/embeddings",
                                               model.id),
                                   "invalid_request_error", "model_not_supported", "model"));
  }
  Scheduler& scheduler = *resident.scheduler;
  std::vector<int32_t> prompt;
  const char* prompt_param = endpoint == Endpoint::kChatCompletions ? "messages" : "prompt";
  const ToolsRequest& tools = cr.tools;
  if (!tools.tools_json.empty() && !model.prompt_builder->chat()) {
    return ErrorResponse(MakeError(400, fmt::format("'tools' need a chat template, and model '{}' has none", model.id),
                                   "invalid_request_error", "invalid_value", "tools"));
  }
  if (!cr.chat_template_kwargs.empty() && !model.prompt_builder->chat()) {
    return ErrorResponse(MakeError(400,
                                   fmt::format("'chat_template_kwargs' need a chat template, and model '{}' has none",
                                               model.id),
                                   "invalid_request_error", "invalid_value", "chat_template_kwargs"));
  }
  if (tools.choice == ToolChoice::kRequired || tools.choice == ToolChoice::kFunction) {
    // The reply is a call, in the form the template teaches, with arguments
    // valid under the function's schema: the grammar guarantees it parses.
    std::vector<ToolSpec> callable;
    for (const ToolSpec& f : tools.functions) {
      if (tools.choice == ToolChoice::kRequired || f.name == tools.function) callable.push_back(f);
    }
    Expected<std::string> gbnf = ToolCallGbnf(model.tool_format, callable, tools.parallel);
    Expected<std::shared_ptr<const grammar::Grammar>> g =
        gbnf.ok() ? grammar::ParseGbnf(*gbnf) : Expected<std::shared_ptr<const grammar::Grammar>>(gbnf.status());
    if (!g.ok()) {
      return ErrorResponse(MakeError(400, fmt::format("'tools': {}", g.status().message()), "invalid_request_error",
                                     "invalid_value", "tools"));
    }
    cr.params.grammar = std::move(g).value();
  }
  if (endpoint == Endpoint::kChatCompletions) {
    // A template that knows no tools gets them spelled out in the messages.
    std::vector<chat::ChatMessage> spelled;
    if (!model.template_speaks_tools) spelled = SpellOutTools(cr.messages, tools.tools_json);
    const std::vector<chat::ChatMessage>& messages = model.template_speaks_tools ? cr.messages : spelled;
    runtime::TemplateInputs inputs{.tools_json = model.template_speaks_tools ? tools.tools_json : std::string_view(),
                                   .kwargs_json = cr.chat_template_kwargs};
    Expected<std::vector<tokenizer::TokenId>> ids = model.prompt_builder->Build(messages, inputs);
    if (!ids.ok()) {
      // The template failed: blame the kwargs when it renders without them
      // (e.g. a raise_exception over a kwarg's value), else the messages.
      const char* param = "messages";
      if (!cr.chat_template_kwargs.empty()) {
        inputs.kwargs_json = {};
        if (model.prompt_builder->Render(messages, /*add_generation_prompt=*/true, inputs).ok()) {
          param = "chat_template_kwargs";
        }
      }
      return ErrorResponse(MakeError(400, ids.status().message(), "invalid_request_error", "invalid_value", param));
    }
    prompt = std::move(ids).value();
  } else if (cr.prompt_ids.has_value()) {
    for (int32_t id : *cr.prompt_ids) {
      if (!model.tokenizer->vocab().Valid(id)) {
        return ErrorResponse(MakeError(400, fmt::format("token id {} is not in the vocabulary of {} tokens", id,
                                                        model.tokenizer->vocab().size()),
                                       "invalid_request_error", "invalid_value", "prompt"));
      }
    }
    prompt = std::move(*cr.prompt_ids);
  } else {
    prompt = model.tokenizer->Encode(cr.prompt, {.add_special = true, .parse_special = false});
  }
  for (const auto& [id, bias] : cr.params.logit_bias) {
    if (!model.tokenizer->vocab().Valid(id)) {
      return ErrorResponse(MakeError(400,
                                     fmt::format("'logit_bias' names token {}, not in the vocabulary of {} tokens", id,
                                                 model.tokenizer->vocab().size()),
                                     "invalid_request_error", "invalid_value", "logit_bias"));
    }
  }
  // echo: the prompt as given, or the text of the token ids given.
  std::string echo;
  if (cr.echo) echo = cr.prompt_ids.has_value() ? model.tokenizer->Decode(prompt, {}) : cr.prompt;
  if (static_cast<int64_t>(prompt.size()) > scheduler.n_ctx()) {
    return ErrorResponse(MakeError(400,
                                   fmt::format("this model's context is {} tokens per request, but the prompt has {} tokens",
                                               scheduler.n_ctx(), prompt.size()),
                                   "invalid_request_error", "context_length_exceeded", prompt_param));
  }
  // n choices are n requests of one prompt, choice i with seed + i; the
  // scheduler computes the prompt once and copies it to the others' slots.
  std::vector<std::shared_ptr<RequestChannel>> channels;
  for (int32_t i = 0; i < cr.n; ++i) {
    GenerationParams params = cr.params;
    params.sampling.seed += static_cast<uint64_t>(i);
    Submission sub = scheduler.Submit(prompt, std::move(params), sender.key_label, sender.client);
    if (sub.result != SubmitResult::kAccepted) {
      for (const auto& c : channels) c->Cancel();  // all choices or none
    }
    if (sub.result == SubmitResult::kQueueFull) {
      HttpResponse r = ErrorResponse(MakeError(429, sub.message, "rate_limit_error", "server_busy"));
      r.headers.emplace_back("Retry-After", "1");
      return r;
    }
    if (sub.result == SubmitResult::kShuttingDown) {
      return ErrorResponse(MakeError(503, sub.message, "server_error", "unavailable"));
    }
    if (sub.result != SubmitResult::kAccepted) {
      return ErrorResponse(MakeError(400, sub.message, "invalid_request_error", "invalid_value", prompt_param));
    }
    channels.push_back(std::move(sub.channel));
  }
  CompletionReplyOptions reply{.endpoint = endpoint,
                               .info = {NewId(endpoint == Endpoint::kChatCompletions ? "chatcmpl-" : "cmpl-"),
                                        static_cast<int64_t>(std::time(nullptr)), model.id},
                               .logprobs = cr.params.top_logprobs >= 0,
                               .include_usage = cr.include_usage,
                               .echo = std::move(echo),
                               .tools = {},
                               .keep_alive = std::move(lease)};
  if (tools.choice != ToolChoice::kNone) {
    reply.tools = ToolReplyOptions{
        .format = model.tool_format, .functions = tools.functions, .id_seed = id_salt ^ next_id.fetch_add(1)};
  }
  if (cr.stream) return MakeCompletionStream(std::move(channels), std::move(reply));
  return MakeCompletionReply(std::move(channels), std::move(reply));
}

HttpResponse HttpServer::Impl::Tokenize(const ServedModel& model, const json& j) {
  auto content = j.find("content");
  if (content == j.end() || !content->is_string()) {
    return ErrorResponse(MakeError(400, "'content' must be a string", "invalid_request_error", "invalid_value", "content"));
  }
  bool add_special = false, with_pieces = false;
  for (auto [key, out] : {std::pair<const char*, bool*>{"add_special", &add_special}, {"with_pieces", &with_pieces}}) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) continue;
    if (!it->is_boolean()) {
      return ErrorResponse(MakeError(400, fmt::format("'{}' must be a boolean", key), "invalid_request_error",
                                      "invalid_value", key));
    }
    *out = it->get<bool>();
  }
  const std::vector<int32_t> ids =
      model.tokenizer->Encode(content->get<std::string>(), {.add_special = add_special, .parse_special = true});
  json tokens = json::array();
  for (int32_t id : ids) {
    if (with_pieces) {
      tokens.push_back({{"id", id}, {"piece", model.tokenizer->TokenToPiece(id, true, false)}});
    } else {
      tokens.push_back(id);
    }
  }
  return Json(json{{"tokens", tokens}}.dump(-1, ' ', false, json::error_handler_t::replace));
}

HttpResponse HttpServer::Impl::Detokenize(const ServedModel& model, const json& j) {
  auto tokens = j.find("tokens");
  if (tokens == j.end() || !tokens->is_array()) {
    return ErrorResponse(MakeError(400, "'tokens' must be an array of token ids", "invalid_request_error",
                                    "invalid_value", "tokens"));
  }
  std::vector<int32_t> ids;
  for (const json& t : *tokens) {
    int64_t id = -1;
    if (t.is_number_unsigned()) {
      id = t.get<uint64_t>() > static_cast<uint64_t>(INT32_MAX) ? -1 : static_cast<int64_t>(t.get<uint64_t>());
    } else if (t.is_number_integer()) {
      id = t.get<int64_t>();
    }
    if (id < 0 || id > INT32_MAX || !model.tokenizer->vocab().Valid(static_cast<int32_t>(id))) {
      return ErrorResponse(MakeError(400,
                                      fmt::format("'tokens' holds {}, not a token id of this vocabulary (0..{})",
                                                  t.dump(-1, ' ', false, json::error_handler_t::replace),
                                                  model.tokenizer->vocab().size() - 1),
                                      "invalid_request_error", "invalid_value", "tokens"));
    }
    ids.push_back(static_cast<int32_t>(id));
  }
  const std::string text = model.tokenizer->Decode(ids, {});
  return Json(json{{"content", text}}.dump(-1, ' ', false, json::error_handler_t::replace));
}

HttpServer::HttpServer(ModelPool& models, Metrics& metrics, HttpOptions options)
    : impl_(std::make_unique<Impl>(models, metrics, std::move(options))) {}

HttpServer::~HttpServer() = default;

Status HttpServer::Bind() { return impl_->transport->Bind(); }

int HttpServer::port() const { return impl_->transport->port(); }

bool HttpServer::Listen() { return impl_->transport->Listen(); }

void HttpServer::Stop() { impl_->transport->Stop(); }

}  // namespace trit::server
