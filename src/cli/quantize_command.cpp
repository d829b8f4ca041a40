// `trit quantize IN OUT TYPE`: writes a new GGUF file whose weight matrices
// are converted to TYPE. The conversion is convert/quantize_file.h (which
// tensors and the fallbacks: convert/quantize_plan.h); this file parses the
// flags and prints the per-tensor log and the report.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "base/units.h"
#include "cli/command.h"
#include "convert/quantize_file.h"
#include "convert/quantize_plan.h"
#include "formats/gguf/reader.h"

namespace trit::cli {
namespace {

struct QuantizeOptions {
  std::string input;
  std::string output;
  std::string type;
  std::string imatrix;  // llama.cpp importance-matrix file; empty: none
  bool strict = false;
  bool json = false;
  bool quiet = false;
  int threads = 0;  // 0: one per hardware thread
};

std::string SupportedOutputTypes() {
  std::string out;
  for (const quant::TypeInfo& t : quant::AllTypes()) {
    if (convert::IsQuantizeTarget(t)) out += fmt::format("{}{}", out.empty() ? "" : ", ", t.name);
  }
  return out;
}

int RunQuantize(const QuantizeOptions& opt) {
  const quant::TypeInfo* requested = quant::FindTypeByName(opt.type);
  if (requested == nullptr || !convert::IsQuantizeTarget(*requested)) {
    PrintError(fmt::format("'{}' is not a type trit can quantize to; supported: {}", opt.type,
                           SupportedOutputTypes()));
    return kExitUsage;
  }
  std::error_code ec;
  if (std::filesystem::equivalent(opt.input, opt.output, ec)) {
    PrintError(fmt::format("output '{}' is the input file; choose another path", opt.output));
    return kExitUsage;
  }

  Expected<gguf::File> file = gguf::File::Open(opt.input);
  if (!file.ok()) {
    PrintError(file.status().message());
    return kExitFailure;
  }
  const bool log = !opt.quiet && !opt.json;
  convert::QuantizeFileOptions options;
  std::optional<convert::ImportanceMatrix> importance;
  if (!opt.imatrix.empty()) {
    Expected<convert::ImportanceMatrix> read = convert::ReadImportanceMatrix(opt.imatrix);
    if (!read.ok()) {
      PrintError(fmt::format("--imatrix: {}", read.status().message()));
      return kExitFailure;
    }
    importance = std::move(read).value();
    options.importance = &*importance;
    if (requested->quantize_weighted == nullptr && !opt.json) {
      fmt::print(stderr,
                 "note: {} takes no importance weights (nor does it in llama-quantize); only tensors that fall "
                 "back to another type use the matrix\n",
                 requested->name);
    }
  }
  options.fallback = opt.strict ? convert::FallbackPolicy::kRefuse : convert::FallbackPolicy::kAllow;
  options.n_threads = opt.threads > 0 ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
  if (log) {
    options.on_tensor = [](size_t i, size_t n, const convert::TensorPlan& p, uint64_t out_bytes) {
      const gguf::TensorInfo& t = *p.tensor;
      std::string note = p.action == convert::TensorAction::kCopy ? fmt::format("kept ({})", p.reason)
                         : p.fallback                              ? fmt::format("fallback: {}", p.reason)
                                                                   : std::string();
      if (p.importance != nullptr) note += note.empty() ? "imatrix" : ", imatrix";
      fmt::print(stderr, "[{:>{}}/{}] {:<32} {:>6} -> {:<6} {:>10} -> {:<10} {}\n", i + 1,
                 fmt::formatted_size("{}", n), n, t.name, t.type->name, p.target->name, FormatBytes(t.n_bytes),
                 FormatBytes(out_bytes), note);
    };
  }
  Expected<std::vector<convert::TensorPlan>> plans = convert::QuantizeFile(*file, *requested, opt.output, options);
  if (!plans.ok()) {
    PrintError(plans.status().message());
    return kExitFailure;
  }
  const size_t n_planned = plans->size();

  // Report from the file as written, so the numbers are what is on disk.
  Expected<gguf::File> written = gguf::File::Open(opt.output);
  if (!written.ok()) {
    PrintError(fmt::format("the written file does not read back: {}", written.status().message()));
    return kExitFailure;
  }
  // The written file's tensors: I2_S scales may have moved into or out of
  // `.scale` tensors (convert/quantize_file.h), so they can differ from the plans.
  const size_t n = written->tensors().size();
  std::map<std::string, size_t> by_type;
  for (const gguf::TensorInfo& t : written->tensors()) ++by_type[std::string(t.type->name)];
  size_t converted = 0, fallbacks = 0, weighted = 0;
  for (const convert::TensorPlan& p : *plans) {
    converted += p.action == convert::TensorAction::kConvert;
    fallbacks += p.fallback;
    weighted += p.importance != nullptr;
  }
  if (opt.json) {
    nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
    for (const convert::TensorPlan& p : *plans) {
      tensors.push_back({{"name", p.tensor->name},
                         {"from", p.tensor->type->name},
                         {"to", p.target->name},
                         {"action", p.action == convert::TensorAction::kCopy ? "copy" : "convert"},
                         {"fallback", p.fallback},
                         {"importance", p.importance != nullptr},
                         {"reason", p.reason}});
    }
    nlohmann::ordered_json out = {{"input", opt.input},
                          {"output", opt.output},
                          {"type", requested->name},
                          {"input_bytes", file->file_size()},
                          {"output_bytes", written->file_size()},
                          {"output_tensors", n},
                          {"converted", converted},
                          {"fallbacks", fallbacks},
                          {"tensors", tensors}};
    if (options.importance != nullptr) {
      const convert::ImportanceMatrix& m = *options.importance;
      out["importance_matrix"] = {{"path", m.path},
                                  {"format", convert::FormatName(m.format)},
                                  {"entries", m.entries.size()},
                                  {"datasets", m.datasets},
                                  {"chunk_count", m.chunk_count},
                                  {"chunk_size", m.chunk_size},
                                  {"tensors_weighted", weighted}};
    }
    fmt::print("{}\n", out.dump(2));
  } else {
    std::string types;
    for (const auto& [name, count] : by_type) types += fmt::format("{}{} {}", types.empty() ? "" : ", ", count, name);
    const std::string weighted_note =
        options.importance != nullptr ? fmt::format(", {} weighted by the importance matrix", weighted) : "";
    const std::string scale_note =
        n > n_planned   ? fmt::format(", {} .scale tensors added (the i2_s scales, kept exact)", n - n_planned)
        : n < n_planned ? fmt::format(", {} .scale tensors folded into i2_s scales", n_planned - n)
                        : std::string();
    fmt::print("wrote {}: {} -> {}; {} tensors ({}), {} converted, {} fell back{}{}\n", opt.output,
               FormatBytes(file->file_size()), FormatBytes(written->file_size()), n, types, converted, fallbacks,
               weighted_note, scale_note);
  }
  return kExitSuccess;
}

}  // namespace

Command AddQuantizeCommand(CLI::App& parent) {
  auto opt = std::make_shared<QuantizeOptions>();
  CLI::App* app = parent.add_subcommand("quantize", "Write a copy of a GGUF model with its weight matrices in another type");
  app->add_option("input", opt->input, "GGUF file to read")->required();
  app->add_option("output", opt->output, "GGUF file to write (written to a temporary name, then renamed)")->required();
  app->add_option("type", opt->type, "Target type, e.g. q8_0, q4_0, q4_K, q6_K, tq1_0, tq2_0, i2_s, mxfp4, f16, bf16")->required();
  app->add_option("--imatrix", opt->imatrix,
                  "Importance matrix from llama.cpp's llama-imatrix (GGUF or legacy .dat): weighs each column's "
                  "error by how hard the model's inputs drive it, as llama-quantize --imatrix does")
      ->check(CLI::ExistingFile);
  app->add_flag("--strict", opt->strict,
                "Refuse a tensor whose row length does not fit TYPE's block size instead of falling back");
  app->add_flag("--json", opt->json, "Print a JSON report of what each tensor became");
  app->add_option("-t,--threads", opt->threads, "Threads converting rows (0: one per hardware thread); the output bytes do not depend on it")
      ->default_val(0)
      ->check(CLI::NonNegativeNumber);
  app->add_flag("-q,--quiet", opt->quiet, "Do not print a line per tensor");
  app->footer(
      "Only weight matrices are converted; norms, biases and other 1-D tensors are copied.\n"
      "A matrix whose row length is not a multiple of TYPE's block size falls back\n"
      "(q4_K -> q5_0, q5_K -> q5_1, q6_K -> q8_0, tq1_0/tq2_0 -> q4_0, then f16), as llama-quantize does.\n"
      "mxfp4 puts every matrix in mxfp4, in the bytes ggml's quantizer writes (llama-quantize --pure\n"
      "MXFP4_MOE); its MXFP4_MOE preset without --pure (experts mxfp4, other matrices q8_0) has no trit\n"
      "equivalent yet.\n"
      "i2_s (bitnet.cpp's BitNet format, one scale per tensor) takes weights that are already ternary\n"
      "(a BitNet checkpoint; others are refused by name), keeps the embeddings and folds a weight's .scale\n"
      "tensor into its scale. From i2_s, tq1_0 and tq2_0 are exact: d = 1 blocks and the scale in a .scale\n"
      "tensor, so i2_s -> tq2_0 -> i2_s gives the same bytes back.\n"
      "With --imatrix, q4_0, q4_1, q5_0, q5_1, q4_K, q5_K and q6_K come out byte for byte as\n"
      "llama-quantize --pure --imatrix writes them; iq4_nl and iq4_xs weigh trit's own search the same way;\n"
      "q8_0, mxfp4, the float types and tq1_0/tq2_0 take no weights (nor in llama.cpp). A tensor the matrix has\n"
      "no entry for (token_embd, often output) is quantized without.\n\n"
      "Examples:\n  trit quantize models/stories260K.gguf /tmp/s-q8.gguf q8_0\n"
      "  trit quantize big-f16.gguf big-tq2.gguf tq2_0 --strict\n"
      "  trit quantize ggml-model-i2_s.gguf bitnet-tq1_0.gguf tq1_0      # the same model in 1.69 bits\n"
      "  llama-imatrix -m big-f16.gguf -f calibration.txt -o big.imatrix.gguf\n"
      "  trit quantize big-f16.gguf big-q4k.gguf q4_K --imatrix big.imatrix.gguf");
  return {app, [opt] { return RunQuantize(*opt); }};
}

}  // namespace trit::cli
