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

// With tools offered, reads the calls out of a finished answer: the choice
// keeps the text around them (trimmed, calls or not, so that a stream can
// send it as it comes: StreamableContent), gets the calls with fresh ids,
// and finishes with "tool_calls". `*next_id` counts the ids drawn.
void ReadToolCalls(const ToolReplyOptions& tools, uint64_t* next_id, Choice* choice) {
  if (choice->finish != FinishReason::kStop && choice->finish != FinishReason::kLength) return;
  ToolReply reply = ParseToolReply(choice->text, tools.format, tools.functions);
  choice->text = std::move(reply.content);
  if (reply.calls.empty()) return;
  for (ToolCall& call : reply.calls) {
    // SplitMix64 of the seed and a counter: distinct ids within a server's life.
    uint64_t z = tools.id_seed + 0x9e3779b97f4a7c15ULL * ++*next_id;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    choice->tool_calls.push_back({ToolCallId(z ^ (z >> 31)), std::move(call)});
  }
  choice->finish = FinishReason::kToolCalls;
}

// A choice's last event into the request's usage: the prompt is the same
// for every choice; cached tokens are choice 0's (the others copy them).
void AddUsage(const Event& e, size_t choice, Usage* usage) {
  usage->prompt_tokens = e.n_prompt;
  usage->completion_tokens += e.n_generated;
  if (choice == 0) usage->cached_tokens = e.n_cached;
}

// Cancels every channel: the client left, or one choice failed and the
// others are of no use.
void CancelAll(const std::vector<std::shared_ptr<RequestChannel>>& channels) {
  for (const auto& c : channels) c->Cancel();
}

class CompletionReply final : public DeferredReply {
 public:
  CompletionReply(std::vector<std::shared_ptr<RequestChannel>> channels, CompletionReplyOptions options)
      : channels_(std::move(channels)), options_(std::move(options)), choices_(channels_.size()),
        logprobs_(channels_.size()) {
    for (Choice& c : choices_) c.text = options_.echo;
  }

  void SetWaker(Waker waker) override {
    for (const auto& c : channels_) c->SetNotify(waker);
  }

  std::optional<HttpReply> Poll() override {
    for (size_t i = 0; i < channels_.size(); ++i) {
      for (Event& e : channels_[i]->TryTake()) {
        choices_[i].text += e.text;
        for (TokenLogprob& t : e.logprobs) logprobs_[i].push_back(std::move(t));
        if (!e.done) continue;
        if (e.finish == FinishReason::kDisplaced || e.finish == FinishReason::kError) {
          CancelAll(channels_);
          HttpResponse r = ErrorResponse(e.finish == FinishReason::kDisplaced ? Busy(e.error) : Failed(e.error));
          if (e.finish == FinishReason::kDisplaced) r.headers.emplace_back("Retry-After", "1");
          return r;
        }
        choices_[i].finish = e.finish;
        AddUsage(e, i, &usage_);
        ++n_done_;
      }
    }
    if (n_done_ < channels_.size()) return std::nullopt;
    if (options_.tools.has_value()) {
      uint64_t next_id = 0;
      for (Choice& c : choices_) ReadToolCalls(*options_.tools, &next_id, &c);
    }
    if (options_.logprobs) {
      for (size_t i = 0; i < choices_.size(); ++i) choices_[i].logprobs = &logprobs_[i];
    }
    return HttpResponse{.status = 200,
                        .content_type = kJson,
                        .body = CompletionBody(options_.endpoint, options_.info, choices_, usage_),
                        .headers = {}};
  }

  void Abort() override { CancelAll(channels_); }
  HttpResponse Interrupted() override { return ErrorResponse(kStopping); }

 private:
  std::vector<std::shared_ptr<RequestChannel>> channels_;
  CompletionReplyOptions options_;
  std::vector<Choice> choices_;
  std::vector<std::vector<TokenLogprob>> logprobs_;
  Usage usage_;
  size_t n_done_ = 0;
};

// Each choice streams its own chunks (with its index) as its tokens come;
// the usage chunk and [DONE] follow the last choice's end.
class CompletionStream final : public StreamReply {
 public:
  CompletionStream(std::vector<std::shared_ptr<RequestChannel>> channels, CompletionReplyOptions options)
      : channels_(std::move(channels)), options_(std::move(options)), first_(channels_.size(), true),
        held_(channels_.size()), held_logprobs_(channels_.size()), sent_(channels_.size(), 0) {}

  void SetWaker(Waker waker) override {
    for (const auto& c : channels_) c->SetNotify(waker);
  }

  bool Read(std::string& out, bool idle) override {
    bool any = false;
    for (size_t i = 0; i < channels_.size(); ++i) {
      const std::vector<Event> events = channels_[i]->TryTake();
      any |= !events.empty();
      for (const Event& e : events) {
        if (e.done && (e.finish == FinishReason::kError || e.finish == FinishReason::kDisplaced)) {
          // The stream has begun (status 200); the error comes as an event.
          CancelAll(channels_);
          Send(out, ErrorBody(e.finish == FinishReason::kDisplaced ? Busy(e.error) : Failed(e.error)));
          Send(out, "[DONE]");
          return false;
        }
        const int index = static_cast<int>(i);
        if (options_.tools.has_value()) {
          // Text that cannot be part of a call streams as it comes; the rest
          // is held until the answer is whole and read for calls.
          Choice& held = held_[i];
          held.text += e.text;
          for (const TokenLogprob& t : e.logprobs) held_logprobs_[i].push_back(t);
          std::string_view content = StreamableContent(held.text, options_.tools->format);
          if (e.done) {
            held.finish = e.finish;
            ReadToolCalls(*options_.tools, &next_tool_id_, &held);
            content = held.text;
          }
          // What was sent is a prefix of what may be sent now (StreamableContent's promise).
          const std::string delta = content.size() > sent_[i] ? std::string(content.substr(sent_[i])) : "";
          if (!delta.empty() || first_[i] || (e.done && !held_logprobs_[i].empty())) {
            const bool with_logprobs = options_.logprobs && !held_logprobs_[i].empty();
            Send(out, ChunkBody(options_.endpoint, options_.info, index, delta,
                                with_logprobs ? &held_logprobs_[i] : nullptr, FinishReason::kNone, first_[i],
                                options_.include_usage));
            held_logprobs_[i].clear();
            first_[i] = false;
            sent_[i] += delta.size();
          }
          if (!e.done) continue;
          if (!held.tool_calls.empty()) {
            Send(out, ToolCallsChunkBody(options_.info, index, held.tool_calls, options_.include_usage));
          }
          Send(out, ChunkBody(options_.endpoint, options_.info, index, "", nullptr, held_[i].finish, false,
                              options_.include_usage));
          AddUsage(e, i, &usage_);
          ++n_done_;
          continue;
        }
        const bool has_payload = !e.text.empty() || !e.logprobs.empty() || first_[i];
        if (has_payload) {
          const bool with_logprobs = options_.logprobs && !e.logprobs.empty();
          Send(out, ChunkBody(options_.endpoint, options_.info, index, first_[i] ? options_.echo + e.text : e.text,
                              with_logprobs ? &e.logprobs : nullptr, FinishReason::kNone, first_[i],
                              options_.include_usage));
          first_[i] = false;
        }
        if (e.done) {
          Send(out, ChunkBody(options_.endpoint, options_.info, index, "", nullptr, e.finish, false,
                              options_.include_usage));
          AddUsage(e, i, &usage_);
          ++n_done_;
        }
      }
    }
    if (n_done_ == channels_.size()) {
      if (options_.include_usage) Send(out, UsageChunkBody(options_.endpoint, options_.info, usage_));
      Send(out, "[DONE]");
      return false;
    }
    // An SSE comment: clients ignore it, and writing it finds a closed
    // connection even while the request waits in the queue.
    if (!any && idle) out += ": waiting\n\n";
    return true;
  }

  void Abort() override { CancelAll(channels_); }

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

  std::vector<std::shared_ptr<RequestChannel>> channels_;
  CompletionReplyOptions options_;
  std::vector<bool> first_;
  std::vector<Choice> held_;  // with tools: each answer until it ends
  std::vector<std::vector<TokenLogprob>> held_logprobs_;  // not yet sent
  std::vector<size_t> sent_;  // bytes of each choice's content streamed
  uint64_t next_tool_id_ = 0;
  Usage usage_;
  size_t n_done_ = 0;
};

}  // namespace

std::shared_ptr<DeferredReply> MakeCompletionReply(std::vector<std::shared_ptr<RequestChannel>> channels,
                                                   CompletionReplyOptions options) {
  return std::make_shared<CompletionReply>(std::move(channels), std::move(options));
}

StreamStart MakeCompletionStream(std::vector<std::shared_ptr<RequestChannel>> channels,
                                 CompletionReplyOptions options) {
  return {.content_type = "text/event-stream",
          .headers = {{"Cache-Control", "no-cache"},
                      {"X-Accel-Buffering", "no"}},  // nginx: pass events on as they come
          .stream = std::make_shared<CompletionStream>(std::move(channels), std::move(options))};
}

HttpResponse ErrorResponse(const ApiError& error) {
  return {.status = error.status, .content_type = kJson, .body = ErrorBody(error), .headers = {}};
}

}  // namespace trit::server
