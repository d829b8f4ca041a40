#include "runtime/prompt_builder.h"

#include "base/check.h"

namespace trit::runtime {

Expected<PromptBuilder> PromptBuilder::Create(const gguf::File& file, const tokenizer::Tokenizer& tokenizer,
                                              bool raw) {
  if (raw || file.Find("tokenizer.chat_template") == nullptr) return PromptBuilder(tokenizer, std::nullopt);
  TRIT_ASSIGN_OR_RETURN(const std::string source, file.GetString("tokenizer.chat_template"));
  Expected<chat::ChatTemplate> tmpl = chat::ChatTemplate::Compile(source);
  if (!tmpl.ok()) {
    return tmpl.status().WithContext("the model's chat template cannot be used");
  }
  return PromptBuilder(tokenizer, std::move(tmpl).value());
}

Expected<std::vector<tokenizer::TokenId>> PromptBuilder::Build(const std::vector<chat::ChatMessage>& messages,
                                                               const TemplateInputs& inputs) const {
  const tokenizer::Vocab& vocab = tokenizer_->vocab();
  if (!template_.has_value()) {
    const std::string text = messages.empty() ? std::string() : messages.back().content;
    return tokenizer_->Encode(text, {.add_special = true, .parse_special = false});
  }
  TRIT_ASSIGN_OR_RETURN(const std::string text, Render(messages, /*add_generation_prompt=*/true, inputs));
  const tokenizer::SpecialIds& sp = vocab.special();
  // Templates usually write the BOS text themselves; do not add a second one.
  const std::string bos_text = sp.bos != tokenizer::kNoToken ? std::string(vocab.text(sp.bos)) : std::string();
  const bool template_wrote_bos = !bos_text.empty() && text.starts_with(bos_text);
  return tokenizer_->Encode(text, {.add_special = !template_wrote_bos, .parse_special = true});
}

Expected<std::string> PromptBuilder::Render(const std::vector<chat::ChatMessage>& messages, bool add_generation_prompt,
                                            const TemplateInputs& inputs) const {
  TRIT_CHECK(template_.has_value());
  const tokenizer::Vocab& vocab = tokenizer_->vocab();
  chat::ApplyOptions options;
  options.add_generation_prompt = add_generation_prompt;
  options.tools_json = std::string(inputs.tools_json);
  options.kwargs_json = std::string(inputs.kwargs_json);
  const tokenizer::SpecialIds& sp = vocab.special();
  if (sp.bos != tokenizer::kNoToken) options.bos_token = vocab.text(sp.bos);
  if (sp.eos != tokenizer::kNoToken) options.eos_token = vocab.text(sp.eos);
  Expected<std::string> text = template_->Apply(messages, options);
  if (!text.ok()) return text.status().WithContext("chat template");
  return text;
}

}  // namespace trit::runtime
