#include "server/completion_reply.h"

#include <utility>
#include <vector>

namespace trit::server {

namespace {

constexpr const char* kJson = "application/json";

ApiError Busy(std::string message) {
  return {.status = 429, .message = std::move(message), .type = "rate_limit_error", .param = "", .code = "server_busy"};
}

ApiError Failed(std::string message) {
  return {.status = 500, .message = std::move(message), .type = "server_error", .param = "", .code = "generation_failed"};
}

const ApiError kStopping{.status = 503,
                         .message = "the server is stopping; the request was not finished",
                         .type = "server_error",
                         .param = "",
                         .code = "unavailable"};

class CompletionReply final : public DeferredReply {
 public:
  CompletionReply(std::shared_ptr<RequestChannel> channel, CompletionReplyOptions options)
      : channel_(std::move(channel)), options_(std::move(options)) {}

  void SetWaker(Waker waker) override { channel_->SetNotify(std::move(waker)); }

  std::optional<HttpResponse> Poll() override {
    for (Event& e : channel_->TryTake()) {
      text_ += e.text;
      for (TokenLogprob& t : e.logprobs) logprobs_.push_back(std::move(t));
      if (!e.done) continue;
      if (e.finish == FinishReason::kDisplaced) {
        HttpResponse r = ErrorResponse(Busy(e.error));
        r.headers.emplace_back("Retry-After", "1");
        return r;
      }
      if (e.finish == FinishReason::kError) return ErrorResponse(Failed(e.error));
      return HttpResponse{.status = 200,
                          .content_type = kJson,
                          .body = CompletionBody(options_.endpoint, options_.info, text_,
                                                 options_.logprobs ? &logprobs_ : nullptr, e.finish,
                                                 {e.n_prompt, e.n_generated}),
                          .headers = {}};
    }
    return std::nullopt;
  }

  void Abort() override { channel_->Cancel(); }
  HttpResponse Interrupted() override { return ErrorResponse(kStopping); }

 private:
  std::shared_ptr<RequestChannel> channel_;
  CompletionReplyOptions options_;
  std::string text_;
  std::vector<TokenLogprob> logprobs_;
};

class CompletionStream final : public StreamReply {
 public:
  CompletionStream(std::shared_ptr<RequestChannel> channel, CompletionReplyOptions options)
      : channel_(std::move(channel)), options_(std::move(options)) {}

  void SetWaker(Waker waker) override { channel_->SetNotify(std::move(waker)); }

  bool Read(std::string& out, bool idle) override {
    const std::vector<Event> events = channel_->TryTake();
    if (events.empty()) {
      // An SSE comment: clients ignore it, and writing it finds a closed
      // connection even while the request waits in the queue.
      if (idle) out += ": waiting\n\n";
      return true;
    }
    for (const Event& e : events) {
      if (e.done && (e.finish == FinishReason::kError || e.finish == FinishReason::kDisplaced)) {
        // The stream has begun (status 200); the error comes as an event.
        Send(out, ErrorBody(e.finish == FinishReason::kDisplaced ? Busy(e.error) : Failed(e.error)));
        Send(out, "[DONE]");
        return false;
      }
      const bool has_payload = !e.text.empty() || !e.logprobs.empty() || first_;
      if (has_payload) {
        const bool with_logprobs = options_.logprobs && !e.logprobs.empty();
        Send(out, ChunkBody(options_.endpoint, options_.info, e.text, with_logprobs ? &e.logprobs : nullptr,
                            FinishReason::kNone, first_, options_.include_usage));
        first_ = false;
      }
      if (e.done) {
        Send(out, ChunkBody(options_.endpoint, options_.info, "", nullptr, e.finish, false, options_.include_usage));
        if (options_.include_usage) {
          Send(out, UsageChunkBody(options_.endpoint, options_.info, {e.n_prompt, e.n_generated}));
        }
        Send(out, "[DONE]");
        return false;
      }
    }
    return true;
  }

  void Abort() override { channel_->Cancel(); }

  std::string Interrupted() override {
    std::string out;
    Send(out, ErrorBody(kStopping));
    Send(out, "[DONE]");
    return out;
  }

 private:
  static void Send(std::string& out, const std::string& data) {
    out += "data: ";
    out += data;
    out += "\n\n";
  }

  std::shared_ptr<RequestChannel> channel_;
  CompletionReplyOptions options_;
  bool first_ = true;
};

}  // namespace

std::shared_ptr<DeferredReply> MakeCompletionReply(std::shared_ptr<RequestChannel> channel,
                                                   CompletionReplyOptions options) {
  return std::make_shared<CompletionReply>(std::move(channel), std::move(options));
}

StreamStart MakeCompletionStream(std::shared_ptr<RequestChannel> channel, CompletionReplyOptions options) {
  return {.content_type = "text/event-stream",
          .headers = {{"Cache-Control", "no-cache"},
                      {"X-Accel-Buffering", "no"}},  // nginx: pass events on as they come
          .stream = std::make_shared<CompletionStream>(std::move(channel), std::move(options))};
}

HttpResponse ErrorResponse(const ApiError& error) {
  return {.status = error.status, .content_type = kJson, .body = ErrorBody(error), .headers = {}};
}

}  // namespace trit::server
