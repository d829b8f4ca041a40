// Text through the C API: tokenize, detokenize, one token's piece, and the
// chat template.
#include <fmt/format.h>

#include <string_view>
#include <vector>

#include "api/c_buffer.h"
#include "api/model_handle.h"

namespace trit::api {
namespace {

constexpr uint32_t kTokenizeFlags = TRIT_TOKENIZE_ADD_SPECIAL | TRIT_TOKENIZE_PARSE_SPECIAL;
constexpr uint32_t kDetokenizeFlags = TRIT_DETOKENIZE_REMOVE_SPECIAL | TRIT_DETOKENIZE_RENDER_SPECIAL;

trit_status CheckFlags(uint32_t flags, uint32_t known, const char* function) {
  if ((flags & ~known) == 0) return TRIT_STATUS_OK;
  return Fail(TRIT_STATUS_INVALID_ARGUMENT, fmt::format("{}: unknown flags {:#x} (known: {:#x})", function, flags & ~known, known));
}

}  // namespace
}  // namespace trit::api

extern "C" {

trit_status trit_tokenize(const trit_model* model, const char* text, size_t text_len, uint32_t flags,
                          int32_t* out_ids, size_t capacity, size_t* n_out) {
  return trit::api::Guarded("trit_tokenize", [&]() -> trit_status {
    using namespace trit::api;
    trit_status status = TRIT_STATUS_OK;
    if (!CheckModel(model, &status)) return status;
    if (text == nullptr && text_len > 0) return Fail(TRIT_STATUS_INVALID_ARGUMENT, "text is NULL with a length");
    if ((status = CheckFlags(flags, kTokenizeFlags, "trit_tokenize")) != TRIT_STATUS_OK) return status;
    const std::vector<int32_t> ids = model->tokenizer->Encode(
        std::string_view(text != nullptr ? text : "", text_len),
        {.add_special = (flags & TRIT_TOKENIZE_ADD_SPECIAL) != 0, .parse_special = (flags & TRIT_TOKENIZE_PARSE_SPECIAL) != 0});
    return WriteIds(ids, out_ids, capacity, n_out);
  });
}

trit_status trit_detokenize(const trit_model* model, const int32_t* ids, size_t n_ids, uint32_t flags, char* out,
                            size_t capacity, size_t* n_out) {
  return trit::api::Guarded("trit_detokenize", [&]() -> trit_status {
    using namespace trit::api;
    trit_status status = TRIT_STATUS_OK;
    if (!CheckModel(model, &status)) return status;
    if (ids == nullptr && n_ids > 0) return Fail(TRIT_STATUS_INVALID_ARGUMENT, "ids is NULL with a count");
    if ((status = CheckFlags(flags, kDetokenizeFlags, "trit_detokenize")) != TRIT_STATUS_OK) return status;
    const trit::tokenizer::Vocab& vocab = model->tokenizer->vocab();
    for (size_t i = 0; i < n_ids; ++i) {
      if (!vocab.Valid(ids[i])) {
        return Fail(TRIT_STATUS_INVALID_ARGUMENT,
                    fmt::format("ids[{}] = {}: not a token id (the vocabulary has {})", i, ids[i], vocab.size()));
      }
    }
    const std::string text = model->tokenizer->Decode(
        std::span<const int32_t>(ids, n_ids),
        {.remove_special = (flags & TRIT_DETOKENIZE_REMOVE_SPECIAL) != 0, .render_special = (flags & TRIT_DETOKENIZE_RENDER_SPECIAL) != 0});
    return WriteText(text, out, capacity, n_out);
  });
}

trit_status trit_token_to_piece(const trit_model* model, int32_t token, uint32_t flags, char* out, size_t capacity,
                                size_t* n_out) {
  return trit::api::Guarded("trit_token_to_piece", [&]() -> trit_status {
    using namespace trit::api;
    trit_status status = TRIT_STATUS_OK;
    if (!CheckModel(model, &status)) return status;
    if ((status = CheckFlags(flags, TRIT_DETOKENIZE_RENDER_SPECIAL, "trit_token_to_piece")) != TRIT_STATUS_OK) return status;
    const trit::tokenizer::Vocab& vocab = model->tokenizer->vocab();
    if (!vocab.Valid(token)) {
      return Fail(TRIT_STATUS_INVALID_ARGUMENT, fmt::format("token {}: not a token id (the vocabulary has {})", token, vocab.size()));
    }
    const std::string piece = model->tokenizer->TokenToPiece(token, (flags & TRIT_DETOKENIZE_RENDER_SPECIAL) != 0, false);
    return WriteText(piece, out, capacity, n_out);
  });
}

trit_status trit_chat_render(const trit_model* model, const trit_chat_message* messages, size_t n_messages,
                             int add_generation_prompt, char* out, size_t capacity, size_t* n_out) {
  return trit::api::Guarded("trit_chat_render", [&]() -> trit_status {
    using namespace trit::api;
    trit_status status = TRIT_STATUS_OK;
    if (!CheckModel(model, &status)) return status;
    if (messages == nullptr && n_messages > 0) return Fail(TRIT_STATUS_INVALID_ARGUMENT, "messages is NULL with a count");
    if (!model->prompt_builder->chat()) {
      if (!model->chat_template_error.ok()) return Fail(model->chat_template_error);
      return Fail(TRIT_STATUS_UNSUPPORTED,
                  fmt::format("{}: the model has no chat template (tokenizer.chat_template)", model->path));
    }
    std::vector<trit::chat::ChatMessage> conversation;
    conversation.reserve(n_messages);
    for (size_t i = 0; i < n_messages; ++i) {
      if (messages[i].role == nullptr || messages[i].content == nullptr) {
        return Fail(TRIT_STATUS_INVALID_ARGUMENT, fmt::format("messages[{}]: role and content must not be NULL", i));
      }
      conversation.push_back({messages[i].role, messages[i].content});
    }
    trit::Expected<std::string> text = model->prompt_builder->Render(conversation, add_generation_prompt != 0);
    if (!text.ok()) return Fail(text.status());
    return WriteText(*text, out, capacity, n_out);
  });
}

}  // extern "C"
