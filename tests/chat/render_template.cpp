// chat_render TEMPLATE_FILE CONVERSATION_JSON: prints the template applied
// to the conversation, for tests/python/chat_template_test.py to compare with
// jinja2. The JSON is {"messages": [{"role", "content"}...],
// "add_generation_prompt": bool, "bos_token": str, "eos_token": str,
// "extra": {name: str}}. On a template error prints it to stderr and exits 1.
#include <fstream>
#include <iostream>
#include <iterator>

#include <nlohmann/json.hpp>

#include "chat/chat_template.h"

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
  const nlohmann::json conversation = nlohmann::json::parse(json_file);

  auto compiled = trit::chat::ChatTemplate::Compile(source);
  if (!compiled.ok()) {
    std::cerr << compiled.status().message() << "\n";
    return 1;
  }
  std::vector<trit::chat::ChatMessage> messages;
  for (const auto& m : conversation.at("messages")) {
    messages.push_back({m.at("role").get<std::string>(), m.at("content").get<std::string>()});
  }
  trit::chat::ApplyOptions options;
  options.add_generation_prompt = conversation.value("add_generation_prompt", false);
  options.bos_token = conversation.value("bos_token", "");
  options.eos_token = conversation.value("eos_token", "");
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
