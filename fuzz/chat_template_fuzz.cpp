// Feeds arbitrary bytes to ChatTemplate::Compile as a template and applies
// whatever compiles to a small conversation. Every input must give an error
// or a rendering: under ASan + UBSan a crash, leak or overflow is a bug, and
// the output limit and step budget keep hostile templates from hanging.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/check.h"
#include "chat/chat_template.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view source(reinterpret_cast<const char*>(data), size);
  auto compiled = trit::chat::ChatTemplate::Compile(source);
  if (!compiled.ok()) return 0;
  static const std::vector<trit::chat::ChatMessage> kMessages = {
      {"system", "sys"}, {"user", "Hi 'there'\n"}, {"assistant", "  ok  "}, {"user", "héllo"}};
  trit::chat::ApplyOptions options;
  options.add_generation_prompt = true;
  options.bos_token = "<s>";
  options.eos_token = "</s>";
  options.max_output_bytes = 1 << 20;
  auto rendered = compiled->Apply(kMessages, options);
  if (rendered.ok()) TRIT_CHECK(rendered->size() <= options.max_output_bytes);
  return 0;
}
