// chat_render TEMPLATE_FILE CONVERSATION_JSON: prints the template applied
// to the conversation, for tests/python/chat_template_test.py to compare with
// jinja2. The JSON is a chat request as an OpenAI client sends it:
// {"messages": [{"role", "content" (a string or null), "name",
//   "tool_calls": [{"id", "type", "function": {"name", "arguments" (JSON
//   text)}}], "tool_call_id"}...], "tools": [...], "add_generation_prompt":
//   bool, "bos_token": str, "eos_token": str, "extra": {name: str}}.
// On a template error prints it to stderr and exits 1.
#include <fstream>
#include <iostream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "chat/chat_template.h"

namespace {

// ordered_json: the tools' key order must reach the template unchanged.
using Json = nlohmann::ordered_json;

trit::chat::ChatMessage ReadMessage(const Json& m) {
  trit::chat::ChatMessage message;
  message.role = m.at("role").get<std::string>();
  const Json& content = m.at("content");
  if (content.is_null()) {
    message.content_is_null = true;
  } else {
    message.content = content.get<std::string>();
  }
  message.name = m.value("name", "");
  message.tool_call_id = m.value("tool_call_id", "");
  if (m.contains("tool_calls")) {
    for (const Json& call : m.at("tool_calls")) {
      const Json& function = call.at("function");
      message.tool_calls.push_back({call.value("id", ""), function.at("name").get<std::string>(),
                                    function.at("arguments").get<std::string>()});
    }
  }
  return message;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: chat_render TEMPLATE_FILE CONVERSATION_JSON\n";
    return 2;
  }
  std::ifstream template_file(argv[1], std::ios::binary);
  std::ifstream json_file(argv[2], std::ios::binary);
  if (!template_file || !json_file) {
    std::cerr << "chat_render: cannot open input\n";
    return 2;
  }
  const std::string source((std::istreambuf_iterator<char>(template_file)), std::istreambuf_iterator<char>());
  const Json conversation = Json::parse(json_file);

  auto compiled = trit::chat::ChatTemplate::Compile(source);
  if (!compiled.ok()) {
    std::cerr << compiled.status().message() << "\n";
    return 1;
  }
  std::vector<trit::chat::ChatMessage> messages;
  for (const Json& m : conversation.at("messages")) messages.push_back(ReadMessage(m));
  trit::chat::ApplyOptions options;
  options.add_generation_prompt = conversation.value("add_generation_prompt", false);
  options.bos_token = conversation.value("bos_token", "");
  options.eos_token = conversation.value("eos_token", "");
  if (conversation.contains("tools")) options.tools_json = conversation.at("tools").dump();
  if (conversation.contains("extra")) {
    for (const auto& [name, value] : conversation.at("extra").items()) {
      options.extra_variables.emplace_back(name, value.get<std::string>());
    }
  }
  auto rendered = compiled->Apply(messages, options);
  if (!rendered.ok()) {
    std::cerr << rendered.status().message() << "\n";
    return 1;
  }
  std::cout << *rendered;
  return 0;
}
