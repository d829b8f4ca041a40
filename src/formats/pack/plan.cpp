#include "formats/pack/plan.h"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/json_nesting.h"

namespace trit::pack {

namespace {

using Json = nlohmann::json;

constexpr int kMaxDepth = 16;
constexpr size_t kMaxPlanBytes = size_t{16} << 20;
constexpr int64_t kMaxDimension = int64_t{1} << 31;  // K, N, M and layer numbers
constexpr size_t kMaxNameBytes = 255;
constexpr std::string_view kLayerPlaceholder = "{layer}";

Status Bad(const std::string& field, std::string_view what) {
  return Error(ErrorCode::kCorrupt, "plan.json: {}: {}", field, what);
}

Status ReadString(const Json& v, const std::string& field, std::string* out) {
  if (!v.is_string() || v.get_ref<const std::string&>().empty()) return Bad(field, "expected a non-empty string");
  if (v.get_ref<const std::string&>().size() > kMaxNameBytes) return Bad(field, fmt::format("longer than {} bytes", kMaxNameBytes));
  *out = v.get<std::string>();
  return Status::Ok();
}

Status ReadFileName(const Json& v, const std::string& field, std::string* out) {
  if (Status s = ReadString(v, field, out); !s.ok()) return s;
  if (!IsPlainFileName(*out)) return Bad(field, fmt::format("'{}' is not a plain file name inside the pack (no '/', '.' or '..')", *out));
  return Status::Ok();
}

// An integer in [min, kMaxDimension]; JSON numbers like 4.0 or "4" are refused.
Status ReadInt(const Json& v, const std::string& field, int64_t min, int64_t* out) {
  if (!v.is_number_integer()) return Bad(field, fmt::format("expected an integer >= {}", min));
  const bool is_unsigned = v.is_number_unsigned();
  const int64_t x = is_unsigned ? (v.get<uint64_t>() > static_cast<uint64_t>(kMaxDimension) ? kMaxDimension + 1
                                                                                             : static_cast<int64_t>(v.get<uint64_t>()))
                                : v.get<int64_t>();
  if (x < min || x > kMaxDimension) return Bad(field, fmt::format("{} is out of range {}..{}", v.dump(), min, kMaxDimension));
  *out = x;
  return Status::Ok();
}

Status ReadGeneration(const Json& v, const std::string& field, Generation* out) {
  std::optional<Generation> g = v.is_string() ? ParseGeneration(v.get_ref<const std::string&>()) : std::nullopt;
  if (!g) return Bad(field, "expected \"sealed\" or \"per-role\"");
  *out = *g;
  return Status::Ok();
}

Status UnknownKey(const std::string& where, const std::string& key, std::string_view known) {
  return Bad(where.empty() ? key : where + "." + key, fmt::format("unknown key (known: {})", known));
}

Status ReadKernel(const Json& v, const std::string& where, KernelRef* out) {
  if (!v.is_object()) return Bad(where, "expected an object {generation, file, M}");
  bool has_generation = false, has_file = false, has_m = false;
  for (const auto& [key, value] : v.items()) {
    const std::string field = where + "." + key;
    Status s = Status::Ok();
    if (key == "generation") {
      s = ReadGeneration(value, field, &out->generation);
      has_generation = true;
    } else if (key == "file") {
      s = ReadFileName(value, field, &out->file);
      has_file = true;
    } else if (key == "M") {
      s = ReadInt(value, field, 1, &out->m);
      has_m = true;
    } else {
      s = UnknownKey(where, key, "generation, file, M");
    }
    if (!s.ok()) return s;
  }
  if (!has_generation) return Bad(where, "missing 'generation'");
  if (!has_file) return Bad(where, "missing 'file'");
  if (!has_m) return Bad(where, "missing 'M'");
  return Status::Ok();
}

Status ReadLayers(const Json& v, const std::string& field, PlanOp* op) {
  if (!v.is_array() || v.size() != 2) return Bad(field, "expected [first, last], two layer numbers");
  int64_t first = 0, last = 0;
  if (Status s = ReadInt(v[0], field + "[0]", 0, &first); !s.ok()) return s;
  if (Status s = ReadInt(v[1], field + "[1]", 0, &last); !s.ok()) return s;
  if (first > last) return Bad(field, fmt::format("first layer {} is after last layer {}", first, last));
  op->first_layer = first;
  op->last_layer = last;
  return Status::Ok();
}

Status ReadOp(const Json& v, const std::string& where, PlanOp* op) {
  if (!v.is_object()) return Bad(where, "expected an object {op, tensors, layers, K, N, kernels}");
  bool has[5] = {};  // op, tensors, K, N, kernels
  for (const auto& [key, value] : v.items()) {
    const std::string field = where + "." + key;
    Status s = Status::Ok();
    if (key == "op") {
      s = ReadString(value, field, &op->op);
      has[0] = true;
    } else if (key == "tensors") {
      s = ReadString(value, field, &op->tensors);
      has[1] = true;
    } else if (key == "layers") {
      s = ReadLayers(value, field, op);
    } else if (key == "K") {
      s = ReadInt(value, field, 1, &op->k);
      has[2] = true;
    } else if (key == "N") {
      s = ReadInt(value, field, 1, &op->n);
      has[3] = true;
    } else if (key == "kernels") {
      has[4] = true;
      if (!value.is_array()) {
        s = Bad(field, "expected an array of kernels");
      } else {
        for (size_t i = 0; i < value.size() && s.ok(); ++i) {
          op->kernels.emplace_back();
          s = ReadKernel(value[i], fmt::format("{}[{}]", field, i), &op->kernels.back());
        }
      }
    } else {
      s = UnknownKey(where, key, "op, tensors, layers, K, N, kernels");
    }
    if (!s.ok()) return s;
  }
  const char* names[5] = {"op", "tensors", "K", "N", "kernels"};
  for (int i = 0; i < 5; ++i) {
    if (!has[i]) return Bad(where, fmt::format("missing '{}'", names[i]));
  }
  const size_t at = op->tensors.find(kLayerPlaceholder);
  const bool templated = at != std::string::npos;
  if (templated && op->tensors.find(kLayerPlaceholder, at + 1) != std::string::npos) {
    return Bad(where + ".tensors", "'{layer}' appears more than once");
  }
  if (templated && !op->first_layer) return Bad(where, "'tensors' has '{layer}' but there is no 'layers' range");
  if (!templated && op->first_layer) return Bad(where, "'layers' is given but 'tensors' has no '{layer}'");
  return Status::Ok();
}

Status ReadTop(const Json& doc, PackPlan* plan) {
  bool has_format = false, has_version = false, has_model = false, has_device = false, has_ops = false;
  // The version first: a newer plan is refused as newer, not for a key this reader does not know.
  if (auto it = doc.find("version"); it != doc.end()) {
    if (Status s = ReadInt(*it, "version", 1, &plan->version); !s.ok()) return s;
    if (plan->version > kPlanVersion) {
      return Bad("version", fmt::format("{} is newer than this trit reads ({}); update trit", plan->version, kPlanVersion));
    }
    has_version = true;
  }
  for (const auto& [key, value] : doc.items()) {
    Status s = Status::Ok();
    if (key == "version") {
      continue;
    } else if (key == "format") {
      if (!value.is_string() || value.get_ref<const std::string&>() != kPlanFormat) {
        s = Bad(key, fmt::format("expected \"{}\"", kPlanFormat));
      }
      has_format = true;
    } else if (key == "model") {
      s = ReadFileName(value, key, &plan->model);
      has_model = true;
    } else if (key == "device") {
      s = ReadString(value, key, &plan->device);
      has_device = true;
    } else if (key == "generation") {
      Generation g{};
      s = ReadGeneration(value, key, &g);
      plan->generation = g;
    } else if (key == "decode_m" || key == "prefill_m") {
      int64_t m = 0;
      s = ReadInt(value, key, 1, &m);
      (key == "decode_m" ? plan->decode_m : plan->prefill_m) = m;
    } else if (key == "ops") {
      has_ops = true;
      if (!value.is_array()) {
        s = Bad(key, "expected an array of ops");
      } else {
        for (size_t i = 0; i < value.size() && s.ok(); ++i) {
          plan->ops.emplace_back();
          s = ReadOp(value[i], fmt::format("ops[{}]", i), &plan->ops.back());
        }
      }
    } else if (key == "comment") {
      continue;  // free text for people
    } else {
      s = UnknownKey("", key, "format, version, model, device, generation, decode_m, prefill_m, ops, comment");
    }
    if (!s.ok()) return s;
  }
  if (!has_format) return Bad("format", fmt::format("missing (expected \"{}\")", kPlanFormat));
  if (!has_version) return Bad("version", "missing");
  if (!has_model) return Bad("model", "missing (the GGUF file of the weights)");
  if (!has_device) return Bad("device", "missing (the device family, e.g. \"xdna2\")");
  if (!has_ops) return Bad("ops", "missing");
  return Status::Ok();
}

}  // namespace

const char* GenerationName(Generation g) { return g == Generation::kSealed ? "sealed" : "per-role"; }

std::optional<Generation> ParseGeneration(std::string_view name) {
  if (name == "sealed") return Generation::kSealed;
  if (name == "per-role") return Generation::kPerRole;
  return std::nullopt;
}

std::vector<std::string> PlanOp::TensorNames() const {
  if (!first_layer) return {tensors};
  std::vector<std::string> out;
  const size_t at = tensors.find(kLayerPlaceholder);
  for (int64_t l = *first_layer; l <= *last_layer; ++l) {
    out.push_back(tensors.substr(0, at) + std::to_string(l) + tensors.substr(at + kLayerPlaceholder.size()));
  }
  return out;
}

std::string PlanOp::Describe() const {
  if (!first_layer) return fmt::format("{} {}", op, tensors);
  if (*first_layer == *last_layer) return fmt::format("{} {} (layer {})", op, tensors, *first_layer);
  return fmt::format("{} {} (layers {}-{})", op, tensors, *first_layer, *last_layer);
}

std::string DescribeWidths(const PackPlan& plan) {
  std::string out;
  if (plan.decode_m) out += fmt::format("decode_m={}", *plan.decode_m);
  if (plan.prefill_m) out += fmt::format("{}prefill_m={}", out.empty() ? "" : ", ", *plan.prefill_m);
  return out.empty() ? "no widths stated" : out;
}

bool IsPlainFileName(std::string_view name) {
  if (name.empty() || name.size() > kMaxNameBytes || name == "." || name == "..") return false;
  return name.find('/') == std::string_view::npos && name.find('\0') == std::string_view::npos;
}

Expected<PackPlan> ParsePlan(std::string_view json_text) {
  if (json_text.size() > kMaxPlanBytes) return Error(ErrorCode::kCorrupt, "plan.json: larger than {} bytes", kMaxPlanBytes);
  if (!JsonNestingWithin(json_text, kMaxDepth)) {
    return Error(ErrorCode::kCorrupt, "plan.json: nested deeper than {} levels", kMaxDepth);
  }
  const Json doc = Json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return Error(ErrorCode::kCorrupt, "plan.json: not valid JSON");
  if (!doc.is_object()) return Error(ErrorCode::kCorrupt, "plan.json: expected a JSON object at the top level");
  PackPlan plan;
  if (Status s = ReadTop(doc, &plan); !s.ok()) return s;
  return plan;
}

std::string EncodePlan(const PackPlan& plan) {
  // One key per line, one op per line and one kernel per line, so that a
  // plan reads (and diffs) as a table. Values go through the JSON library,
  // which escapes them (names from a GGUF file need not be UTF-8; the text
  // must be: invalid bytes are replaced).
  const auto value = [](const nlohmann::ordered_json& v) {
    return v.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
  };
  std::string out = "{\n";
  out += fmt::format("  \"format\": {},\n  \"version\": {},\n", value(kPlanFormat), plan.version);
  out += fmt::format("  \"model\": {},\n  \"device\": {},\n", value(plan.model), value(plan.device));
  if (plan.generation) out += fmt::format("  \"generation\": {},\n", value(GenerationName(*plan.generation)));
  if (plan.decode_m) out += fmt::format("  \"decode_m\": {},\n", *plan.decode_m);
  if (plan.prefill_m) out += fmt::format("  \"prefill_m\": {},\n", *plan.prefill_m);
  out += "  \"ops\": [";
  for (size_t i = 0; i < plan.ops.size(); ++i) {
    const PlanOp& op = plan.ops[i];
    out += fmt::format("{}\n    {{\"op\": {}, \"tensors\": {}, ", i == 0 ? "" : ",", value(op.op), value(op.tensors));
    if (op.first_layer) out += fmt::format("\"layers\": [{}, {}], ", *op.first_layer, *op.last_layer);
    out += fmt::format("\"K\": {}, \"N\": {}, \"kernels\": [", op.k, op.n);
    for (size_t k = 0; k < op.kernels.size(); ++k) {
      const KernelRef& ref = op.kernels[k];
      out += fmt::format("{}\n      {{\"generation\": {}, \"file\": {}, \"M\": {}}}", k == 0 ? "" : ",",
                         value(GenerationName(ref.generation)), value(ref.file), ref.m);
    }
    out += "]}";
  }
  out += plan.ops.empty() ? "]\n}\n" : "\n  ]\n}\n";
  return out;
}

Expected<PackPlan> ReadPlan(const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / kPlanFileName).string();
  std::unique_ptr<FILE, int (*)(FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) return Error(ErrorCode::kNotFound, "{}: cannot open for reading", path);
  std::string text;
  char buf[65536];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) {
    text.append(buf, n);
    if (text.size() > kMaxPlanBytes) return Error(ErrorCode::kCorrupt, "{}: larger than {} bytes", path, kMaxPlanBytes);
  }
  if (std::ferror(f.get())) return Error(ErrorCode::kIo, "{}: read error", path);
  Expected<PackPlan> plan = ParsePlan(text);
  if (!plan.ok()) return plan.status().WithContext(std::filesystem::path(dir).string());
  return plan;
}

}  // namespace trit::pack
