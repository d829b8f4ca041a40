// The continuous-batching scheduler: N slots over ONE runtime::Session with
// n_seq = N. Its thread loops: admit waiting requests into free slots, drop
// cancelled ones, then run one Decode(batch) holding the next token of every
// generating slot plus chunks of prompts being prefilled, and sample each
// slot's token with that request's own seeded sampler (the slots' samplers
// in parallel on the session's threads). Requests join and
// leave between steps. A row's logits do not depend on the rest of the
// batch (docs/DESIGN.md contract 2) and each request samples with its own RNG,
// so a request's tokens are the same alone or beside others.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/status.h"
#include "model/model.h"
#include "runtime/draft_model.h"
#include "runtime/session.h"
#include "runtime/speculative.h"
#include "server/metrics.h"
#include "server/request_channel.h"
#include "server/served_model.h"

namespace trit::server {

struct SchedulerOptions {
  int32_t n_slots = 1;        // requests generating at once
  int64_t n_ctx = 0;          // tokens per slot; 0: the model's trained context (capped at 4096)
  int n_threads = 1;          // compute threads of the session
  int32_t max_queue = 16;     // requests waiting for a slot; more are refused (429)
  int32_t prefill_chunk = 256;  // most prompt tokens per step, all slots together
  // A request whose prompt starts with tokens a slot's cache already holds
  // (a chat resending its history) starts from them instead of computing
  // them again (see Admit). The answer is the same bits either way.
  bool reuse_prompts = true;
  // Speculative decoding (runtime/speculative.h): a generating slot feeds
  // its last token with tokens drafted after it, all checked in the step's
  // one pass; each slot keeps the drafts its sampler would have produced.
  // Answers are unchanged, bit for bit. Prompt lookup, or a draft model of
  // the same vocabulary (it must outlive the scheduler; one session of it,
  // a sequence per slot, drafts for every slot in batched passes).
  bool spec_lookup = false;
  const model::Model* draft_model = nullptr;
  int32_t draft_max = 8;  // most tokens drafted per slot and step
  // A draft model's drafts end at a guess it gives less than this probability.
  float draft_p_min = runtime::ModelDrafter::kDefaultMinProbability;
};

enum class SubmitResult { kAccepted, kQueueFull, kInvalid, kShuttingDown };

struct Submission {
  SubmitResult result = SubmitResult::kInvalid;
  std::shared_ptr<RequestChannel> channel;  // kAccepted
  std::string message;                      // otherwise
};

class Scheduler {
 public:
  // Creates the session (n_seq = n_slots) and starts the scheduling thread.
  // `model` and `metrics` must outlive the scheduler.
  static Expected<std::unique_ptr<Scheduler>> Create(const ServedModel& model, const SchedulerOptions& options,
                                                     Metrics* metrics);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Queues a request. kInvalid: empty prompt or longer than the context.
  // `key_label`: the API key it came with ("" for none), for /metrics.
  // `client`: who sent it (its API key, or its address without keys), for
  // fairness between clients:
  //  - a free slot goes to the waiting request whose client holds the fewest
  //    slots now; among those, to the client served longest ago (or never),
  //    and of its requests to the one that came first;
  //  - when the queue is full, a request from a client with nothing queued
  //    takes the place of the newest queued request of the client with the
  //    most queued (two or more); that one ends with kDisplaced. Otherwise
  //    the newcomer gets kQueueFull.
  // So a client that opens 100 streams cannot starve one that opens 1.
  Submission Submit(std::vector<int32_t> prompt, GenerationParams params, std::string key_label = "",
                    std::string client = "");
  // Ends the thread; requests still queued or running end with an error event.
  void Stop();

  bool running() const;
  int64_t n_ctx() const { return session_->n_ctx(); }
  uint64_t kv_bytes() const { return session_->kv_bytes(); }
  int32_t n_slots() const { return static_cast<int32_t>(slots_.size()); }
  Gauges gauges() const;

 private:
  struct Job {
    std::vector<int32_t> prompt;
    GenerationParams params;
    std::shared_ptr<RequestChannel> channel;
    std::chrono::steady_clock::time_point arrived;
    std::string key_label;
    std::string client;
  };
  struct Slot;

  Scheduler(const ServedModel& model, const SchedulerOptions& options, Metrics* metrics,
            std::unique_ptr<runtime::Session> session);
  void Loop();
  // With mutex_ held: the free slot a request with this prompt takes: the
  // one whose cache shares the longest prefix with it, counting only slots
  // that would keep at least half of what they hold; else the one used least
  // recently (so other conversations' caches stay longest). -1: none free.
  int32_t ChooseSlot(const std::vector<int32_t>& prompt) const;
  // Tokens at the start of `prompt` that slot `seq`'s cache holds.
  size_t CachedPrefix(int32_t seq, const std::vector<int32_t>& prompt) const;
  // Starts `job` in slot `seq`. With reuse_prompts, the slot keeps the
  // longest prefix of the prompt that it, or another slot, holds (copied
  // from the other slot's cache), short of the prompt's last token, which is
  // always run for its logits. Row logits do not depend on how a prefix got
  // into the cache (docs/DESIGN.md contract 2), so the answer is unchanged.
  void Admit(std::unique_ptr<Job> job, int32_t seq);
  // With mutex_ held: the queued job of the client with the most queued
  // jobs (at least two), its newest; pending_.end() if none.
  std::deque<std::unique_ptr<Job>>::iterator DisplaceableJob();
  // With mutex_ held: the queued job the next free slot takes, leaving out
  // those in `skip`; pending_.end() when none is left.
  std::deque<std::unique_ptr<Job>>::iterator NextJob(const std::vector<const Job*>& skip);
  // With mutex_ held: whether `job`, about to take a free slot, should rather
  // wait a step because another slot is computing a prompt that shares more
  // of `job`'s prompt than any cache holds now (requests with one system
  // prompt arriving together, or the choices of one request with n > 1):
  // once it is computed, `job` copies it instead of computing it again.
  // Other queued requests are admitted meanwhile.
  bool WaitsForPrefill(const Job& job) const;
  // With mutex_ held: drops last_served_ entries of clients with nothing
  // queued or running.
  void ForgetIdleClients();
  // With mutex_ held: forgets queued requests whose client left (their
  // channel was cancelled), so that they hold no place in the queue. Runs at
  // each step and before a submission is counted against the queue.
  void DropCancelledJobs();
  void Step();
  // The drafts of each generating slot in `slots` for this step (none for
  // a slot whose request opted out, or while its DraftPolicy pauses).
  Expected<std::vector<std::vector<int32_t>>> Drafts(const std::vector<Slot*>& slots);
  // `token` was sampled from `logits` by the slot's sampler.
  void HandleToken(Slot& slot, std::span<const float> logits, int32_t token);
  void Finish(Slot& slot, FinishReason reason, const std::string& error = {});

  const ServedModel& model_;
  SchedulerOptions options_;
  Metrics* metrics_;
  std::unique_ptr<runtime::Session> session_;
  std::vector<std::unique_ptr<Slot>> slots_;  // slot i uses sequence i
  // Speculative decoding's drafter (options_.spec_lookup or draft_model); null: none.
  std::unique_ptr<runtime::Drafter> drafter_;
  runtime::ModelDrafter* model_drafter_ = nullptr;  // drafter_ when it is a draft model

  mutable std::mutex mutex_;  // guards pending_, stop_, active_count_
  std::condition_variable wake_;
  std::deque<std::unique_ptr<Job>> pending_;
  // When each client with a queued or running request last got a slot (a
  // count of admissions), for NextJob; guarded by mutex_.
  std::map<std::string, uint64_t> last_served_;
  uint64_t admissions_ = 0;
  bool stop_ = false;
  bool running_ = false;
  int64_t active_count_ = 0;
  std::thread thread_;
};

}  // namespace trit::server
