#include "server/scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <numeric>
#include <string_view>

#include "base/check.h"
#include "runtime/constrained_sampler.h"
#include "server/stop_matcher.h"
#include "tokenizer/tokenizer.h"

namespace trit::server {

using Clock = std::chrono::steady_clock;

// A queued request waits for a slot that is computing a prompt it shares, when
// that would save it at least this many tokens of prefill (it then copies
// them; see WaitsForPrefill). Below this, computing them costs about a step.
constexpr size_t kMinPrefillToWaitFor = 32;

struct Scheduler::Slot {
  int32_t seq = 0;
  std::unique_ptr<Job> job;  // null: the slot is free
  size_t n_prefilled = 0;    // prompt tokens in the cache
  size_t n_reused = 0;       // of those, taken from a cache at admission
  // Prompt then generated tokens (the penalties' window). Kept after the
  // request ends: its first Length(seq) tokens are what the cache holds.
  std::vector<int32_t> history;
  uint64_t last_admitted = 0;  // admission count when it last took a request
  int64_t n_generated = 0;
  std::unique_ptr<runtime::ConstrainedSampler> sampler;
  std::unique_ptr<tokenizer::StreamingDecoder> decoder;
  std::unique_ptr<StopMatcher> stops;
  Clock::time_point last_token;
  runtime::DraftPolicy draft_policy{1};  // set at admission

  bool prefilling() const { return n_prefilled < job->prompt.size(); }
};

namespace {

// log-softmax of `logits` in double, so that the logprobs of a row do not
// depend on anything but the row.
std::vector<double> LogSoftmax(std::span<const float> logits) {
  double max = -INFINITY;
  for (float v : logits) max = std::max(max, static_cast<double>(v));
  double sum = 0.0;
  for (float v : logits) sum += std::exp(static_cast<double>(v) - max);
  const double log_z = max + std::log(sum);
  std::vector<double> out(logits.size());
  for (size_t i = 0; i < logits.size(); ++i) out[i] = static_cast<double>(logits[i]) - log_z;
  return out;
}

}  // namespace

Expected<std::unique_ptr<Scheduler>> Scheduler::Create(const ServedModel& model, const SchedulerOptions& options,
                                                      Metrics* metrics) {
  if (options.n_slots < 1) return Error(ErrorCode::kInvalidArgument, "--parallel {}: expected at least 1", options.n_slots);
  if (options.max_queue < 0) return Error(ErrorCode::kInvalidArgument, "--queue {}: expected 0 or more", options.max_queue);
  if (options.prefill_chunk < 1) {
    return Error(ErrorCode::kInvalidArgument, "prefill chunk {}: expected at least 1", options.prefill_chunk);
  }
  if (options.draft_max < 1) {
    return Error(ErrorCode::kInvalidArgument, "--draft-max {}: expected at least 1", options.draft_max);
  }
  if (options.spec_lookup && options.draft_model != nullptr) {
    return Error(ErrorCode::kInvalidArgument, "prompt lookup and a draft model are two drafters: choose one");
  }
  runtime::SessionOptions so;
  // A model's trained context can be 128K tokens; each slot holds a whole
  // context of KV cache, so the default is capped (--ctx raises it).
  so.n_ctx = options.n_ctx > 0 ? options.n_ctx : std::min<int64_t>(model.n_ctx_train, 4096);
  so.n_seq = options.n_slots;
  so.n_threads = options.n_threads;
  Expected<std::unique_ptr<runtime::Session>> session = model.engine->CreateSession(*model.model, so);
  if (!session.ok()) return session.status();
  std::unique_ptr<Scheduler> s(new Scheduler(model, options, metrics, std::move(session).value()));
  if (options.spec_lookup) s->drafter_ = std::make_unique<runtime::PromptLookupDrafter>();
  if (options.draft_model != nullptr) {
    runtime::SessionOptions ds = so;
    ds.n_ctx = s->session_->n_ctx();
    Expected<std::unique_ptr<runtime::ModelDrafter>> drafter =
        runtime::ModelDrafter::Create(*options.draft_model, ds, options.draft_p_min);
    if (!drafter.ok()) return drafter.status();
    s->model_drafter_ = drafter->get();
    s->drafter_ = std::move(drafter).value();
  }
  s->running_ = true;
  s->thread_ = std::thread([p = s.get()] { p->Loop(); });
  return s;
}

Scheduler::Scheduler(const ServedModel& model, const SchedulerOptions& options, Metrics* metrics,
                     std::unique_ptr<runtime::Session> session)
    : model_(model), options_(options), metrics_(metrics), session_(std::move(session)) {
  for (int32_t i = 0; i < options.n_slots; ++i) {
    slots_.push_back(std::make_unique<Slot>());
    slots_.back()->seq = i;
  }
}

Scheduler::~Scheduler() { Stop(); }

void Scheduler::Stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool Scheduler::running() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return running_ && !stop_;
}

Gauges Scheduler::gauges() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {static_cast<int64_t>(pending_.size()), active_count_, static_cast<int64_t>(slots_.size())};
}

Submission Scheduler::Submit(std::vector<int32_t> prompt, GenerationParams params, std::string key_label,
                             std::string client) {
  Submission out;
  if (prompt.empty()) {
    out.message = "the prompt is empty (no tokens)";
    return out;
  }
  if (static_cast<int64_t>(prompt.size()) > n_ctx()) {
    out.message = fmt::format("the prompt has {} tokens, more than the context of {} tokens", prompt.size(), n_ctx());
    return out;
  }
  auto job = std::make_unique<Job>();
  job->prompt = std::move(prompt);
  job->params = std::move(params);
  job->channel = std::make_shared<RequestChannel>();
  job->arrived = Clock::now();
  job->key_label = std::move(key_label);
  job->client = std::move(client);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stop_ || !running_) {
      out.result = SubmitResult::kShuttingDown;
      out.message = "the server is shutting down";
      return out;
    }
    DropCancelledJobs();
    // Free slots take requests at the next step; only requests beyond them wait.
    const int64_t waiting = static_cast<int64_t>(pending_.size()) + active_count_ - n_slots();
    if (waiting >= options_.max_queue) {
      const bool has_queued = std::any_of(pending_.begin(), pending_.end(),
                                          [&](const std::unique_ptr<Job>& j) { return j->client == job->client; });
      auto victim = has_queued ? pending_.end() : DisplaceableJob();
      if (victim == pending_.end()) {
        out.result = SubmitResult::kQueueFull;
        out.message = fmt::format("all {} slots are busy and {} requests are waiting; retry later", n_slots(),
                                  options_.max_queue);
        return out;
      }
      Event e;
      e.done = true;
      e.finish = FinishReason::kDisplaced;
      e.error = fmt::format("all {} slots are busy and this request gave its place in the queue to another "
                            "client's (one client may not hold the whole queue); retry later",
                            n_slots());
      (*victim)->channel->Push(std::move(e));
      pending_.erase(victim);
    }
    out.channel = job->channel;
    pending_.push_back(std::move(job));
  }
  wake_.notify_all();
  out.result = SubmitResult::kAccepted;
  return out;
}

void Scheduler::Loop() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return stop_ || !pending_.empty() || active_count_ > 0; });
      if (stop_) break;
      DropCancelledJobs();
      std::vector<const Job*> deferred;
      for (;;) {
        auto next = NextJob(deferred);
        if (next == pending_.end()) break;
        const int32_t seq = ChooseSlot((*next)->prompt);
        if (seq < 0) break;
        if (WaitsForPrefill(**next)) {
          deferred.push_back(next->get());
          continue;
        }
        std::unique_ptr<Job> job = std::move(*next);
        pending_.erase(next);
        last_served_[job->client] = admissions_++;
        ++active_count_;
        Admit(std::move(job), seq);
        ForgetIdleClients();
      }
    }
    Step();
  }
  // Shutting down: everyone still waiting or generating gets an error.
  std::deque<std::unique_ptr<Job>> pending;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending.swap(pending_);
    running_ = false;
  }
  for (auto& job : pending) {
    Event e;
    e.done = true;
    e.finish = FinishReason::kError;
    e.error = "the server is shutting down";
    job->channel->Push(std::move(e));
  }
  for (auto& slot : slots_) {
    if (slot->job != nullptr) Finish(*slot, FinishReason::kError, "the server is shutting down");
  }
}

std::deque<std::unique_ptr<Scheduler::Job>>::iterator Scheduler::DisplaceableJob() {
  std::map<std::string_view, int> queued;
  for (const auto& j : pending_) ++queued[j->client];
  std::string_view most;
  int most_count = 1;
  for (const auto& [client, n] : queued) {
    if (n > most_count) most = client, most_count = n;
  }
  if (most_count < 2) return pending_.end();
  for (auto it = pending_.end(); it != pending_.begin();) {
    --it;
    if ((*it)->client == most) return it;
  }
  return pending_.end();
}

void Scheduler::DropCancelledJobs() {
  std::erase_if(pending_, [this](const std::unique_ptr<Job>& j) {
    if (!j->channel->cancelled()) return false;
    metrics_->CountCancelled("queued");
    // Its last event, as a slot's cancelled job gets one (a reader may still wait).
    Event e;
    e.done = true;
    e.finish = FinishReason::kCancelled;
    j->channel->Push(std::move(e));
    return true;
  });
}

void Scheduler::ForgetIdleClients() {
  // Only clients with a queued or running request are remembered, so the map
  // stays as small as the queue and the slots.
  for (auto it = last_served_.begin(); it != last_served_.end();) {
    const std::string& client = it->first;
    const bool queued = std::any_of(pending_.begin(), pending_.end(),
                                    [&](const std::unique_ptr<Job>& j) { return j->client == client; });
    const bool running = std::any_of(slots_.begin(), slots_.end(),
                                     [&](const auto& slot) { return slot->job != nullptr && slot->job->client == client; });
    it = queued || running ? std::next(it) : last_served_.erase(it);
  }
}

bool Scheduler::WaitsForPrefill(const Job& job) const {
  if (!options_.reuse_prompts) return false;
  const size_t limit = job.prompt.size() - 1;
  // What Admit would reuse now: the longest prefix any slot holds (`seq` included).
  size_t available = 0;
  for (const auto& slot : slots_) available = std::max(available, std::min(CachedPrefix(slot->seq, job.prompt), limit));
  for (const auto& slot : slots_) {
    if (slot->job == nullptr || !slot->prefilling()) continue;
    const std::vector<int32_t>& other = slot->job->prompt;
    const size_t n = std::min(other.size(), job.prompt.size());
    const size_t shared = static_cast<size_t>(
        std::mismatch(job.prompt.begin(), job.prompt.begin() + static_cast<std::ptrdiff_t>(n), other.begin()).first -
        job.prompt.begin());
    if (std::min(shared, limit) >= available + kMinPrefillToWaitFor) return true;
  }
  return false;
}

std::deque<std::unique_ptr<Scheduler::Job>>::iterator Scheduler::NextJob(const std::vector<const Job*>& skip) {
  std::map<std::string_view, int> active;
  for (const auto& slot : slots_) {
    if (slot->job != nullptr) ++active[slot->job->client];
  }
  std::pair<int, uint64_t> best_key{INT_MAX, 0};
  auto best = pending_.end();
  for (auto it = pending_.begin(); it != pending_.end(); ++it) {
    if (std::find(skip.begin(), skip.end(), it->get()) != skip.end()) continue;
    const auto a = active.find((*it)->client);
    const auto served = last_served_.find((*it)->client);
    // Never served sorts before served first (0 before 1 + the admission count).
    const std::pair<int, uint64_t> key{a == active.end() ? 0 : a->second,
                                       served == last_served_.end() ? 0 : 1 + served->second};
    if (key < best_key) best = it, best_key = key;  // strict: the earliest among equals
  }
  return best;
}

size_t Scheduler::CachedPrefix(int32_t seq, const std::vector<int32_t>& prompt) const {
  const Slot& slot = *slots_[static_cast<size_t>(seq)];
  const size_t cached = std::min<size_t>(static_cast<size_t>(session_->Length(seq)), slot.history.size());
  const size_t n = std::min(cached, prompt.size());
  return static_cast<size_t>(std::mismatch(prompt.begin(), prompt.begin() + static_cast<std::ptrdiff_t>(n),
                                           slot.history.begin()).first -
                             prompt.begin());
}

int32_t Scheduler::ChooseSlot(const std::vector<int32_t>& prompt) const {
  int32_t best = -1;
  size_t best_prefix = 0;
  for (const auto& slot : slots_) {
    if (slot->job != nullptr) continue;
    size_t prefix = options_.reuse_prompts ? CachedPrefix(slot->seq, prompt) : 0;
    // A slot whose cache would be mostly thrown away (another conversation
    // sharing only its first tokens) counts as sharing nothing, so that it
    // is kept for its own conversation while other slots are free.
    if (prefix * 2 < static_cast<size_t>(session_->Length(slot->seq))) prefix = 0;
    const Slot* b = best < 0 ? nullptr : slots_[static_cast<size_t>(best)].get();
    if (b == nullptr || prefix > best_prefix || (prefix == best_prefix && slot->last_admitted < b->last_admitted)) {
      best = slot->seq;
      best_prefix = prefix;
    }
  }
  return best;
}

void Scheduler::Admit(std::unique_ptr<Job> job, int32_t seq) {
  Slot& slot = *slots_[static_cast<size_t>(seq)];
  size_t keep = 0;
  int32_t donor = -1;
  if (options_.reuse_prompts) {
    const size_t limit = job->prompt.size() - 1;  // the last prompt token is always run
    keep = std::min(CachedPrefix(seq, job->prompt), limit);
    for (const auto& other : slots_) {
      if (other->seq == seq) continue;
      const size_t n = std::min(CachedPrefix(other->seq, job->prompt), limit);
      if (n > keep) keep = n, donor = other->seq;
    }
  }
  // Both calls are within the lengths just read; they cannot fail.
  const Status s = donor >= 0 ? session_->CopyPrefix(donor, seq, static_cast<int64_t>(keep))
                              : session_->Truncate(seq, static_cast<int64_t>(keep));
  TRIT_CHECK(s.ok());
  slot.history = job->prompt;
  slot.n_prefilled = keep;
  slot.n_reused = keep;
  slot.last_admitted = admissions_;
  slot.n_generated = 0;
  slot.draft_policy = runtime::DraftPolicy(options_.draft_max);
  const GenerationParams& params = job->params;
  slot.sampler = std::make_unique<runtime::ConstrainedSampler>(
      params.sampling, runtime::Constraints{params.logit_bias, params.grammar},
      params.grammar != nullptr ? &model_.token_index() : nullptr);
  slot.decoder = std::make_unique<tokenizer::StreamingDecoder>(*model_.tokenizer, tokenizer::DecodeOptions{});
  slot.decoder->Prime(job->prompt);  // text in the context of the prompt, as trit run prints it
  slot.stops = std::make_unique<StopMatcher>(job->params.stop);
  slot.job = std::move(job);
}

void Scheduler::Step() {
  for (auto& slot : slots_) {
    if (slot->job != nullptr && slot->job->channel->cancelled()) {
      metrics_->CountCancelled(slot->prefilling() ? "prefill" : "generating");
      Finish(*slot, FinishReason::kCancelled);
    }
  }
  // The logits rows of each slot that samples this step: a generating
  // slot's token and drafts, or a prompt's last token.
  struct Rows {
    Slot* slot;
    int64_t first = 0;  // its first row
    int64_t base = 0;   // a generating slot's: the cache position of its first row's token
    std::vector<int32_t> drafts;
    bool generating = false;
  };
  std::vector<Rows> groups;
  runtime::Batch batch;
  // Generating slots first: each feeds the token it sampled last, and the
  // tokens drafted to follow it.
  std::vector<Slot*> generating;
  for (auto& slot : slots_) {
    if (slot->job != nullptr && !slot->prefilling()) generating.push_back(slot.get());
  }
  Expected<std::vector<std::vector<int32_t>>> drafts = Drafts(generating);
  if (!drafts.ok()) {
    for (Slot* slot : generating) Finish(*slot, FinishReason::kError, drafts.status().message());
    generating.clear();
    drafts = std::vector<std::vector<int32_t>>();
  }
  for (size_t i = 0; i < generating.size(); ++i) {
    Slot& slot = *generating[i];
    const int64_t base = session_->Length(slot.seq);
    groups.push_back({&slot, static_cast<int64_t>(batch.logit_rows.size()), base, std::move((*drafts)[i]), true});
    batch.Add(slot.history.back(), static_cast<int32_t>(base), slot.seq, true);
    for (size_t d = 0; d < groups.back().drafts.size(); ++d) {
      batch.Add(groups.back().drafts[d], static_cast<int32_t>(base + 1 + static_cast<int64_t>(d)), slot.seq, true);
    }
  }
  // Then prompt chunks, up to prefill_chunk tokens in all, oldest slot first.
  int64_t budget = options_.prefill_chunk;
  for (auto& slot : slots_) {
    if (slot->job == nullptr || !slot->prefilling() || budget <= 0) continue;
    const std::vector<int32_t>& prompt = slot->job->prompt;
    const size_t n = std::min<size_t>(static_cast<size_t>(budget), prompt.size() - slot->n_prefilled);
    for (size_t i = 0; i < n; ++i) {
      const size_t k = slot->n_prefilled + i;
      const bool last = k + 1 == prompt.size();
      if (last) {
        groups.push_back({slot.get(), static_cast<int64_t>(batch.logit_rows.size()), 0, {}, false});
      }
      batch.Add(prompt[k], static_cast<int32_t>(k), slot->seq, last);
    }
    slot->n_prefilled += n;
    budget -= static_cast<int64_t>(n);
  }
  if (batch.size() == 0) return;
  // Logits rows follow the order of Add calls with want_logits, which is
  // the order of `groups`.
  Expected<runtime::Logits> logits = session_->Decode(batch);
  if (!logits.ok()) {
    for (auto& slot : slots_) {
      if (slot->job != nullptr) Finish(*slot, FinishReason::kError, logits.status().message());
    }
    return;
  }
  // Each slot's sampler is its own (its own seed, its own history), so the
  // slots' rows are sampled in parallel on the session's threads, then
  // handled in order on this one. Row r of a slot gives the token after the
  // draft before it; while that token is the draft at r, the slot's next
  // row follows what plain decoding would have fed, so it is sampled in the
  // next round (with the sampler's state after the token): rounds go on
  // while some slot's drafts are being kept.
  std::vector<Expected<int32_t>> tokens(groups.size(), 0);
  std::vector<size_t> row(groups.size(), 0);  // each group's row in this round
  std::vector<int32_t> accepted(groups.size(), 0);
  std::vector<size_t> live(groups.size());    // the groups sampling this round
  std::iota(live.begin(), live.end(), size_t{0});
  const auto sample = [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const size_t g = live[static_cast<size_t>(i)];
      Slot& slot = *groups[g].slot;
      // slot.history is the whole sequence (prompt and tokens so far): the
      // new token's position is its length, whatever the cache reused.
      tokens[g] = slot.sampler->Sample(logits->Row(groups[g].first + static_cast<int64_t>(row[g])), slot.history,
                                       static_cast<int64_t>(slot.history.size()));
    }
  };
  while (!live.empty()) {
    if (live.size() == 1) {
      sample(0, 1);
    } else {
      session_->pool().ParallelFor(static_cast<int64_t>(live.size()), sample);
      session_->pool().Release();
    }
    std::vector<size_t> next;
    for (size_t g : live) {
      Rows& rows = groups[g];
      Slot& slot = *rows.slot;
      if (!tokens[g].ok()) {
        Finish(slot, FinishReason::kError, tokens[g].status().message());
        continue;
      }
      const int32_t token = *tokens[g];
      HandleToken(slot, logits->Row(rows.first + static_cast<int64_t>(row[g])), token);
      const bool kept = row[g] < rows.drafts.size() && token == rows.drafts[row[g]];
      if (kept) ++accepted[g];
      if (!kept || slot.job == nullptr) continue;
      ++row[g];
      next.push_back(g);
    }
    live = std::move(next);
  }
  for (size_t g = 0; g < groups.size(); ++g) {
    Rows& rows = groups[g];
    if (!rows.drafts.empty()) {
      // The cache keeps the fed token and the drafts before the last row's
      // token, as plain decoding's would hold them; the rest were not its tokens.
      TRIT_CHECK(session_->Truncate(rows.slot->seq, rows.base + 1 + static_cast<int64_t>(row[g])).ok());
      metrics_->CountSpeculation(static_cast<int64_t>(rows.drafts.size()), accepted[g]);
    }
    if (rows.generating) rows.slot->draft_policy.Record(static_cast<int32_t>(rows.drafts.size()), accepted[g]);
  }
}

Expected<std::vector<std::vector<int32_t>>> Scheduler::Drafts(const std::vector<Slot*>& slots) {
  std::vector<std::vector<int32_t>> out(slots.size());
  if (drafter_ == nullptr) return out;
  std::vector<runtime::ModelDrafter::Request> requests;
  std::vector<size_t> asked;  // the slot of each request
  for (size_t i = 0; i < slots.size(); ++i) {
    const Slot& slot = *slots[i];
    if (!slot.job->params.speculative) continue;
    // Room for the fed token and the drafts in the context, and no more
    // drafts than tokens still wanted after the one the fed token's row gives.
    const int64_t base = session_->Length(slot.seq);
    int64_t k = std::min<int64_t>(slot.draft_policy.Next(), session_->n_ctx() - base - 1);
    if (slot.job->params.max_tokens >= 0) k = std::min(k, slot.job->params.max_tokens - slot.n_generated - 1);
    if (k <= 0) continue;
    if (model_drafter_ == nullptr) {
      Expected<std::vector<int32_t>> d = drafter_->Draft(slot.history, static_cast<int32_t>(k));
      if (!d.ok()) return d.status();
      out[i] = std::move(d).value();
      out[i].resize(std::min<size_t>(out[i].size(), static_cast<size_t>(k)));
      continue;
    }
    requests.push_back({slot.seq, slot.history, static_cast<int32_t>(k)});
    asked.push_back(i);
  }
  if (requests.empty()) return out;
  Expected<std::vector<std::vector<int32_t>>> drafts = model_drafter_->DraftMany(requests);
  if (!drafts.ok()) return drafts.status();
  for (size_t q = 0; q < asked.size(); ++q) out[asked[q]] = std::move((*drafts)[q]);  // at most max each
  return out;
}

void Scheduler::HandleToken(Slot& slot, std::span<const float> logits, int32_t token) {
  const GenerationParams& params = slot.job->params;
  const Clock::time_point now = Clock::now();
  if (slot.n_generated == 0) {
    metrics_->ObserveTimeToFirstToken(std::chrono::duration<double>(now - slot.job->arrived).count());
  } else {
    metrics_->ObserveTokenLatency(std::chrono::duration<double>(now - slot.last_token).count());
  }
  slot.last_token = now;
  const tokenizer::Vocab& vocab = model_.tokenizer->vocab();
  const std::vector<int32_t>& ends = vocab.end_of_generation();
  const bool is_end = vocab.special().eos == token || std::find(ends.begin(), ends.end(), token) != ends.end();
  // Under a grammar an end token comes only where the grammar may end.
  if (is_end && (!params.ignore_eos || slot.sampler->constrained())) {
    Finish(slot, FinishReason::kStop);
    return;
  }
  ++slot.n_generated;
  slot.history.push_back(token);
  slot.sampler->Accept(token);
  Event event;
  if (params.top_logprobs >= 0) {
    const std::vector<double> lp = LogSoftmax(logits);
    TokenLogprob t;
    t.token = model_.tokenizer->TokenToPiece(token, /*render_special=*/true, /*lstrip=*/false);
    t.logprob = static_cast<float>(lp[static_cast<size_t>(token)]);
    std::vector<int32_t> ids(lp.size());
    std::iota(ids.begin(), ids.end(), 0);
    const size_t k = std::min<size_t>(static_cast<size_t>(params.top_logprobs), ids.size());
    std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(k), ids.end(), [&](int32_t a, int32_t b) {
      return lp[static_cast<size_t>(a)] > lp[static_cast<size_t>(b)] ||
             (lp[static_cast<size_t>(a)] == lp[static_cast<size_t>(b)] && a < b);
    });
    for (size_t i = 0; i < k; ++i) {
      t.top.emplace_back(model_.tokenizer->TokenToPiece(ids[i], true, false),
                         static_cast<float>(lp[static_cast<size_t>(ids[i])]));
    }
    event.logprobs.push_back(std::move(t));
  }
  const bool stopped = slot.stops->Append(slot.decoder->Push(token));
  if (stopped) {
    event.text = slot.stops->Take(/*final=*/true);
    slot.job->channel->Push(std::move(event));
    Finish(slot, FinishReason::kStop);
    return;
  }
  if (slot.sampler->MustEnd()) {
    // The grammar allows nothing more: done now, without a step that could
    // only sample an end token.
    slot.stops->Append(slot.decoder->Flush());
    event.text = slot.stops->Take(/*final=*/true);
    slot.job->channel->Push(std::move(event));
    Finish(slot, FinishReason::kStop);
    return;
  }
  const bool max_reached = params.max_tokens >= 0 && slot.n_generated >= params.max_tokens;
  // The sampled token is fed at the next step: it needs one more cache
  // entry. The cache holds the history but its last token (drafts past
  // them, if any, are dropped after this step).
  const bool context_full = static_cast<int64_t>(slot.history.size()) - 1 >= session_->n_ctx();
  if (max_reached || context_full) {
    slot.stops->Append(slot.decoder->Flush());
    event.text = slot.stops->Take(/*final=*/true);
    slot.job->channel->Push(std::move(event));
    Finish(slot, FinishReason::kLength);
    return;
  }
  event.text = slot.stops->Take(/*final=*/false);
  slot.job->channel->Push(std::move(event));
}

void Scheduler::Finish(Slot& slot, FinishReason reason, const std::string& error) {
  Event e;
  e.done = true;
  e.finish = reason;
  e.error = error;
  e.n_prompt = static_cast<int64_t>(slot.job->prompt.size());
  e.n_generated = slot.n_generated;
  e.n_cached = static_cast<int64_t>(slot.n_reused);
  if (reason == FinishReason::kStop) {
    // Text held back for a stop string that never came, or by the decoder.
    (void)slot.stops->Append(slot.decoder->Flush());
    e.text = slot.stops->Take(/*final=*/true);
  }
  metrics_->AddTokens(e.n_prompt, e.n_generated, slot.job->key_label);
  slot.job->channel->Push(std::move(e));
  slot.job.reset();
  slot.sampler.reset();
  slot.decoder.reset();
  slot.stops.reset();
  std::lock_guard<std::mutex> lock(mutex_);
  --active_count_;
}

}  // namespace trit::server
