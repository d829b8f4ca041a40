// The HTTP side of `trit serve`: routes, API-key check, OpenAI error shapes
// and answers, over the event-driven transport of http_transport.h.
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
  int max_connections = 512;                // open connections; past them 503 (http_transport.h)
  int max_connections_per_address = 0;      // 0: no limit per client address
  int idle_timeout_seconds = 15;            // a connection silent this long is closed
  int n_io_threads = 2;                     // event loop threads (not per connection)
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
