// The HTTP side of `trit serve` (cpp-httplib, kept behind this interface):
// routes, API-key check, body limit, OpenAI error shapes, server-sent events.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/status.h"
#include "server/api_keys.h"
#include "server/metrics.h"
#include "server/scheduler.h"
#include "server/served_model.h"

namespace trit::server {

struct HttpOptions {
  std::string host = "127.0.0.1";
  int port = 8080;                          // 0: any free port (port() says which)
  ApiKeys api_keys;                         // none: no key needed
  size_t max_body_bytes = size_t{4} << 20;  // larger bodies get 413
  int n_http_threads = 32;                  // connections served at once
  bool webui = true;                        // the chat page at / (webui.h)
};

class HttpServer {
 public:
  // `model`, `scheduler` and `metrics` must outlive the server.
  HttpServer(const ServedModel& model, Scheduler& scheduler, Metrics& metrics, HttpOptions options);
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
