// Chat templates of a model directory, in SpecialVocab's order of places.
#include "convert/hf_chat_template.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/json_nesting.h"
#include "convert/hf_config.h"

namespace trit::convert {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr int kMaxJsonDepth = 64;

Expected<Json> ReadJson(const fs::path& path) {
  Expected<std::string> text = ReadHfTextFile(path.string());
  if (!text.ok()) return text.status();
  if (!JsonNestingWithin(*text, kMaxJsonDepth)) {
    return Error(ErrorCode::kCorrupt, "{}: JSON nests deeper than {} levels", path.string(), kMaxJsonDepth);
  }
  Json j = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return Error(ErrorCode::kCorrupt, "{}: not a JSON object", path.string());
  }
  return j;
}

std::string SafeName(std::string_view name) {
  std::string out(name);
  for (char& c : out) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum) c = '_';
  }
  return out;
}

// A template list ({"name", "template"} objects) as add_chat_template reads
// it: entries without a name or a template are skipped.
HfChatTemplates FromList(const std::vector<std::pair<std::string, std::string>>& list) {
  HfChatTemplates out;
  for (const auto& [raw_name, text] : list) {
    const std::string name = SafeName(raw_name);
    if (name.empty()) continue;
    if (name == "default") {
      out.default_template = text;
    } else {
      out.named.erase(std::remove_if(out.named.begin(), out.named.end(), [&](const auto& p) { return p.first == name; }),
                      out.named.end());
      out.named.emplace_back(name, text);
    }
  }
  std::sort(out.named.begin(), out.named.end());
  return out;
}

std::optional<HfChatTemplates> FromJsonValue(const Json& v) {
  if (v.is_string()) return HfChatTemplates{v.get<std::string>(), {}};
  if (!v.is_array()) return std::nullopt;
  std::vector<std::pair<std::string, std::string>> list;
  for (const Json& e : v) {
    if (!e.is_object()) continue;
    auto name = e.find("name");
    auto text = e.find("template");
    if (name == e.end() || !name->is_string() || text == e.end() || !text->is_string()) continue;
    list.emplace_back(name->get<std::string>(), text->get<std::string>());
  }
  return FromList(list);
}

// chat_template.jinja (with additional_chat_templates/) or chat_template.json.
Expected<std::optional<HfChatTemplates>> ReadAlternative(const fs::path& root) {
  std::error_code ec;
  const fs::path jinja = root / "chat_template.jinja";
  if (fs::is_regular_file(jinja, ec)) {
    Expected<std::string> text = ReadHfTextFile(jinja.string());
    if (!text.ok()) return text.status();
    std::vector<std::pair<std::string, std::string>> list = {{"default", *text}};
    const fs::path extra = root / "additional_chat_templates";
    if (fs::is_directory(extra, ec)) {
      for (const fs::directory_entry& e : fs::directory_iterator(extra, ec)) {
        if (e.path().extension() != ".jinja") continue;
        Expected<std::string> t = ReadHfTextFile(e.path().string());
        if (!t.ok()) return t.status();
        list.emplace_back(e.path().stem().string(), *t);
      }
    }
    if (list.size() == 1) return std::optional<HfChatTemplates>(HfChatTemplates{*text, {}});
    return std::optional<HfChatTemplates>(FromList(list));
  }
  const fs::path json = root / "chat_template.json";
  if (fs::is_regular_file(json, ec)) {
    Expected<Json> j = ReadJson(json);
    if (!j.ok()) return j.status();
    auto it = j->find("chat_template");
    if (it == j->end()) return std::optional<HfChatTemplates>();
    return FromJsonValue(*it);
  }
  return std::optional<HfChatTemplates>();
}

}  // namespace

Expected<HfChatTemplates> ReadHfChatTemplates(const std::string& dir) {
  const fs::path root(dir);
  std::error_code ec;
  const fs::path config_path = root / "tokenizer_config.json";
  if (!fs::is_regular_file(config_path, ec)) return HfChatTemplates{};
  Expected<Json> config = ReadJson(config_path);
  if (!config.ok()) return config.status();
  if (config->empty()) return HfChatTemplates{};  // SpecialVocab stops at an empty config
  // tokenizer_config's key wins even when null or of a bad type (then: none).
  if (auto it = config->find("chat_template"); it != config->end()) {
    return FromJsonValue(*it).value_or(HfChatTemplates{});
  }
  Expected<std::optional<HfChatTemplates>> alt = ReadAlternative(root);
  if (!alt.ok()) return alt.status();
  return alt->value_or(HfChatTemplates{});
}

Status WriteHfChatTemplates(const HfChatTemplates& templates, gguf::Writer& w) {
  std::vector<std::string> names;
  for (const auto& [name, text] : templates.named) {
    if (Status s = w.SetMetadata(fmt::format("tokenizer.chat_template.{}", name), gguf::Value(text)); !s.ok()) {
      return s;
    }
    names.push_back(name);
  }
  if (!names.empty()) {
    if (Status s = w.SetMetadata("tokenizer.chat_templates", gguf::Value(gguf::Array::OfStrings(names))); !s.ok()) {
      return s;
    }
  }
  if (templates.default_template) {
    return w.SetMetadata("tokenizer.chat_template", gguf::Value(*templates.default_template));
  }
  return Status::Ok();
}

}  // namespace trit::convert
