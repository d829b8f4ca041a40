// trit_generate / trit_generate_ids: a fresh session per call, trit's
// sampler, and the generated text streamed to the caller's callback piece
// by piece (as `trit run` streams it to stdout).
#include <fmt/format.h>

#include <random>
#include <vector>

#include "api/c_struct.h"
#include "api/model_handle.h"
#include "runtime/generate.h"
#include "runtime/sampler.h"
#include "runtime/session.h"

namespace trit::api {
namespace {

constexpr size_t kGenerateOptionsV1Size = 64;  // ABI 1's sizeof(trit_generate_options): never lower it
constexpr size_t kGenerateResultV1Size = 40;   // ABI 1's sizeof(trit_generate_result)
static_assert(sizeof(trit_generate_options) >= kGenerateOptionsV1Size);
static_assert(sizeof(trit_generate_result) >= kGenerateResultV1Size);

runtime::SamplerOptions SamplerFrom(const trit_generate_options& o, uint64_t seed) {
  runtime::SamplerOptions s;
  s.temperature = o.temperature;
  s.top_k = o.top_k;
  s.top_p = o.top_p;
  s.min_p = o.min_p;
  s.repeat_penalty = o.repeat_penalty;
  s.frequency_penalty = o.frequency_penalty;
  s.presence_penalty = o.presence_penalty;
  s.penalty_last_n = o.penalty_last_n;
  s.seed = seed;
  return s;
}

uint64_t DrawSeed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) ^ rd();
}

trit_status Run(const trit_model& model, std::span<const int32_t> prompt, const trit_generate_options& opt,
                trit_token_callback callback, void* user_data, trit_generate_result* result) {
  trit_generate_result out{};
  out.struct_size = sizeof(out);
  if (result != nullptr && result->struct_size < kGenerateResultV1Size) {  // refused before any work
    return Fail(TRIT_STATUS_INVALID_ARGUMENT, fmt::format("trit_generate_result.struct_size is {}, expected at least {} "
                                                          "(set it to sizeof(trit_generate_result))",
                                                          result->struct_size, kGenerateResultV1Size));
  }
  if (opt.max_tokens <= 0) {
    return Fail(TRIT_STATUS_INVALID_ARGUMENT, fmt::format("trit_generate_options.max_tokens {}: expected > 0", opt.max_tokens));
  }
  if (prompt.empty()) return Fail(TRIT_STATUS_INVALID_ARGUMENT, "empty prompt: no tokens to generate from");
  if (static_cast<int64_t>(prompt.size()) > model.n_ctx) {
    return Fail(TRIT_STATUS_INVALID_ARGUMENT, fmt::format("prompt of {} tokens: the context holds {} (trit_model_options.n_ctx)",
                                                          prompt.size(), model.n_ctx));
  }
  out.seed = opt.seed == TRIT_SEED_RANDOM ? DrawSeed() : opt.seed;
  const runtime::SamplerOptions so = SamplerFrom(opt, out.seed);
  if (Status s = runtime::ValidateSamplerOptions(so); !s.ok()) return Fail(s.WithContext("trit_generate_options"));

  runtime::SessionOptions session_options;
  session_options.n_ctx = model.n_ctx;
  session_options.n_threads = model.n_threads;
  Expected<std::unique_ptr<runtime::Session>> session =
      model.engine->CreateSession(*model.model, session_options);
  if (!session.ok()) return Fail(session.status());

  const tokenizer::Tokenizer& tok = *model.tokenizer;
  tokenizer::StreamingDecoder decoder(tok, {});
  decoder.Prime(prompt);  // text in the context of the prompt, exactly as trit run prints it

  // A context that fills up ends generation (a stop reason, not an error):
  // k tokens need prompt + k - 1 positions (the last is never fed back).
  const int64_t room = model.n_ctx - static_cast<int64_t>(prompt.size()) + 1;
  runtime::GenerateOptions go;
  go.max_tokens = std::min(opt.max_tokens, room);
  if (opt.stop_at_end_of_generation != 0) go.end_ids = tok.vocab().end_of_generation();
  go.on_token = [&](int32_t id) {
    const std::string piece = decoder.Push(id);
    return callback == nullptr || callback(piece.data(), piece.size(), id, user_data) != 0;
  };
  runtime::Sampler sampler(so);
  Expected<runtime::Generation> g = runtime::Generate(**session, prompt, sampler, go);
  if (!g.ok()) return Fail(g.status());
  const std::string rest = decoder.Flush();
  if (callback != nullptr && !rest.empty()) (void)callback(rest.data(), rest.size(), TRIT_NO_TOKEN, user_data);

  out.n_prompt_tokens = static_cast<int64_t>(prompt.size());
  out.n_generated = static_cast<int64_t>(g->tokens.size());
  switch (g->stop) {
    case runtime::StopReason::kMaxTokens:
      out.stop = go.max_tokens < opt.max_tokens ? TRIT_STOP_CONTEXT_FULL : TRIT_STOP_MAX_TOKENS;
      break;
    case runtime::StopReason::kEndOfSequence: out.stop = TRIT_STOP_END_OF_GENERATION; break;
    case runtime::StopReason::kStopped: out.stop = TRIT_STOP_CALLBACK; break;
  }
  if (result != nullptr) (void)WriteCStruct(out, "trit_generate_result", kGenerateResultV1Size, result);
  return Succeed();
}

trit_status ReadOptions(const trit_generate_options* options, trit_generate_options* opt) {
  trit_generate_options_default(opt);
  if (options == nullptr) return TRIT_STATUS_OK;
  return ReadCStruct(options, "trit_generate_options", kGenerateOptionsV1Size, opt);
}

}  // namespace
}  // namespace trit::api

extern "C" {

void trit_generate_options_default(trit_generate_options* options) {
  if (options == nullptr) return;
  *options = trit_generate_options{};
  options->struct_size = sizeof(trit_generate_options);
  options->max_tokens = 256;
  options->temperature = 0.8f;  // trit run's defaults
  options->top_k = 40;
  options->top_p = 0.95f;
  options->min_p = 0.05f;
  options->repeat_penalty = 1.0f;
  options->frequency_penalty = 0.0f;
  options->presence_penalty = 0.0f;
  options->penalty_last_n = 64;
  options->seed = TRIT_SEED_RANDOM;
  options->stop_at_end_of_generation = 1;
  options->tokenize_flags = TRIT_TOKENIZE_ADD_SPECIAL | TRIT_TOKENIZE_PARSE_SPECIAL;
}

trit_status trit_generate(const trit_model* model, const char* prompt, const trit_generate_options* options,
                          trit_token_callback callback, void* user_data, trit_generate_result* result) {
  return trit::api::Guarded("trit_generate", [&]() -> trit_status {
    using namespace trit::api;
    trit_status status = TRIT_STATUS_OK;
    if (!CheckModel(model, &status)) return status;
    if (prompt == nullptr) return Fail(TRIT_STATUS_INVALID_ARGUMENT, "prompt is NULL");
    trit_generate_options opt;
    if ((status = ReadOptions(options, &opt)) != TRIT_STATUS_OK) return status;
    constexpr uint32_t kKnown = TRIT_TOKENIZE_ADD_SPECIAL | TRIT_TOKENIZE_PARSE_SPECIAL;
    if ((opt.tokenize_flags & ~kKnown) != 0) {
      return Fail(TRIT_STATUS_INVALID_ARGUMENT, fmt::format("trit_generate_options.tokenize_flags {:#x}: unknown flags", opt.tokenize_flags));
    }
    const std::string_view text(prompt);
    bool add_special = (opt.tokenize_flags & TRIT_TOKENIZE_ADD_SPECIAL) != 0;
    const bool parse_special = (opt.tokenize_flags & TRIT_TOKENIZE_PARSE_SPECIAL) != 0;
    // A rendered chat template usually writes the BOS text itself: no second BOS.
    const trit::tokenizer::Vocab& vocab = model->tokenizer->vocab();
    if (parse_special && vocab.special().bos != trit::tokenizer::kNoToken && text.starts_with(vocab.text(vocab.special().bos))) {
      add_special = false;
    }
    const std::vector<int32_t> ids = model->tokenizer->Encode(text, {.add_special = add_special, .parse_special = parse_special});
    return Run(*model, ids, opt, callback, user_data, result);
  });
}

trit_status trit_generate_ids(const trit_model* model, const int32_t* ids, size_t n_ids,
                              const trit_generate_options* options, trit_token_callback callback, void* user_data,
                              trit_generate_result* result) {
  return trit::api::Guarded("trit_generate_ids", [&]() -> trit_status {
    using namespace trit::api;
    trit_status status = TRIT_STATUS_OK;
    if (!CheckModel(model, &status)) return status;
    if (ids == nullptr && n_ids > 0) return Fail(TRIT_STATUS_INVALID_ARGUMENT, "ids is NULL with a count");
    trit_generate_options opt;
    if ((status = ReadOptions(options, &opt)) != TRIT_STATUS_OK) return status;
    return Run(*model, std::span<const int32_t>(ids, n_ids), opt, callback, user_data, result);
  });
}

}  // extern "C"
