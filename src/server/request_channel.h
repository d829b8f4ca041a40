// What a generation request produces, and the channel that carries it from
// the scheduler's thread to the HTTP thread that answers the client.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "grammar/gbnf.h"
#include "runtime/sampler.h"

namespace trit::server {

struct GenerationParams {
  runtime::SamplerOptions sampling;
  int64_t max_tokens = -1;  // < 0: until the context is full
  std::vector<std::string> stop;
  bool ignore_eos = false;    // keep going past end-of-generation tokens (benchmarks)
  // false: no speculative decoding for this request where the server drafts
  // ("speculative": false). The answer is the same either way; this only
  // spares the drafting work (for answers known not to repeat anything).
  bool speculative = true;
  int32_t top_logprobs = -1;  // < 0: no logprobs; otherwise 0..20 alternatives per token
  // Added to a token's logit before sampling (OpenAI's logit_bias: -100..100).
  std::vector<std::pair<int32_t, float>> logit_bias;
  // When set, each token is sampled among those the grammar allows next, and
  // the answer ends (finish "stop") when the grammar allows nothing more.
  std::shared_ptr<const grammar::Grammar> grammar;
};

struct TokenLogprob {
  std::string token;  // the token's text
  float logprob = 0.0f;
  std::vector<std::pair<std::string, float>> top;  // most likely alternatives, best first
};

// kDisplaced: taken out of the queue, before it started, for another
// client's request (Scheduler::Submit's fairness rule); the client may retry.
// kToolCalls: the reply (completion_reply.cpp) found tool calls in a
// finished answer; the scheduler never sets it.
enum class FinishReason { kNone, kStop, kLength, kCancelled, kError, kDisplaced, kToolCalls };

// One piece of an answer. The last event of a request has done = true.
struct Event {
  std::string text;                    // new text (stop strings held back until resolved)
  std::vector<TokenLogprob> logprobs;  // tokens generated since the last event
  bool done = false;
  FinishReason finish = FinishReason::kNone;
  int64_t n_prompt = 0;     // set on the last event
  int64_t n_generated = 0;  // set on the last event
  int64_t n_cached = 0;     // set on the last event: prompt tokens taken from a cache
  std::string error;        // kError: what went wrong
};

// Single producer (the scheduler), single consumer (the HTTP side: a thread
// that waits, or an event loop that takes what is there when notified).
class RequestChannel {
 public:
  void Push(Event event) {
    std::function<void()> notify;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      events_.push_back(std::move(event));
      notify = notify_;
    }
    ready_.notify_one();
    // Outside the lock: the callback may take the consumer's locks, which are
    // held while calling TryTake.
    if (notify) notify();
  }
  // Called after every Push from then on (on the scheduler's thread), and
  // once now if events are already waiting.
  void SetNotify(std::function<void()> notify) {
    bool waiting = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      notify_ = notify;
      waiting = !events_.empty();
    }
    if (waiting && notify) notify();
  }
  // Everything pushed since the last call, without waiting.
  std::vector<Event> TryTake() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<Event> out(std::make_move_iterator(events_.begin()), std::make_move_iterator(events_.end()));
    events_.clear();
    return out;
  }
  // Everything pushed since the last call, waiting up to `timeout` for at
  // least one event.
  std::vector<Event> Wait(std::chrono::milliseconds timeout) {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait_for(lock, timeout, [&] { return !events_.empty(); });
    std::vector<Event> out(std::make_move_iterator(events_.begin()), std::make_move_iterator(events_.end()));
    events_.clear();
    return out;
  }
  // The client is gone: the scheduler frees the request's slot at its next step.
  void Cancel() { cancelled_.store(true); }
  bool cancelled() const { return cancelled_.load(); }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<Event> events_;
  std::function<void()> notify_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace trit::server
