// The HTTP side of `trit serve`: routes, API-key check, OpenAI error shapes
// and answers, over the event-driven transport of http_transport.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "server/api_keys.h"
#include "server/http_transport.h"
#include "server/metrics.h"
#include "server/model_pool.h"

namespace trit::server {

struct HttpOptions {
  // Address, port, body and connection limits, idle timeout, event loop threads.
  HttpTransportOptions transport;
  ApiKeys api_keys;   // none: no key needed
  bool webui = true;  // the chat page at / (webui.h)
  // /v1/embeddings may shorten vectors to a request's "dimensions" (the
  // first values, normalized again): only for models trained for it
  // (Matryoshka), which a GGUF file does not say; the operator does
  // (--truncatable-embeddings).
  bool truncatable_embeddings = false;
};

class HttpServer {
 public:
  // `models` and `metrics` must outlive the server.
  HttpServer(ModelPool& models, Metrics& metrics, HttpOptions options);
  ~HttpServer();

  // Binds the socket (errors name the address).
  Status Bind();
  int port() const;
  // Serves until Stop(); false when the server failed.
  bool Listen();
  // Safe from any thread.
  void Stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trit::server
