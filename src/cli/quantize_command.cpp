// `trit quantize IN OUT TYPE`: writes a new GGUF file whose weight matrices
// are converted to TYPE (see quantize_plan.h for which tensors and the
// fallbacks). The output is written under a temporary name and renamed into
// place only when complete.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "cli/command.h"
#include "cli/format_util.h"
#include "cli/quantize_plan.h"
#include "formats/gguf/reader.h"
#include "formats/gguf/writer.h"

namespace trit::cli {
namespace {

struct QuantizeOptions {
  std::string input;
  std::string output;
  std::string type;
  bool strict = false;
  bool json = false;
  bool quiet = false;
  int threads = 0;  // 0: one per hardware thread
};

std::string SupportedOutputTypes() {
  std::string out;
  for (const quant::TypeInfo& t : quant::AllTypes()) {
    if (t.quantize != nullptr) out += fmt::format("{}{}", out.empty() ? "" : ", ", t.name);
  }
  return out;
}

// Dequantizes the source tensor to f32 and quantizes it into `out`, rows
// split over `n_threads` threads. Both types' blocks never straddle a row
// (the reader and the plan checked the row length), and the quantizers are
// row-independent, so the bytes do not depend on the thread count.
void ConvertTensor(const gguf::File& file, const TensorPlan& plan, std::span<uint8_t> out, int n_threads) {
  const gguf::TensorInfo& t = *plan.tensor;
  const quant::TypeInfo& from = *t.type;
  const quant::TypeInfo& to = *plan.target;
  const int64_t row = t.shape[0];
  const int64_t n_rows = t.n_elements / row;
  const uint64_t from_row_bytes = *quant::RowBytes(from, row);
  const uint64_t to_row_bytes = *quant::RowBytes(to, row);
  const uint8_t* src = file.TensorData(t).data();
  auto convert_rows = [&](int64_t first, int64_t last) {
    std::vector<float> values(static_cast<size_t>(row));
    for (int64_t r = first; r < last; ++r) {
      from.dequantize(src + r * from_row_bytes, values.data(), row);
      to.quantize(values.data(), out.data() + r * to_row_bytes, row);
    }
  };
  const int64_t n_workers = std::clamp<int64_t>(n_threads, 1, n_rows);
  std::vector<std::thread> workers;
  for (int64_t w = 1; w < n_workers; ++w) {
    workers.emplace_back(convert_rows, n_rows * w / n_workers, n_rows * (w + 1) / n_workers);
  }
  convert_rows(0, n_rows / n_workers);
  for (std::thread& w : workers) w.join();
}

int RunQuantize(const QuantizeOptions& opt) {
  const quant::TypeInfo* requested = quant::FindTypeByName(opt.type);
  if (requested == nullptr || requested->quantize == nullptr) {
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
  Expected<std::vector<TensorPlan>> plans = PlanQuantization(
      file->tensors(), *requested, opt.strict ? FallbackPolicy::kRefuse : FallbackPolicy::kAllow);
  if (!plans.ok()) {
    PrintError(plans.status().WithContext(opt.input).message());
    return kExitFailure;
  }

  gguf::Writer writer(file->header().alignment);
  for (const gguf::MetadataEntry& e : file->metadata()) {
    if (Status s = writer.SetMetadata(e.key, e.value); !s.ok()) {
      PrintError(s.WithContext(opt.input).message());
      return kExitFailure;
    }
  }
  bool any_converted = false;
  for (const TensorPlan& p : *plans) any_converted |= p.action == TensorAction::kConvert;
  if (any_converted) {
    (void)writer.SetMetadata("general.quantization_version", gguf::Value(uint32_t{2}));
    if (const int ftype = LlamaFileType(requested->type); ftype >= 0) {
      (void)writer.SetMetadata("general.file_type", gguf::Value(static_cast<uint32_t>(ftype)));
    }
  }

  const bool log = !opt.quiet && !opt.json;
  const int n_threads = opt.threads > 0 ? opt.threads : std::max(1u, std::thread::hardware_concurrency());
  const size_t n = plans->size();
  for (size_t i = 0; i < n; ++i) {
    const TensorPlan& p = (*plans)[i];
    const gguf::File& src = *file;
    gguf::Writer::FillFn fill = [&src, &p, i, n, log, n_threads](std::span<uint8_t> out) -> Status {
      const gguf::TensorInfo& t = *p.tensor;
      if (p.action == TensorAction::kCopy) {
        std::span<const uint8_t> data = src.TensorData(t);
        std::copy(data.begin(), data.end(), out.begin());
      } else {
        ConvertTensor(src, p, out, n_threads);
      }
      if (log) {
        std::string note = p.action == TensorAction::kCopy ? fmt::format("kept ({})", p.reason)
                           : p.fallback ? fmt::format("fallback: {}", p.reason)
                                        : std::string();
        fmt::print(stderr, "[{:>{}}/{}] {:<32} {:>6} -> {:<6} {:>10} -> {:<10} {}\n", i + 1,
                   fmt::formatted_size("{}", n), n, t.name, t.type->name, p.target->name, HumanBytes(t.n_bytes),
                   HumanBytes(out.size()), note);
      }
      return Status::Ok();
    };
    if (Status s = writer.AddTensor(p.tensor->name, p.target->type, p.tensor->shape, std::move(fill)); !s.ok()) {
      PrintError(s.WithContext(opt.output).message());
      return kExitFailure;
    }
  }
  if (Status s = writer.WriteFile(opt.output); !s.ok()) {
    PrintError(s.message());
    return kExitFailure;
  }

  // Report from the file as written, so the numbers are what is on disk.
  Expected<gguf::File> written = gguf::File::Open(opt.output);
  if (!written.ok()) {
    PrintError(fmt::format("the written file does not read back: {}", written.status().message()));
    return kExitFailure;
  }
  std::map<std::string, size_t> by_type;
  size_t converted = 0, fallbacks = 0;
  for (const TensorPlan& p : *plans) {
    ++by_type[std::string(p.target->name)];
    converted += p.action == TensorAction::kConvert;
    fallbacks += p.fallback;
  }
  if (opt.json) {
    nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
    for (const TensorPlan& p : *plans) {
      tensors.push_back({{"name", p.tensor->name},
                         {"from", p.tensor->type->name},
                         {"to", p.target->name},
                         {"action", p.action == TensorAction::kCopy ? "copy" : "convert"},
                         {"fallback", p.fallback},
                         {"reason", p.reason}});
    }
    nlohmann::ordered_json out = {{"input", opt.input},
                          {"output", opt.output},
                          {"type", requested->name},
                          {"input_bytes", file->file_size()},
                          {"output_bytes", written->file_size()},
                          {"converted", converted},
                          {"fallbacks", fallbacks},
                          {"tensors", tensors}};
    fmt::print("{}\n", out.dump(2));
  } else {
    std::string types;
    for (const auto& [name, count] : by_type) types += fmt::format("{}{} {}", types.empty() ? "" : ", ", count, name);
    fmt::print("wrote {}: {} -> {}; {} tensors ({}), {} converted, {} fell back\n", opt.output,
               HumanBytes(file->file_size()), HumanBytes(written->file_size()), n, types, converted, fallbacks);
  }
  return kExitSuccess;
}

}  // namespace

Command AddQuantizeCommand(CLI::App& parent) {
  auto opt = std::make_shared<QuantizeOptions>();
  CLI::App* app = parent.add_subcommand("quantize", "Write a copy of a GGUF model with its weight matrices in another type");
  app->add_option("input", opt->input, "GGUF file to read")->required();
  app->add_option("output", opt->output, "GGUF file to write (written to a temporary name, then renamed)")->required();
  app->add_option("type", opt->type, "Target type, e.g. q8_0, q4_0, q4_K, q6_K, tq1_0, tq2_0, f16, bf16")->required();
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
      "(q4_K -> q5_0, q5_K -> q5_1, q6_K -> q8_0, tq1_0/tq2_0 -> q4_0, then f16), as llama-quantize does.\n\n"
      "Examples:\n  trit quantize models/stories260K.gguf /tmp/s-q8.gguf q8_0\n"
      "  trit quantize big-f16.gguf big-tq2.gguf tq2_0 --strict");
  return {app, [opt] { return RunQuantize(*opt); }};
}

}  // namespace trit::cli
