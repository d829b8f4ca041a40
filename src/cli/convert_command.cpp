// `trit convert HF_DIR OUT.gguf [--type f32|f16|bf16|q8_0]`: a Hugging Face model
// directory written as a GGUF file llama.cpp and trit load. The conversion
// is convert/hf_to_gguf.h; this file parses the flags and prints the
// per-tensor progress (stderr) and the report (stdout, or --json).
#include <fmt/format.h>

#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "base/units.h"
#include "cli/command.h"
#include "convert/hf_tensor_data.h"
#include "convert/hf_ternary.h"
#include "convert/hf_to_gguf.h"
#include "formats/gguf/reader.h"
#include "quant/types.h"

namespace trit::cli {
namespace {

struct ConvertOptions {
  std::string input;
  std::string output;
  std::string type = "f16";
  bool json = false;
  bool quiet = false;
};

int RunConvert(const ConvertOptions& opt) {
  convert::HfConvertOptions options;
  const quant::TypeInfo* type = quant::FindTypeByName(opt.type);
  if (type == nullptr || !(convert::IsHfConvertType(type->type) || convert::IsTernaryType(type->type))) {
    PrintError(fmt::format("--type '{}': trit convert writes {}, and i2_s, tq2_0 or tq1_0 for BitNet checkpoints",
                           opt.type, convert::HfConvertTypeNames()));
    return kExitUsage;
  }
  options.type = type->type;
  std::error_code ec;
  if (!std::filesystem::is_directory(opt.input, ec)) {
    PrintError(fmt::format("'{}' is not a directory; trit convert reads a Hugging Face model directory "
                           "(config.json, model.safetensors, tokenizer.json)",
                           opt.input));
    return kExitUsage;
  }
  if (!opt.quiet) {
    options.on_tensor = [](size_t i, size_t n, const convert::HfConvertedTensor& t) {
      std::string shape;
      for (int64_t d : t.gguf_shape) shape += fmt::format("{}{}", shape.empty() ? "" : " x ", d);
      fmt::print(stderr, "[{:>{}}/{}] {:<28} {:>4} -> {:<3} {:<12} {:>10}  ({})\n", i + 1,
                 fmt::formatted_size("{}", n), n, t.gguf_name, safetensors::DtypeName(t.from),
                 quant::GetType(t.to).name, shape, FormatBytes(t.out_bytes), t.hf_name);
    };
  }
  Expected<convert::HfConvertReport> report = convert::ConvertHfToGguf(opt.input, opt.output, options);
  if (!report.ok()) {
    PrintError(report.status().message());
    return kExitFailure;
  }
  Expected<gguf::File> written = gguf::File::Open(opt.output);
  if (!written.ok()) {
    PrintError(fmt::format("the written file does not read back: {}", written.status().message()));
    return kExitFailure;
  }
  std::map<std::string, size_t> by_type;
  for (const convert::HfConvertedTensor& t : report->tensors) ++by_type[std::string(quant::GetType(t.to).name)];
  const std::string pooling =
      report->pooling ? std::string(convert::PoolingTypeName(*report->pooling)) : std::string("not set");
  if (opt.json) {
    nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
    for (const convert::HfConvertedTensor& t : report->tensors) {
      tensors.push_back({{"hf_name", t.hf_name},
                         {"name", t.gguf_name},
                         {"from", safetensors::DtypeName(t.from)},
                         {"type", quant::GetType(t.to).name},
                         {"shape", t.gguf_shape},
                         {"bytes", t.out_bytes}});
    }
    nlohmann::ordered_json dropped = nlohmann::ordered_json::array();
    for (const auto& [name, why] : report->dropped) dropped.push_back({{"hf_name", name}, {"reason", why}});
    nlohmann::ordered_json out = {{"input", opt.input},
                                  {"output", opt.output},
                                  {"hf_architecture", report->hf_architecture},
                                  {"architecture", report->gguf_arch},
                                  {"name", report->name},
                                  {"type", type->name},
                                  {"pooling", pooling},
                                  {"n_vocab", report->n_vocab},
                                  {"output_bytes", written->file_size()},
                                  {"tensors", tensors},
                                  {"dropped", dropped}};
    fmt::print("{}\n", out.dump(2));
    return kExitSuccess;
  }
  std::string types;
  for (const auto& [name, count] : by_type) types += fmt::format("{}{} {}", types.empty() ? "" : ", ", count, name);
  fmt::print("wrote {}: {} ({} -> {}), {}; {} tensors ({}), {} dropped, {} tokens, pooling {}\n", opt.output,
             report->name, report->hf_architecture, report->gguf_arch, FormatBytes(written->file_size()),
             report->tensors.size(), types, report->dropped.size(), report->n_vocab, pooling);
  return kExitSuccess;
}

}  // namespace

Command AddConvertCommand(CLI::App& parent) {
  auto opt = std::make_shared<ConvertOptions>();
  CLI::App* app = parent.add_subcommand("convert", "Write a Hugging Face model directory as a GGUF file");
  app->add_option("input", opt->input, "Hugging Face model directory (config.json, model.safetensors, tokenizer.json)")
      ->required();
  app->add_option("output", opt->output, "GGUF file to write (written to a temporary name, then renamed)")
      ->required();
  app->add_option("--type", opt->type,
                  "Type of the weight matrices: f16 (default), f32, bf16 or q8_0; norms, biases and "
                  "position/token-type embeddings stay f32, and q8_0 matrices whose rows are not whole 32-value "
                  "blocks f16, as llama.cpp's converter writes them; for BitNet checkpoints also i2_s, tq2_0 or tq1_0 "
                  "(its ternary weights in that type, exactly; embeddings f16)")
      ->default_val("f16");
  app->add_flag("--json", opt->json, "Print a JSON report of every tensor written and dropped");
  app->add_flag("-q,--quiet", opt->quiet, "Do not print a line per tensor");
  app->footer(
      "Architectures: BERT (BertModel, BertForMaskedLM), e.g. sentence-transformers/all-MiniLM-L6-v2;\n"
      "llama (LlamaForCausalLM), qwen2 (Qwen2ForCausalLM), qwen3 (Qwen3ForCausalLM),\n"
      "gemma3 (Gemma3ForCausalLM, text only), qwen35 (Qwen3_5ForCausalLM or the text model of\n"
      "Qwen3_5ForConditionalGeneration, without the MTP block), gemma4 (Gemma4ForCausalLM or the\n"
      "text model of Gemma4ForConditionalGeneration; dense, not the MoE 26B-A4B).\n"
      "SentencePiece vocabularies come from tokenizer.model.\n"
      "Names, shapes, types and metadata keys are those llama.cpp's convert_hf_to_gguf.py writes;\n"
      "a tensor trit cannot map is refused by name, never left out silently. docs/CONVERT.md.\n\n"
      "Example:\n  trit convert ~/models/all-MiniLM-L6-v2 /tmp/minilm-f16.gguf\n"
      "  trit convert ~/models/all-MiniLM-L6-v2 /tmp/minilm-q8_0.gguf --type q8_0 --json");
  return {app, [opt] { return RunConvert(*opt); }};
}

}  // namespace trit::cli
