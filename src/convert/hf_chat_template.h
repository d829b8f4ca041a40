// The chat templates of a Hugging Face model directory, found where
// gguf-py's SpecialVocab looks (vocab.py, _try_load_from_tokenizer_json):
//
//   tokenizer_config.json "chat_template"   a string, or a list of
//                                           {"name", "template"} (wins)
//   chat_template.jinja                     transformers 5's file, with
//   additional_chat_templates/*.jinja       named extra templates
//   chat_template.json "chat_template"      the processor's file
//
// and written as GGUF keys as GGUFWriter.add_chat_template writes them:
// the default one as tokenizer.chat_template, each other as
// tokenizer.chat_template.<name> (name characters outside [A-Za-z0-9] as
// '_'), their names in tokenizer.chat_templates.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "formats/gguf/writer.h"

namespace trit::convert {

struct HfChatTemplates {
  std::optional<std::string> default_template;
  std::vector<std::pair<std::string, std::string>> named;  // (name, template), sorted by name
};

// Reads `dir`'s templates; none (both fields empty) when the directory has
// no tokenizer_config.json (SpecialVocab reads templates only with one) or
// no template. kCorrupt naming the file for JSON that is not what
// SpecialVocab reads (a chat_template that is neither a string nor a list
// is ignored, as SpecialVocab ignores it with a warning).
Expected<HfChatTemplates> ReadHfChatTemplates(const std::string& dir);

Status WriteHfChatTemplates(const HfChatTemplates& templates, gguf::Writer& writer);

}  // namespace trit::convert
