#include "runtime/draft_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "formats/gguf/reader.h"
#include "tokenizer/tokenizer.h"

namespace trit::runtime {

Expected<std::unique_ptr<model::Model>> LoadDraftModel(const std::string& path, const tokenizer::Vocab& target) {
  Expected<std::unique_ptr<tokenizer::Tokenizer>> tok = tokenizer::Tokenizer::FromGgufPath(path);
  if (!tok.ok()) return tok.status();
  const tokenizer::Vocab& draft = (*tok)->vocab();
  for (int32_t id = 0; id < std::max(target.size(), draft.size()); ++id) {
    if (id < target.size() && id < draft.size() && target.text(id) == draft.text(id)) continue;
    const auto show = [](const tokenizer::Vocab& v, int32_t i) {
      return i < v.size() ? fmt::format("'{}'", v.text(i)) : std::string("none (the vocabulary ends)");
    };
    return Error(ErrorCode::kInvalidArgument,
                 "{}: its vocabulary differs from the model's at token {}: {} in the draft, {} in the model "
                 "({} and {} tokens); a draft model must share the model's tokenizer",
                 path, id, show(draft, id), show(target, id), draft.size(), target.size());
  }
  Expected<std::unique_ptr<model::Model>> m = model::LoadModel(path);
  if (!m.ok()) return m.status().WithContext(path);
  return m;
}

namespace {

// Whether the softmax of `logits` gives its entry `best` (the largest) at
// least probability p: 1 / sum(exp(l - max)) >= p. Stops summing once the
// sum shows it does not.
bool AtLeastProbable(std::span<const float> logits, int32_t best, float p) {
  if (p <= 0.0f) return true;
  const float max = logits[static_cast<size_t>(best)];
  const float limit = 1.0f / p;
  float sum = 0.0f;
  constexpr size_t kChunk = 4096;
  for (size_t i = 0; i < logits.size(); i += kChunk) {
    const size_t end = std::min(logits.size(), i + kChunk);
    for (size_t j = i; j < end; ++j) sum += std::exp(logits[j] - max);
    if (sum > limit) return false;
  }
  return true;
}

}  // namespace

ModelDrafter::ModelDrafter(std::unique_ptr<Session> session, float min_probability)
    : session_(std::move(session)), min_probability_(min_probability), cached_(static_cast<size_t>(session_->n_seq())) {}

Expected<std::unique_ptr<ModelDrafter>> ModelDrafter::Create(const model::Model& model, const SessionOptions& options,
                                                           float min_probability) {
  Expected<std::unique_ptr<Session>> session = Session::Create(model, options);
  if (!session.ok()) return session.status().WithContext("draft model");
  return std::unique_ptr<ModelDrafter>(new ModelDrafter(std::move(session).value(), min_probability));
}

Expected<std::vector<int32_t>> ModelDrafter::Draft(std::span<const int32_t> context, int32_t max) {
  const Request request{0, context, max};
  Expected<std::vector<std::vector<int32_t>>> drafts = DraftMany({&request, 1});
  if (!drafts.ok()) return drafts.status();
  return std::move(drafts->front());
}

Expected<size_t> ModelDrafter::KeepCommon(int32_t seq, std::span<const int32_t> context) {
  std::vector<int32_t>& cached = cached_[static_cast<size_t>(seq)];
  size_t common = static_cast<size_t>(
      std::mismatch(cached.begin(), cached.end(), context.begin(), context.end()).first - cached.begin());
  common = std::min(common, context.empty() ? 0 : context.size() - 1);
  if (Status s = session_->Truncate(seq, static_cast<int64_t>(common)); !s.ok()) return s;
  cached.resize(common);
  return common;
}

Status ModelDrafter::Prepare(std::span<const int32_t> context) {
  // Guesses need the whole context in the draft model's; past it, none will be asked.
  if (context.size() < 2 || static_cast<int64_t>(context.size()) > session_->n_ctx()) return Status::Ok();
  Expected<size_t> common = KeepCommon(0, context);
  if (!common.ok()) return common.status();
  Batch batch;
  for (size_t i = *common; i + 1 < context.size(); ++i) batch.Add(context[i], static_cast<int32_t>(i), 0, false);
  if (batch.size() == 0) return Status::Ok();
  Expected<Logits> logits = session_->Decode(batch);
  if (!logits.ok()) return logits.status().WithContext("draft model");
  cached_[0].assign(context.begin(), context.end() - 1);
  return Status::Ok();
}

Expected<std::vector<std::vector<int32_t>>> ModelDrafter::DraftMany(std::span<const Request> requests) {
  std::vector<std::vector<int32_t>> drafts(requests.size());
  // What each request feeds at the next pass: first the context past what
  // its cache shares (the last token always, for its logits), then its
  // latest draft.
  std::vector<std::vector<int32_t>> feed(requests.size());
  std::vector<int32_t> wanted(requests.size(), 0);
  std::vector<bool> seen(static_cast<size_t>(session_->n_seq()), false);
  for (size_t i = 0; i < requests.size(); ++i) {
    const Request& q = requests[i];
    if (q.seq < 0 || q.seq >= session_->n_seq()) {
      return Error(ErrorCode::kInvalidArgument, "draft sequence {} is out of range, expected 0..{}", q.seq,
                   session_->n_seq() - 1);
    }
    if (seen[static_cast<size_t>(q.seq)]) {
      return Error(ErrorCode::kInvalidArgument, "draft sequence {} is asked for twice in one DraftMany call", q.seq);
    }
    seen[static_cast<size_t>(q.seq)] = true;
    // Guesses need room in the draft model's context too; past it, none.
    const int64_t room = session_->n_ctx() - static_cast<int64_t>(q.context.size());
    wanted[i] = static_cast<int32_t>(std::min<int64_t>(q.max, room));
    if (wanted[i] < 1 || q.context.empty()) continue;
    Expected<size_t> common = KeepCommon(q.seq, q.context);
    if (!common.ok()) return common.status();
    feed[i].assign(q.context.begin() + static_cast<std::ptrdiff_t>(*common), q.context.end());
  }
  for (;;) {
    Batch batch;
    std::vector<size_t> rows;  // the request of each logits row
    for (size_t i = 0; i < requests.size(); ++i) {
      if (feed[i].empty()) continue;
      const int32_t seq = requests[i].seq;
      const int64_t pos = session_->Length(seq);
      for (size_t t = 0; t < feed[i].size(); ++t) {
        batch.Add(feed[i][t], static_cast<int32_t>(pos + static_cast<int64_t>(t)), seq, t + 1 == feed[i].size());
      }
      rows.push_back(i);
    }
    if (rows.empty()) return drafts;
    Expected<Logits> logits = session_->Decode(batch);
    if (!logits.ok()) return logits.status().WithContext("draft model");
    for (size_t r = 0; r < rows.size(); ++r) {
      const size_t i = rows[r];
      std::vector<int32_t>& cached = cached_[static_cast<size_t>(requests[i].seq)];
      cached.insert(cached.end(), feed[i].begin(), feed[i].end());
      const std::span<const float> row = logits->Row(static_cast<int64_t>(r));
      const int32_t guess = Argmax(row);
      if (!AtLeastProbable(row, guess, min_probability_)) {
        feed[i].clear();  // an unlikely guess: this sequence's drafts end here
        continue;
      }
      drafts[i].push_back(guess);
      // The last draft is not run: nothing would read its logits.
      if (static_cast<int32_t>(drafts[i].size()) < wanted[i]) {
        feed[i].assign(1, drafts[i].back());
      } else {
        feed[i].clear();
      }
    }
  }
}

}  // namespace trit::runtime
