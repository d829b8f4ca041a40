// `trit show FILE [--json] [--tensors]`: what a GGUF file holds.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <algorithm>
#include <nlohmann/json.hpp>

#include "base/units.h"
#include "cli/command.h"
#include "cli/format_util.h"
#include "cli/metadata_json.h"
#include "formats/gguf/model_summary.h"
#include "formats/gguf/reader.h"
#include "store/resolve.h"

namespace trit::cli {
namespace {

struct ShowOptions {
  std::string path;
  bool json = false;
  bool tensors = false;
  size_t max_array = 16;
};

nlohmann::ordered_json TensorJson(const gguf::TensorInfo& t) {
  return {{"name", t.name},      {"type", t.type->name},     {"shape", t.shape},
          {"offset", t.offset},  {"bytes", t.n_bytes},       {"elements", t.n_elements}};
}

nlohmann::ordered_json OptionalJson(const std::optional<uint64_t>& v) {
  return v.has_value() ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json ShowJson(const gguf::File& file, const gguf::ModelSummary& s, size_t max_array) {
  nlohmann::ordered_json out;
  out["path"] = file.path();
  out["format"] = "gguf";
  out["version"] = file.version();
  out["architecture"] = s.architecture.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s.architecture);
  out["name"] = s.name.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s.name);
  out["parameters"] = s.parameters;
  out["file_bytes"] = file.file_size();
  out["tensor_bytes"] = s.tensor_bytes;
  out["tensor_count"] = file.tensors().size();
  out["alignment"] = file.header().alignment;
  out["data_offset"] = file.header().data_offset;
  out["context_length"] = OptionalJson(s.context_length);
  out["block_count"] = OptionalJson(s.block_count);
  out["embedding_length"] = OptionalJson(s.embedding_length);
  // A per-layer value is the array of it.
  out["feed_forward_length"] =
      s.feed_forward_per_layer.empty() ? OptionalJson(s.feed_forward_length) : nlohmann::ordered_json(s.feed_forward_per_layer);
  out["head_count"] = OptionalJson(s.head_count);
  out["head_count_kv"] =
      s.head_count_kv_per_layer.empty() ? OptionalJson(s.head_count_kv) : nlohmann::ordered_json(s.head_count_kv_per_layer);
  out["experts"] = s.expert_count ? nlohmann::ordered_json{{"count", *s.expert_count},
                                                            {"used", OptionalJson(s.expert_used_count)},
                                                            {"feed_forward_length",
                                                             OptionalJson(s.expert_feed_forward_length)}}
                                   : nlohmann::ordered_json(nullptr);
  out["tokenizer"] = {{"model", s.tokenizer_model.empty() ? nlohmann::ordered_json(nullptr)
                                                           : nlohmann::ordered_json(s.tokenizer_model)},
                      {"tokens", s.vocab_size}};
  out["chat_template"] = s.has_chat_template;
  nlohmann::ordered_json types = nlohmann::ordered_json::object();
  for (const gguf::TypeUsage& u : s.types) {
    types[u.type] = {{"tensors", u.tensors}, {"bytes", u.bytes}, {"elements", u.elements}};
  }
  out["types"] = types;
  nlohmann::ordered_json metadata = nlohmann::ordered_json::object();
  for (const gguf::MetadataEntry& e : file.metadata()) metadata[e.key] = ValueToJson(e.value, max_array);
  out["metadata"] = metadata;
  nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
  for (const gguf::TensorInfo& t : file.tensors()) tensors.push_back(TensorJson(t));
  out["tensors"] = tensors;
  return out;
}

std::string OptionalText(const std::optional<uint64_t>& v) {
  return v.has_value() ? fmt::format("{}", *v) : "-";
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) out += fmt::format("{}{}", i ? " x " : "", shape[i]);
  return out;
}

// A per-layer value as its range ("1-2 by layer"), else the scalar.
std::string LayerText(const std::optional<uint64_t>& scalar, const std::vector<uint64_t>& per_layer) {
  if (per_layer.empty()) return OptionalText(scalar);
  const auto [lo, hi] = std::minmax_element(per_layer.begin(), per_layer.end());
  return *lo == *hi ? std::to_string(*lo) : fmt::format("{}-{} by layer", *lo, *hi);
}

void PrintHuman(const gguf::File& file, const gguf::ModelSummary& s, bool list_tensors) {
  fmt::print("{}\n", file.path());
  fmt::print("  format         GGUF v{}, {} ({} bytes), alignment {}\n", file.version(),
             FormatBytes(file.file_size()), file.file_size(), file.header().alignment);
  fmt::print("  architecture   {}{}\n", s.architecture.empty() ? "(none)" : s.architecture,
             s.name.empty() ? "" : fmt::format("  (name {})", Quoted(s.name, 80)));
  fmt::print("  parameters     {} ({})\n", HumanCount(s.parameters), s.parameters);
  std::string types;
  for (const gguf::TypeUsage& u : s.types) {
    types += fmt::format("{}{} {} tensors {}", types.empty() ? "" : ", ", u.type, u.tensors, FormatBytes(u.bytes));
  }
  fmt::print("  tensors        {}: {}\n", file.tensors().size(), types.empty() ? "none" : types);
  if (!s.architecture.empty()) {
    fmt::print("  context        {}\n", OptionalText(s.context_length));
    fmt::print("  layers         {}\n", OptionalText(s.block_count));
    fmt::print("  heads          {} (kv {}), embedding {}, feed-forward {}\n", OptionalText(s.head_count),
               LayerText(s.head_count_kv, s.head_count_kv_per_layer), OptionalText(s.embedding_length),
               LayerText(s.feed_forward_length, s.feed_forward_per_layer));
    if (s.expert_count) {
      fmt::print("  experts        {} ({} used per token), feed-forward {} each\n", *s.expert_count,
                 OptionalText(s.expert_used_count), OptionalText(s.expert_feed_forward_length));
    }
  }
  fmt::print("  tokenizer      {}\n",
             s.tokenizer_model.empty() ? "(none)" : fmt::format("{}, {} tokens", s.tokenizer_model, s.vocab_size));
  fmt::print("  chat template  {}\n", s.has_chat_template ? "yes" : "no");
  fmt::print("metadata ({} keys)\n", file.metadata().size());
  size_t key_width = 0;
  for (const gguf::MetadataEntry& e : file.metadata()) key_width = std::max(key_width, e.key.size());
  for (const gguf::MetadataEntry& e : file.metadata()) {
    fmt::print("  {:<{}}  {:<7} {}\n", e.key, key_width, gguf::ValueTypeName(e.value.type()),
               ValueToText(e.value, 100));
  }
  if (list_tensors) {
    fmt::print("tensors ({})\n", file.tensors().size());
    size_t name_width = 0;
    for (const gguf::TensorInfo& t : file.tensors()) name_width = std::max(name_width, t.name.size());
    for (const gguf::TensorInfo& t : file.tensors()) {
      fmt::print("  {:<{}}  {:<6} {:<20} offset {:>12}  {}\n", t.name, name_width, t.type->name,
                 ShapeText(t.shape), t.offset, FormatBytes(t.n_bytes));
    }
  } else if (!file.tensors().empty()) {
    fmt::print("({} tensors; list them with --tensors)\n", file.tensors().size());
  }
}

int RunShow(const ShowOptions& opt) {
  Expected<std::string> path = store::ResolveModelArgument(opt.path);  // a path, a store name or a URL
  if (!path.ok()) {
    PrintError(path.status().message());
    return kExitFailure;
  }
  Expected<gguf::File> file = gguf::File::Open(*path);
  if (!file.ok()) {
    PrintError(file.status().message());
    return kExitFailure;
  }
  const gguf::ModelSummary summary = gguf::Summarize(*file);
  if (opt.json) {
    // Token strings need not be valid UTF-8; replace bad bytes rather than fail.
    fmt::print("{}\n", ShowJson(*file, summary, opt.max_array)
                           .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  } else {
    PrintHuman(*file, summary, opt.tensors);
  }
  return kExitSuccess;
}

}  // namespace

Command AddShowCommand(CLI::App& parent) {
  auto opt = std::make_shared<ShowOptions>();
  CLI::App* app = parent.add_subcommand("show", "Describe a GGUF model file: architecture, sizes, metadata, tensors");
  app->add_option("file", opt->path, "GGUF file to read, a model name from trit models list, or a URL to pull")->required();
  app->add_flag("--json", opt->json,
                "Print one JSON object (format, version, architecture, parameters, file_bytes, tensor_count, "
                "metadata, tensors, ...) instead of text");
  app->add_flag("--tensors", opt->tensors, "List every tensor (name, type, shape, offset, size) in text output");
  app->add_option("--max-array", opt->max_array,
                  "In --json metadata, arrays longer than this are summarised by element type and length")
      ->default_val(16)
      ->check(CLI::NonNegativeNumber);
  app->footer("Examples:\n  trit show models/stories260K.gguf\n  trit show model.gguf --json | jq .architecture");
  return {app, [opt] { return RunShow(*opt); }};
}

}  // namespace trit::cli
