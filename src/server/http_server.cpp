#include "server/http_server.h"

#include <fmt/format.h>
#include <httplib.h>

#include <atomic>
#include <ctime>
#include <nlohmann/json.hpp>
#include <random>

#include "server/openai_protocol.h"
#include "server/webui.h"

namespace trit::server {

using nlohmann::json;

namespace {

constexpr const char* kJson = "application/json";

void SendError(httplib::Response& res, const ApiError& error) {
  res.status = error.status;
  res.set_content(ErrorBody(error), kJson);
}

ApiError MakeError(int status, std::string message, std::string type, std::string code, std::string param = {}) {
  ApiError e;
  e.status = status;
  e.message = std::move(message);
  e.type = std::move(type);
  e.code = std::move(code);
  e.param = std::move(param);
  return e;
}

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

}  // namespace

struct HttpServer::Impl {
  const ServedModel& model;
  Scheduler& scheduler;
  Metrics& metrics;
  HttpOptions options;
  httplib::Server http;
  int bound_port = 0;
  int64_t started = static_cast<int64_t>(std::time(nullptr));
  std::atomic<uint64_t> next_id{0};
  uint64_t id_salt = std::random_device{}();

  Impl(const ServedModel& m, Scheduler& s, Metrics& mt, HttpOptions o)
      : model(m), scheduler(s), metrics(mt), options(std::move(o)) {}

  std::string NewId(const char* prefix) {
    return fmt::format("{}{:08x}{:06x}", prefix, id_salt & 0xffffffffu, next_id.fetch_add(1));
  }

  void Install();
  // The label of the request's API key; nullptr without keys or a valid one.
  const std::string* KeyLabel(const httplib::Request& req) const {
    if (options.api_keys.empty()) return nullptr;
    const std::string auth = req.get_header_value("Authorization");
    constexpr std::string_view kPrefix = "Bearer ";
    if (!auth.starts_with(kPrefix)) return nullptr;
    return options.api_keys.Match(std::string_view(auth).substr(kPrefix.size()));
  }
  httplib::Server::HandlerResponse CheckAuth(const httplib::Request& req, httplib::Response& res);
  void Completion(const httplib::Request& req, httplib::Response& res, Endpoint endpoint);
  void Stream(httplib::Response& res, std::shared_ptr<RequestChannel> channel, Endpoint endpoint, ResponseInfo info,
              bool include_usage, bool logprobs);
  void Tokenize(const httplib::Request& req, httplib::Response& res);
  void Detokenize(const httplib::Request& req, httplib::Response& res);
};

httplib::Server::HandlerResponse HttpServer::Impl::CheckAuth(const httplib::Request& req, httplib::Response& res) {
  // Probes of load balancers and scrapers go without the key, and so does
  // the chat page (a browser cannot send a bearer token when it opens a URL;
  // the page holds no secret, and asks for the key before it calls the API).
  if (options.api_keys.empty() || req.path == "/health" || req.path == "/metrics" ||
      (options.webui && req.method == "GET" && FindWebAsset(req.path).has_value())) {
    return httplib::Server::HandlerResponse::Unhandled;
  }
  const std::string auth = req.get_header_value("Authorization");
  if (KeyLabel(req) != nullptr) return httplib::Server::HandlerResponse::Unhandled;
  SendError(res, MakeError(401,
                           auth.empty() ? "no API key given: send the header 'Authorization: Bearer KEY'"
                                        : "the API key given is not the server's",
                           "invalid_request_error", "invalid_api_key"));
  return httplib::Server::HandlerResponse::Handled;
}

void HttpServer::Impl::Install() {
  http.new_task_queue = [n = options.n_http_threads] { return new httplib::ThreadPool(static_cast<size_t>(n)); };
  http.set_payload_max_length(options.max_body_bytes);
  http.set_read_timeout(30, 0);
  http.set_write_timeout(30, 0);
  http.set_keep_alive_timeout(5);
  http.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) { return CheckAuth(req, res); });
  // Errors httplib produces itself (unknown route, body too large, bad
  // request line) get a body in OpenAI's shape.
  http.set_error_handler(httplib::Server::HandlerWithResponse([this](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    if (res.status == 413) {
      SendError(res, MakeError(413, fmt::format("the request body is larger than {} bytes", options.max_body_bytes),
                               "invalid_request_error", "request_too_large"));
    } else if (res.status == 404) {
      SendError(res, MakeError(404, fmt::format("no route for {} {}", req.method, req.path), "invalid_request_error",
                               "unknown_url"));
    } else {
      SendError(res, MakeError(res.status, fmt::format("HTTP error {}", res.status), "invalid_request_error", ""));
    }
    return httplib::Server::HandlerResponse::Handled;
  }));
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
    std::string what = "unknown exception";
    try {
      if (ep) std::rethrow_exception(ep);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    SendError(res, MakeError(500, "internal error: " + what, "server_error", "internal_error"));
  });
  http.set_logger([this](const httplib::Request& req, const httplib::Response& res) {
    metrics.CountRequest(EndpointLabel(req.path), res.status);
    if (const std::string* key = KeyLabel(req)) metrics.CountKeyRequest(*key);
  });

  http.Post("/v1/chat/completions", [this](const httplib::Request& req, httplib::Response& res) {
    Completion(req, res, Endpoint::kChatCompletions);
  });
  http.Post("/v1/completions", [this](const httplib::Request& req, httplib::Response& res) {
    Completion(req, res, Endpoint::kCompletions);
  });
  http.Post("/v1/embeddings", [this](const httplib::Request& req, httplib::Response& res) {
    if (auto e = CheckJsonObject(req.body)) return SendError(res, *e);
    SendError(res, MakeError(400,
                             fmt::format("model '{}' cannot make embeddings: it is a text-generation model "
                                         "(trit serve computes embeddings only for embedding models)",
                                         model.id),
                             "invalid_request_error", "model_not_supported", "model"));
  });
  http.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(ModelsBody(model.id, started), kJson);
  });
  http.Get(R"(/v1/models/(.+))", [this](const httplib::Request& req, httplib::Response& res) {
    if (req.matches[1] != model.id) {
      return SendError(res, MakeError(404, fmt::format("the model '{}' does not exist; this server has '{}'",
                                                       req.matches[1].str(), model.id),
                                      "invalid_request_error", "model_not_found", "model"));
    }
    res.set_content(ModelBody(model.id, started), kJson);
  });
  http.Get("/health", [this](const httplib::Request&, httplib::Response& res) {
    if (scheduler.running()) {
      res.set_content(R"({"status":"ok"})", kJson);
    } else {
      SendError(res, MakeError(503, "the scheduler is not running", "server_error", "unavailable"));
    }
  });
  http.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(metrics.Render(scheduler.gauges()), "text/plain; version=0.0.4");
  });
  http.Post("/tokenize", [this](const httplib::Request& req, httplib::Response& res) { Tokenize(req, res); });
  http.Post("/detokenize", [this](const httplib::Request& req, httplib::Response& res) { Detokenize(req, res); });
  if (options.webui) {
    http.Get(R"(/|/webui/[^/]+)", [](const httplib::Request& req, httplib::Response& res) {
      const std::optional<WebAsset> asset = FindWebAsset(req.path);
      if (!asset) {
        return SendError(res, MakeError(404, fmt::format("no file {} in the chat page", req.path),
                                        "invalid_request_error", "unknown_url"));
      }
      res.set_header("Content-Security-Policy", std::string(kWebUiContentSecurityPolicy));
      res.set_header("X-Content-Type-Options", "nosniff");
      res.set_header("Referrer-Policy", "no-referrer");
      res.set_header("Cache-Control", "no-cache");
      res.set_content(asset->body.data(), asset->body.size(), std::string(asset->content_type));
    });
  }
}

void HttpServer::Impl::Completion(const httplib::Request& req, httplib::Response& res, Endpoint endpoint) {
  CompletionRequest cr;
  if (auto e = ParseCompletionRequest(req.body, endpoint, &cr)) return SendError(res, *e);
  if (!cr.model.empty() && cr.model != model.id) {
    return SendError(res, MakeError(404, fmt::format("the model '{}' does not exist; this server has '{}'", cr.model, model.id),
                                    "invalid_request_error", "model_not_found", "model"));
  }
  std::vector<int32_t> prompt;
  const char* prompt_param = endpoint == Endpoint::kChatCompletions ? "messages" : "prompt";
  if (endpoint == Endpoint::kChatCompletions) {
    Expected<std::vector<tokenizer::TokenId>> ids = model.prompt_builder->Build(cr.messages);
    if (!ids.ok()) {
      return SendError(res, MakeError(400, ids.status().message(), "invalid_request_error", "invalid_value", "messages"));
    }
    prompt = std::move(ids).value();
  } else if (cr.prompt_ids.has_value()) {
    for (int32_t id : *cr.prompt_ids) {
      if (!model.tokenizer->vocab().Valid(id)) {
        return SendError(res, MakeError(400, fmt::format("token id {} is not in the vocabulary of {} tokens", id,
                                                         model.tokenizer->vocab().size()),
                                        "invalid_request_error", "invalid_value", "prompt"));
      }
    }
    prompt = std::move(*cr.prompt_ids);
  } else {
    prompt = model.tokenizer->Encode(cr.prompt, {.add_special = true, .parse_special = false});
  }
  if (static_cast<int64_t>(prompt.size()) > scheduler.n_ctx()) {
    return SendError(res, MakeError(400,
                                    fmt::format("this model's context is {} tokens per request, but the prompt has {} tokens",
                                                scheduler.n_ctx(), prompt.size()),
                                    "invalid_request_error", "context_length_exceeded", prompt_param));
  }
  const bool logprobs = cr.params.top_logprobs >= 0;
  // Who sent it, for the scheduler's fairness between clients: its API key,
  // or without keys its address (every connection of one host is one client).
  const std::string* key = KeyLabel(req);
  Submission sub = scheduler.Submit(std::move(prompt), cr.params, key != nullptr ? *key : std::string(),
                                    key != nullptr ? "key " + *key : "address " + req.remote_addr);
  if (sub.result == SubmitResult::kQueueFull) {
    res.set_header("Retry-After", "1");
    return SendError(res, MakeError(429, sub.message, "rate_limit_error", "server_busy"));
  }
  if (sub.result == SubmitResult::kShuttingDown) {
    return SendError(res, MakeError(503, sub.message, "server_error", "unavailable"));
  }
  if (sub.result != SubmitResult::kAccepted) {
    return SendError(res, MakeError(400, sub.message, "invalid_request_error", "invalid_value", prompt_param));
  }
  ResponseInfo info{NewId(endpoint == Endpoint::kChatCompletions ? "chatcmpl-" : "cmpl-"),
                    static_cast<int64_t>(std::time(nullptr)), model.id};
  if (cr.stream) return Stream(res, sub.channel, endpoint, std::move(info), cr.include_usage, logprobs);

  std::string text;
  std::vector<TokenLogprob> all_logprobs;
  for (;;) {
    for (Event& e : sub.channel->Wait(std::chrono::milliseconds(1000))) {
      text += e.text;
      for (TokenLogprob& t : e.logprobs) all_logprobs.push_back(std::move(t));
      if (!e.done) continue;
      if (e.finish == FinishReason::kDisplaced) {
        res.set_header("Retry-After", "1");
        return SendError(res, MakeError(429, e.error, "rate_limit_error", "server_busy"));
      }
      if (e.finish == FinishReason::kError) {
        return SendError(res, MakeError(500, e.error, "server_error", "generation_failed"));
      }
      res.set_content(CompletionBody(endpoint, info, text, logprobs ? &all_logprobs : nullptr, e.finish,
                                     {e.n_prompt, e.n_generated}),
                      kJson);
      return;
    }
  }
}

void HttpServer::Impl::Stream(httplib::Response& res, std::shared_ptr<RequestChannel> channel, Endpoint endpoint,
                              ResponseInfo info, bool include_usage, bool logprobs) {
  struct State {
    bool first = true;
    bool finished = false;
  };
  auto state = std::make_shared<State>();
  res.set_header("Cache-Control", "no-cache");
  res.set_header("X-Accel-Buffering", "no");  // nginx: pass events on as they come
  res.set_chunked_content_provider(
      "text/event-stream",
      [channel, endpoint, info, include_usage, logprobs, state](size_t, httplib::DataSink& sink) {
        auto send = [&](const std::string& data) {
          const std::string line = "data: " + data + "\n\n";
          return sink.write(line.data(), line.size());
        };
        const std::vector<Event> events = channel->Wait(std::chrono::milliseconds(1000));
        if (events.empty()) {
          // An SSE comment: clients ignore it, and a closed connection shows
          // up here even while the request waits in the queue.
          const std::string ping = ": waiting\n\n";
          if (!sink.write(ping.data(), ping.size())) {
            channel->Cancel();
            return false;
          }
          return true;
        }
        for (const Event& e : events) {
          if (e.done && (e.finish == FinishReason::kError || e.finish == FinishReason::kDisplaced)) {
            // The stream has begun (status 200); the error comes as an event.
            send(ErrorBody(e.finish == FinishReason::kDisplaced
                               ? MakeError(429, e.error, "rate_limit_error", "server_busy")
                               : MakeError(500, e.error, "server_error", "generation_failed")));
            send("[DONE]");
            sink.done();
            state->finished = true;
            return true;
          }
          const bool has_payload = !e.text.empty() || !e.logprobs.empty() || state->first;
          if (has_payload) {
            if (!send(ChunkBody(endpoint, info, e.text, logprobs && !e.logprobs.empty() ? &e.logprobs : nullptr,
                                FinishReason::kNone, state->first, include_usage))) {
              channel->Cancel();
              return false;
            }
            state->first = false;
          }
          if (e.done) {
            bool ok = send(ChunkBody(endpoint, info, "", nullptr, e.finish, false, include_usage));
            if (ok && include_usage) ok = send(UsageChunkBody(endpoint, info, {e.n_prompt, e.n_generated}));
            if (ok) ok = send("[DONE]");
            if (ok) sink.done();
            state->finished = true;
            return ok;
          }
        }
        return true;
      },
      [channel](bool success) {
        // The connection ended before the answer did: free the slot.
        if (!success) channel->Cancel();
      });
}

void HttpServer::Impl::Tokenize(const httplib::Request& req, httplib::Response& res) {
  if (auto e = CheckJsonObject(req.body)) return SendError(res, *e);
  const json j = json::parse(req.body);
  auto content = j.find("content");
  if (content == j.end() || !content->is_string()) {
    return SendError(res, MakeError(400, "'content' must be a string", "invalid_request_error", "invalid_value", "content"));
  }
  bool add_special = false, with_pieces = false;
  for (auto [key, out] : {std::pair<const char*, bool*>{"add_special", &add_special}, {"with_pieces", &with_pieces}}) {
    auto it = j.find(key);
    if (it == j.end() || it->is_null()) continue;
    if (!it->is_boolean()) {
      return SendError(res, MakeError(400, fmt::format("'{}' must be a boolean", key), "invalid_request_error",
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
  res.set_content(json{{"tokens", tokens}}.dump(-1, ' ', false, json::error_handler_t::replace), kJson);
}

void HttpServer::Impl::Detokenize(const httplib::Request& req, httplib::Response& res) {
  if (auto e = CheckJsonObject(req.body)) return SendError(res, *e);
  const json j = json::parse(req.body);
  auto tokens = j.find("tokens");
  if (tokens == j.end() || !tokens->is_array()) {
    return SendError(res, MakeError(400, "'tokens' must be an array of token ids", "invalid_request_error",
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
      return SendError(res, MakeError(400,
                                      fmt::format("'tokens' holds {}, not a token id of this vocabulary (0..{})",
                                                  t.dump(-1, ' ', false, json::error_handler_t::replace),
                                                  model.tokenizer->vocab().size() - 1),
                                      "invalid_request_error", "invalid_value", "tokens"));
    }
    ids.push_back(static_cast<int32_t>(id));
  }
  const std::string text = model.tokenizer->Decode(ids, {});
  res.set_content(json{{"content", text}}.dump(-1, ' ', false, json::error_handler_t::replace), kJson);
}

HttpServer::HttpServer(const ServedModel& model, Scheduler& scheduler, Metrics& metrics, HttpOptions options)
    : impl_(std::make_unique<Impl>(model, scheduler, metrics, std::move(options))) {
  impl_->Install();
}

HttpServer::~HttpServer() = default;

Status HttpServer::Bind() {
  if (impl_->options.port == 0) {
    impl_->bound_port = impl_->http.bind_to_any_port(impl_->options.host);
    if (impl_->bound_port <= 0) return Error(ErrorCode::kIo, "cannot listen on {} (any port)", impl_->options.host);
    return Status::Ok();
  }
  if (!impl_->http.bind_to_port(impl_->options.host, impl_->options.port)) {
    return Error(ErrorCode::kIo, "cannot listen on {}:{} (in use, or not an address of this machine)",
                 impl_->options.host, impl_->options.port);
  }
  impl_->bound_port = impl_->options.port;
  return Status::Ok();
}

int HttpServer::port() const { return impl_->bound_port; }

bool HttpServer::Listen() { return impl_->http.listen_after_bind(); }

void HttpServer::Stop() { impl_->http.stop(); }

}  // namespace trit::server
