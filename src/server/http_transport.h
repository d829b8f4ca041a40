// The HTTP/1.1 transport of `trit serve`: many connections on a few event
// loop threads (GNU libmicrohttpd, kept behind this interface), so that idle
// or slow clients hold no thread and cannot stall anyone else. Requests are
// handed to the handler only when complete (headers and body); answers are
// immediate, deferred (a non-streamed completion: computed elsewhere, the
// connection waits without a thread) or streamed (server-sent events).
// Limits: open connections in all and per client address (past them: 503
// with Retry-After), idle time, header and body size.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "base/status.h"

namespace trit::server {

struct HttpRequest {
  std::string method;  // "GET", "POST", ...
  std::string path;    // without the query string
  std::string body;
  std::string remote_address;  // the peer's IP address
  std::vector<std::pair<std::string, std::string>> headers;

  // The value of header `name` (case-insensitive); empty when absent.
  std::string Header(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// Calls the transport back when a deferred or streamed answer has more to
// give. Safe from any thread, at any time, also after the connection ended.
using Waker = std::function<void()>;

// A streamed body (sent with chunked encoding after a 200 and its headers).
class StreamReply {
 public:
  virtual ~StreamReply() = default;
  virtual void SetWaker(Waker waker) = 0;
  // Appends what is ready to `out` without blocking; `idle` is true when the
  // transport polls on its once-a-second tick with nothing new woken (a
  // stream may send a keep-alive comment then, which also finds clients that
  // left). Returns false when the stream is over, after its last bytes.
  virtual bool Read(std::string& out, bool idle) = 0;
  // The client went away before the end.
  virtual void Abort() = 0;
  // The stream's last bytes when the server stops first.
  virtual std::string Interrupted() = 0;
};

struct StreamStart {
  std::string content_type;
  std::vector<std::pair<std::string, std::string>> headers;
  std::shared_ptr<StreamReply> stream;
};

class DeferredReply;
using HttpReply = std::variant<HttpResponse, std::shared_ptr<DeferredReply>, StreamStart>;

// An answer that is computed elsewhere (the scheduler's thread). The transport
// polls it when woken, and once a second besides; no thread waits on it.
class DeferredReply {
 public:
  virtual ~DeferredReply() = default;
  // Called once, before the first Poll.
  virtual void SetWaker(Waker waker) = 0;
  // The answer when it is ready, nullopt until then. It may be another
  // deferred answer (a request that waited for its model to load, then for
  // its tokens) or the start of a stream.
  virtual std::optional<HttpReply> Poll() = 0;
  // The client went away, or the server is stopping, before the answer.
  virtual void Abort() = 0;
  // The answer the client gets when the server stops first.
  virtual HttpResponse Interrupted() = 0;
};

struct HttpTransportOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: any free port
  size_t max_body_bytes = size_t{4} << 20;
  // Open connections, idle ones included; past this a request gets 503 with
  // Retry-After (a few more are accepted to say so; beyond those the
  // connection is closed at once).
  int max_connections = 512;
  // Open connections from one client address; 0: no limit per address.
  int max_connections_per_address = 0;
  // A connection that sends nothing for this long (between requests, or
  // inside one) is closed.
  int idle_timeout_seconds = 15;
  // Memory for one connection's request line and headers; larger headers get 431.
  size_t max_header_bytes = 32 * 1024;
  int n_threads = 2;  // event loop threads
};

struct HttpHandlers {
  // Every complete request. Runs on an event loop thread: must not block.
  std::function<HttpReply(const HttpRequest&)> handle;
  // The response to an error the transport finds itself (413, 503 past the
  // connection limit): status and a message for the client.
  std::function<HttpResponse(int status, std::string message)> error;
  // After each response is queued (the status sent), for metrics.
  std::function<void(const HttpRequest&, int status)> log;
};

class HttpTransport {
 public:
  HttpTransport(HttpTransportOptions options, HttpHandlers handlers);
  ~HttpTransport();

  // Opens the listening socket (errors name the address and why).
  Status Bind();
  int port() const;
  // Serves until Stop(); false when the server could not start.
  bool Listen();
  // Safe from any thread (a signal-handling one included).
  void Stop();

  // Connections open now (for tests and metrics).
  int open_connections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trit::server
