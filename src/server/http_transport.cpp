#include "server/http_transport.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace trit::server {

namespace {

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::string AddressText(const sockaddr* addr) {
  char text[INET6_ADDRSTRLEN] = "";
  if (addr == nullptr) return "unknown";
  if (addr->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(addr)->sin_addr, text, sizeof text);
  } else if (addr->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr, text, sizeof text);
  } else {
    return "unknown";
  }
  return text;
}

// One request, from its headers to the end of its answer. Shared by the
// event loop thread that owns the connection, the wakers (called from the
// scheduler's thread) and the once-a-second ticker.
//
// Suspension: while an answer waits for the scheduler, the connection is
// suspended (out of the event loop, no thread, no timeout). A wake resumes it
// if it is suspended, or else leaves `woken` set so the event loop thread
// polls once more instead of suspending: no wake is lost in between.
struct Exchange {
  std::mutex mutex;
  MHD_Connection* connection = nullptr;
  bool suspended = false;  // guarded by mutex
  bool woken = false;      // guarded by mutex
  bool ticked = false;     // guarded by mutex: resumed by the ticker, not a wake
  bool closed = false;     // guarded by mutex: MHD is done with the connection

  // The rest is touched only by the connection's event loop thread.
  HttpRequest request;
  bool too_large = false;
  bool started = false;
  bool responded = false;
  std::shared_ptr<DeferredReply> deferred;
  std::shared_ptr<StreamReply> stream;
  std::string pending;  // stream bytes not yet handed to MHD
  bool stream_over = false;
};

void Wake(const std::shared_ptr<Exchange>& ex) {
  std::lock_guard<std::mutex> lock(ex->mutex);
  if (ex->closed) return;
  if (ex->suspended) {
    ex->suspended = false;
    MHD_resume_connection(ex->connection);
  } else {
    ex->woken = true;
  }
}

Waker MakeWaker(const std::shared_ptr<Exchange>& ex) {
  return [weak = std::weak_ptr<Exchange>(ex)] {
    if (std::shared_ptr<Exchange> ex = weak.lock()) Wake(ex);
  };
}

}  // namespace

std::string HttpRequest::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (EqualsIgnoringCase(key, name)) return value;
  }
  return {};
}

struct HttpTransport::Impl {
  HttpTransportOptions options;
  HttpHandlers handlers;
  int listen_fd = -1;
  int bound_port = 0;
  MHD_Daemon* daemon = nullptr;

  std::mutex stop_mutex;
  std::condition_variable stop_cv;
  bool stop_requested = false;
  std::atomic<bool> stopping{false};

  // Open connections, in all and per address (MHD's connection notifications).
  mutable std::mutex connections_mutex;
  int n_connections = 0;
  std::map<std::string, int> per_address;

  // Requests in progress, for the ticker and the shutdown.
  std::mutex exchanges_mutex;
  std::set<std::shared_ptr<Exchange>> exchanges;

  Impl(HttpTransportOptions o, HttpHandlers h) : options(std::move(o)), handlers(std::move(h)) {}

  // True when the event loop thread may stop polling: the connection is now
  // suspended until a wake. False: poll again (a wake came, or the server stops).
  bool TrySuspend(Exchange& ex) {
    std::lock_guard<std::mutex> lock(ex.mutex);
    if (ex.woken || stopping.load()) {
      ex.woken = false;
      return false;
    }
    ex.suspended = true;
    MHD_suspend_connection(ex.connection);
    return true;
  }

  MHD_Result Queue(Exchange& ex, const HttpResponse& r) {
    MHD_Response* response =
        MHD_create_response_from_buffer(r.body.size(), const_cast<char*>(r.body.data()), MHD_RESPMEM_MUST_COPY);
    if (response == nullptr) return MHD_NO;
    if (!r.content_type.empty()) MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, r.content_type.c_str());
    for (const auto& [key, value] : r.headers) MHD_add_response_header(response, key.c_str(), value.c_str());
    const MHD_Result result = MHD_queue_response(ex.connection, static_cast<unsigned>(r.status), response);
    MHD_destroy_response(response);
    ex.responded = true;
    if (handlers.log) handlers.log(ex.request, r.status);
    return result;
  }

  MHD_Result StartStream(const std::shared_ptr<Exchange>& holder, StreamStart start) {
    Exchange& ex = *holder;
    ex.stream = std::move(start.stream);
    ex.stream->SetWaker(MakeWaker(holder));
    // The reader's context keeps the exchange alive until MHD frees the response.
    auto* context = new std::pair<Impl*, std::shared_ptr<Exchange>>(this, holder);
    MHD_Response* response = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16 * 1024, &Impl::OnRead, context,
                                                               &Impl::OnReadDone);
    if (response == nullptr) {
      delete context;
      return MHD_NO;
    }
    MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, start.content_type.c_str());
    for (const auto& [key, value] : start.headers) MHD_add_response_header(response, key.c_str(), value.c_str());
    const MHD_Result result = MHD_queue_response(ex.connection, MHD_HTTP_OK, response);
    MHD_destroy_response(response);
    ex.responded = true;
    if (handlers.log) handlers.log(ex.request, 200);
    return result;
  }

  // Polls a deferred answer; suspends the connection while it is not ready.
  MHD_Result PollDeferred(const std::shared_ptr<Exchange>& holder) {
    Exchange& ex = *holder;
    for (;;) {
      if (stopping.load()) {
        ex.deferred->Abort();
        return Queue(ex, ex.deferred->Interrupted());
      }
      if (std::optional<HttpReply> r = ex.deferred->Poll()) {
        ex.deferred = nullptr;
        if (MHD_Result done; Begin(holder, std::move(*r), &done)) return done;
        continue;  // another deferred answer: poll it in turn
      }
      if (TrySuspend(ex)) return MHD_YES;
    }
  }

  // Answers with `reply` (true, *result set), or makes it the exchange's
  // deferred answer (false: the caller polls it).
  bool Begin(const std::shared_ptr<Exchange>& holder, HttpReply reply, MHD_Result* result) {
    if (auto* response = std::get_if<HttpResponse>(&reply)) {
      *result = Queue(*holder, *response);
      return true;
    }
    if (auto* stream = std::get_if<StreamStart>(&reply)) {
      *result = StartStream(holder, std::move(*stream));
      return true;
    }
    holder->deferred = std::get<std::shared_ptr<DeferredReply>>(std::move(reply));
    holder->deferred->SetWaker(MakeWaker(holder));
    return false;
  }

  bool OverLimit(const std::string& address) const {
    std::lock_guard<std::mutex> lock(connections_mutex);
    if (n_connections > options.max_connections) return true;
    if (options.max_connections_per_address <= 0) return false;
    auto it = per_address.find(address);
    return it != per_address.end() && it->second > options.max_connections_per_address;
  }

  HttpResponse TooLarge() {
    return handlers.error(413, fmt::format("the request body is larger than the {} bytes this server accepts",
                                           options.max_body_bytes));
  }

  HttpResponse Busy(std::string message) {
    HttpResponse r = handlers.error(503, std::move(message));
    r.headers.emplace_back("Retry-After", "1");
    r.headers.emplace_back("Connection", "close");
    return r;
  }

  static MHD_Result CollectHeader(void* cls, MHD_ValueKind, const char* key, const char* value) {
    static_cast<HttpRequest*>(cls)->headers.emplace_back(key, value != nullptr ? value : "");
    return MHD_YES;
  }

  static MHD_Result OnAccess(void* cls, MHD_Connection* connection, const char* url, const char* method,
                             const char* /*version*/, const char* upload_data, size_t* upload_data_size,
                             void** con_cls) {
    Impl& self = *static_cast<Impl*>(cls);
    auto* holder = static_cast<std::shared_ptr<Exchange>*>(*con_cls);
    if (holder == nullptr) {
      // The headers are in: set the request up; the body (if any) follows.
      auto ex = std::make_shared<Exchange>();
      ex->connection = connection;
      ex->request.method = method;
      ex->request.path = url;
      MHD_get_connection_values(connection, MHD_HEADER_KIND, &Impl::CollectHeader, &ex->request);
      const MHD_ConnectionInfo* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
      ex->request.remote_address = AddressText(info != nullptr ? info->client_addr : nullptr);
      const std::string length = ex->request.Header("Content-Length");
      uint64_t declared = 0;
      if (!length.empty() &&
          std::from_chars(length.data(), length.data() + length.size(), declared).ec == std::errc() &&
          declared > self.options.max_body_bytes) {
        ex->too_large = true;
      }
      {
        std::lock_guard<std::mutex> lock(self.exchanges_mutex);
        self.exchanges.insert(ex);
      }
      *con_cls = new std::shared_ptr<Exchange>(ex);
      if (self.OverLimit(ex->request.remote_address)) {
        return self.Queue(*ex, self.Busy(fmt::format("the server has {} connections open, its limit; try again shortly",
                                                     self.options.max_connections)));
      }
      if (ex->too_large) {
        // Said before the body is read (the connection is then closed).
        ex->started = true;
        return self.Queue(*ex, self.TooLarge());
      }
      return MHD_YES;
    }
    Exchange& ex = **holder;
    if (*upload_data_size != 0) {
      if (!ex.too_large && !ex.responded) {
        if (ex.request.body.size() + *upload_data_size > self.options.max_body_bytes) {
          ex.too_large = true;
          ex.request.body.clear();
          ex.request.body.shrink_to_fit();
        } else {
          ex.request.body.append(upload_data, *upload_data_size);
        }
      }
      *upload_data_size = 0;
      return MHD_YES;
    }
    if (ex.responded) return MHD_YES;
    if (!ex.started) {
      ex.started = true;
      if (ex.too_large) {
        return self.Queue(ex, self.TooLarge());
      }
      HttpReply reply;
      try {
        reply = self.handlers.handle(ex.request);
      } catch (const std::exception& e) {
        reply = self.handlers.error(500, std::string("internal error: ") + e.what());
      }
      if (MHD_Result done; self.Begin(*holder, std::move(reply), &done)) return done;
    }
    if (ex.deferred) return self.PollDeferred(*holder);
    return MHD_YES;
  }

  static ssize_t OnRead(void* cls, uint64_t /*pos*/, char* buf, size_t max) {
    auto& [self, holder] = *static_cast<std::pair<Impl*, std::shared_ptr<Exchange>>*>(cls);
    Exchange& ex = *holder;
    for (;;) {
      if (!ex.pending.empty()) {
        const size_t n = std::min(max, ex.pending.size());
        std::memcpy(buf, ex.pending.data(), n);
        ex.pending.erase(0, n);
        return static_cast<ssize_t>(n);
      }
      if (ex.stream_over) return MHD_CONTENT_READER_END_OF_STREAM;
      if (self->stopping.load()) {
        ex.stream->Abort();
        ex.pending = ex.stream->Interrupted();
        ex.stream_over = true;
        continue;
      }
      bool idle = false;
      {
        std::lock_guard<std::mutex> lock(ex.mutex);
        idle = ex.ticked;
        ex.ticked = false;
      }
      if (!ex.stream->Read(ex.pending, idle)) ex.stream_over = true;
      if (!ex.pending.empty() || ex.stream_over) continue;
      // Nothing to send: wait out of the event loop until a wake or a tick.
      if (self->TrySuspend(ex)) return 0;
    }
  }

  static void OnReadDone(void* cls) { delete static_cast<std::pair<Impl*, std::shared_ptr<Exchange>>*>(cls); }

  static void OnCompleted(void* cls, MHD_Connection*, void** con_cls, MHD_RequestTerminationCode code) {
    Impl& self = *static_cast<Impl*>(cls);
    auto* holder = static_cast<std::shared_ptr<Exchange>*>(*con_cls);
    if (holder == nullptr) return;
    std::shared_ptr<Exchange> ex = *holder;
    delete holder;
    *con_cls = nullptr;
    {
      std::lock_guard<std::mutex> lock(ex->mutex);
      ex->closed = true;
    }
    if (code != MHD_REQUEST_TERMINATED_COMPLETED_OK) {
      // The client left (or timed out) before the end: free its slot.
      if (ex->deferred && ex->started) ex->deferred->Abort();
      if (ex->stream && !ex->stream_over) ex->stream->Abort();
    }
    std::lock_guard<std::mutex> lock(self.exchanges_mutex);
    self.exchanges.erase(ex);
  }

  static void OnConnection(void* cls, MHD_Connection* connection, void** socket_context,
                           MHD_ConnectionNotificationCode code) {
    Impl& self = *static_cast<Impl*>(cls);
    std::lock_guard<std::mutex> lock(self.connections_mutex);
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
      const MHD_ConnectionInfo* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
      auto* address = new std::string(AddressText(info != nullptr ? info->client_addr : nullptr));
      *socket_context = address;
      ++self.n_connections;
      ++self.per_address[*address];
    } else if (auto* address = static_cast<std::string*>(*socket_context)) {
      --self.n_connections;
      if (--self.per_address[*address] <= 0) self.per_address.erase(*address);
      delete address;
      *socket_context = nullptr;
    }
  }

  // Once a second, resumes the suspended streams so that they can send a
  // keep-alive comment (a client that left is found when it fails).
  void Tick() {
    std::vector<std::shared_ptr<Exchange>> all;
    {
      std::lock_guard<std::mutex> lock(exchanges_mutex);
      all.assign(exchanges.begin(), exchanges.end());
    }
    for (const std::shared_ptr<Exchange>& ex : all) {
      std::lock_guard<std::mutex> lock(ex->mutex);
      if (ex->closed || !ex->suspended || ex->stream == nullptr) continue;
      ex->suspended = false;
      ex->ticked = true;
      MHD_resume_connection(ex->connection);
    }
  }

  // Resumes every suspended connection: with `stopping` set, each ends its
  // answer with Interrupted() instead of waiting.
  void ResumeAll() {
    std::vector<std::shared_ptr<Exchange>> all;
    {
      std::lock_guard<std::mutex> lock(exchanges_mutex);
      all.assign(exchanges.begin(), exchanges.end());
    }
    for (const std::shared_ptr<Exchange>& ex : all) Wake(ex);
  }

  size_t n_exchanges() {
    std::lock_guard<std::mutex> lock(exchanges_mutex);
    return exchanges.size();
  }
};

HttpTransport::HttpTransport(HttpTransportOptions options, HttpHandlers handlers)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(handlers))) {}

HttpTransport::~HttpTransport() {
  if (impl_->daemon != nullptr) MHD_stop_daemon(impl_->daemon);
  if (impl_->listen_fd >= 0) close(impl_->listen_fd);
}

Status HttpTransport::Bind() {
  const HttpTransportOptions& o = impl_->options;
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string port_text = std::to_string(o.port);
  if (int rc = getaddrinfo(o.host.c_str(), port_text.c_str(), &hints, &found); rc != 0) {
    return Error(ErrorCode::kIo, "cannot listen on {}:{}: {}", o.host, o.port, gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> addresses(found, &freeaddrinfo);
  const int fd = socket(found->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return Error(ErrorCode::kIo, "cannot listen on {}:{}: {}", o.host, o.port, std::strerror(errno));
  const int on = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  if (bind(fd, found->ai_addr, found->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
    const int err = errno;
    close(fd);
    return Error(ErrorCode::kIo, "cannot listen on {}:{}: {}{}", o.host, o.port, std::strerror(err),
                 err == EADDRINUSE ? " (another server has the port; choose one with --port)" : "");
  }
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
  impl_->bound_port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                                        : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  impl_->listen_fd = fd;
  return Status::Ok();
}

int HttpTransport::port() const { return impl_->bound_port; }

int HttpTransport::open_connections() const {
  std::lock_guard<std::mutex> lock(impl_->connections_mutex);
  return impl_->n_connections;
}

bool HttpTransport::Listen() {
  Impl& s = *impl_;
  if (s.listen_fd < 0) return false;
  // A few connections past the limit are accepted to be told 503; beyond
  // those, MHD closes new ones at once.
  const int hard_limit = s.options.max_connections + std::max(16, s.options.max_connections / 8);
  const unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
  s.daemon = MHD_start_daemon(
      flags, 0, nullptr, nullptr, &Impl::OnAccess, &s,                                        //
      MHD_OPTION_LISTEN_SOCKET, s.listen_fd,                                                  //
      MHD_OPTION_NOTIFY_COMPLETED, &Impl::OnCompleted, &s,                                    //
      MHD_OPTION_NOTIFY_CONNECTION, &Impl::OnConnection, &s,                                  //
      MHD_OPTION_CONNECTION_LIMIT, static_cast<unsigned>(hard_limit),                         //
      MHD_OPTION_CONNECTION_TIMEOUT, static_cast<unsigned>(s.options.idle_timeout_seconds),  //
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, s.options.max_header_bytes,                         //
      MHD_OPTION_THREAD_POOL_SIZE, static_cast<unsigned>(std::max(1, s.options.n_threads)),   //
      MHD_OPTION_END);
  if (s.daemon == nullptr) return false;
  std::thread ticker([&s] {
    std::unique_lock<std::mutex> lock(s.stop_mutex);
    while (!s.stop_requested) {
      if (s.stop_cv.wait_for(lock, std::chrono::seconds(1), [&s] { return s.stop_requested; })) break;
      lock.unlock();
      s.Tick();
      lock.lock();
    }
  });
  {
    std::unique_lock<std::mutex> lock(s.stop_mutex);
    s.stop_cv.wait(lock, [&s] { return s.stop_requested; });
  }
  ticker.join();
  // No new connections; the answers in progress end with Interrupted().
  const MHD_socket quiesced = MHD_quiesce_daemon(s.daemon);
  s.stopping.store(true);
  s.ResumeAll();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (s.n_exchanges() > 0 && std::chrono::steady_clock::now() < deadline) {
    s.ResumeAll();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  MHD_stop_daemon(s.daemon);
  s.daemon = nullptr;
  if (quiesced != MHD_INVALID_SOCKET) close(quiesced);
  s.listen_fd = -1;
  return true;
}

void HttpTransport::Stop() {
  {
    std::lock_guard<std::mutex> lock(impl_->stop_mutex);
    impl_->stop_requested = true;
  }
  impl_->stop_cv.notify_all();
}

}  // namespace trit::server
