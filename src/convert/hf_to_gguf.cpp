// The writer every architecture shares: config and tokenizer read, the
// checkpoint's tensors matched against the architecture's table (every one
// mapped or dropped by name, every expected one present with its shape),
// then one gguf::Writer whose tensors are produced from the memory map at
// write time.
#include "convert/hf_to_gguf.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <map>

#include "convert/hf_architecture.h"
#include "convert/hf_chat_template.h"
#include "convert/hf_tensor_data.h"
#include "convert/hf_ternary.h"
#include "convert/hf_tensor_transform.h"
#include "convert/quantize_plan.h"
#include "formats/gguf/writer.h"
#include "formats/safetensors/safetensors_index.h"
#include "quant/block_formats.h"
#include "tokenizer/hf_tokenizer_json.h"

namespace trit::convert {
namespace {

// GGUF's quantization version (GGML_QNT_VERSION), which the converter writes.
constexpr uint32_t kQuantizationVersion = 2;

std::string ShapeText(const std::vector<int64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

// general.name: the directory's own name, as the converter falls back to
// when no model card names the model.
// The folder's name as given, a symbolic link not followed ("." is the
// current folder's name): a link named after the model names the model.
std::string DirectoryName(const std::string& dir) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(dir, ec).lexically_normal();
  if (ec) p = std::filesystem::path(dir).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  return p.filename().string();
}

// gguf-py's SpecialVocab takes config.json's <type>_token_id (text_config's
// when the top level has none) for every special id tokenizer.json and
// tokenizer_config.json did not give: Gemma 3's tokenizer.json names <bos>
// and <eos> at ids past tokenizer.model's pieces, which it skips, and
// config.json's bos_token_id 2 / eos_token_id 1 fill them. An id past the
// vocabulary is skipped too (SpecialVocab skips it for SentencePiece
// vocabularies; for tokenizer.json ones it writes it, but no runtime can use
// it and WriteHfTokenizerMetadata refuses it).
void FillSpecialIdsFromConfig(const HfModelConfig& config, tokenizer::HfTokenizer* tok) {
  const std::pair<const char*, std::optional<int32_t>*> ids[] = {
      {"bos", &tok->special.bos}, {"eos", &tok->special.eos}, {"unk", &tok->special.unk},
      {"sep", &tok->special.sep}, {"pad", &tok->special.pad}, {"cls", &tok->special.cls},
      {"mask", &tok->special.mask},
  };
  for (const auto& [type, id] : ids) {
    if (id->has_value()) continue;
    Expected<int64_t> v = config.Int(fmt::format("{}_token_id", type));
    if (!v.ok()) v = config.Int(fmt::format("text_config.{}_token_id", type));
    if (v.ok() && static_cast<uint64_t>(*v) < tok->tokens.size()) *id = static_cast<int32_t>(*v);
  }
}

// The vocabulary: tokenizer.model for architectures whose llama.cpp class
// reads SentencePiece first (then tokenizer.json is optional, for the
// special tokens), else tokenizer.json.
Expected<tokenizer::HfTokenizer> ReadTokenizer(const std::string& dir, const HfArchitecture& arch,
                                               const HfModelConfig& config) {
  const std::filesystem::path root(dir);
  const std::string json_path = (root / "tokenizer.json").string();
  const std::string spm_path = (root / "tokenizer.model").string();
  std::error_code ec;
  const bool spm = arch.vocab_source == HfVocabSource::kSentencePieceFirst && std::filesystem::exists(spm_path, ec);
  std::string json_text;
  if (!spm || std::filesystem::exists(json_path, ec)) {
    Expected<std::string> json = ReadHfTextFile(json_path);
    if (!json.ok()) return json.status();
    json_text = std::move(json).value();
  }
  std::string config_text;
  const std::string config_path = (root / "tokenizer_config.json").string();
  if (std::filesystem::exists(config_path, ec)) {
    Expected<std::string> text = ReadHfTextFile(config_path);
    if (!text.ok()) return text.status();
    config_text = std::move(text).value();
  }
  if (spm) {
    Expected<std::string> model = ReadHfTextFile(spm_path);
    if (!model.ok()) return model.status();
    Expected<int64_t> n_vocab = config.Int("vocab_size");
    Expected<tokenizer::HfTokenizer> tok = tokenizer::ParseSentencePieceTokenizer(
        *model, json_text, config_text, n_vocab.ok() ? static_cast<size_t>(*n_vocab) : 0);
    if (!tok.ok()) return tok.status().WithContext(spm_path);
    if (arch.spm_no_space_prefix) tok->add_space_prefix = false;
    FillSpecialIdsFromConfig(config, &*tok);
    return tok;
  }
  Expected<tokenizer::HfTokenizer> tok = arch.vocab_source == HfVocabSource::kLlamaHfVocab
                                             ? tokenizer::ParseLlamaHfVocab(json_text, config_text)
                                             : tokenizer::ParseHfTokenizer(json_text, config_text);
  if (!tok.ok()) return tok.status().WithContext(json_path);
  FillSpecialIdsFromConfig(config, &*tok);
  if (arch.adjust_vocab != nullptr) arch.adjust_vocab(&*tok);
  return tok;
}

// A checkpoint tensor matched to the row of the architecture's table it fills.
struct Matched {
  const HfTensorSpec* spec = nullptr;
  safetensors::ShardTensor source;
  std::string hf_name;
  std::vector<safetensors::ShardTensor> parts;  // a spec's PartCount, in order
};

// A table row's name for the matching, and which part of it a tensor is.
struct SpecPart {
  size_t spec = 0;
  int64_t part = -1;  // -1: a spec of one tensor
};

bool Packed(const HfTensorSpec& spec) {
  return spec.ternary == HfTernary::kPackedDivide || spec.ternary == HfTernary::kPackedMultiply;
}

// The checkpoint tensors a spec is made of: a stack's n_stack, an MXFP4
// weight's blocks and scales, a packed BitNet weight and its weight_scale;
// 0 for a spec that is one tensor.
int64_t PartCount(const HfTensorSpec& spec) { return spec.mxfp4 || Packed(spec) ? 2 : spec.n_stack; }
std::string PartName(const HfTensorSpec& spec, int64_t part) {
  if (spec.mxfp4) return spec.hf_name + (part == 0 ? "_blocks" : "_scales");
  if (Packed(spec)) return part == 0 ? spec.hf_name : spec.hf_name + "_scale";
  return StackPartName(spec, part);
}
// The shape a part must have: a stack's parts shape[1:]; an MXFP4 weight
// [E, rows, cols] has blocks [E, rows, cols / 32, 16] and scales [E, rows, cols / 32].
std::vector<int64_t> PartShape(const HfTensorSpec& spec, int64_t part) {
  if (Packed(spec)) return part == 0 ? std::vector<int64_t>{spec.shape[0] / 4, spec.shape[1]} : std::vector<int64_t>{1};
  if (!spec.mxfp4) return std::vector<int64_t>(spec.shape.begin() + 1, spec.shape.end());
  std::vector<int64_t> shape = {spec.shape[0], spec.shape[1], spec.shape[2] / quant::kQKMxfp4};
  if (part == 0) shape.push_back(quant::kQKMxfp4 / 2);
  return shape;
}

// Matches every checkpoint tensor to `specs` (in specs' order) or drops it;
// one checkpoint tensor may fill several rows (gpt-oss's fused gate_up_proj
// is both ffn_gate_exps and ffn_up_exps).
Expected<std::vector<Matched>> MatchTensors(const HfArchitecture& arch, const std::vector<HfTensorSpec>& specs,
                                            const safetensors::Checkpoint& checkpoint, HfConvertReport* report) {
  std::multimap<std::string, SpecPart, std::less<>> by_name;
  std::vector<Matched> matched(specs.size());
  for (size_t i = 0; i < specs.size(); ++i) {
    if (const int64_t n_parts = PartCount(specs[i]); n_parts > 0) {
      for (int64_t p = 0; p < n_parts; ++p) by_name.emplace(PartName(specs[i], p), SpecPart{i, p});
      matched[i].parts.resize(static_cast<size_t>(n_parts));
    } else if (specs[i].generated.empty()) {
      by_name.emplace(specs[i].hf_name, SpecPart{i});
    } else {
      matched[i].spec = &specs[i];  // computed, not read
      matched[i].hf_name = "computed by the converter";
    }
  }
  for (const safetensors::ShardTensor& t : checkpoint.Tensors()) {
    const std::string& raw = t.tensor->name;
    const std::string name = arch.normalize_name(raw);
    if (std::optional<std::string_view> why = arch.dropped(name)) {
      report->dropped.emplace_back(raw, std::string(*why));
      continue;
    }
    const auto [first, last] = by_name.equal_range(name);
    if (first == last) {
      return Error(ErrorCode::kUnsupported,
                   "tensor '{}': no GGUF name for it in architecture '{}' (neither mapped nor dropped by llama.cpp's "
                   "converter); refusing rather than leaving it out",
                   raw, arch.gguf_arch);
    }
    for (auto it = first; it != last; ++it) {
      const auto [index, part] = it->second;
      Matched& m = matched[index];
      const HfTensorSpec& spec = specs[index];
      const bool taken = part < 0 ? m.spec != nullptr : m.parts[static_cast<size_t>(part)].tensor != nullptr;
      if (taken) {
        const std::string other = part < 0 ? m.hf_name : m.parts[static_cast<size_t>(part)].tensor->name;
        return Error(ErrorCode::kCorrupt, "tensors '{}' and '{}' are both '{}' ({})", other, raw, name,
                     spec.gguf_name);
      }
      const std::vector<int64_t> want = part < 0 ? spec.shape : PartShape(spec, part);
      if (t.tensor->shape != want) {
        return Error(ErrorCode::kCorrupt, "tensor '{}': shape {}, but config.json implies {}{}", raw,
                     ShapeText(t.tensor->shape), ShapeText(want),
                     Packed(spec) ? " (its quantization_config says BitNet weights packed four rows a byte, U8)" : "");
      }
      const safetensors::Dtype d = t.tensor->dtype;
      if (spec.mxfp4 && d != safetensors::Dtype::kU8) {
        return Error(ErrorCode::kUnsupported,
                     "tensor '{}': dtype {}; MXFP4 {} (quantization_config.quant_method 'mxfp4') are U8", raw,
                     safetensors::DtypeName(d), part == 0 ? "blocks" : "scales");
      }
      if (Packed(spec) && part == 0 && d != safetensors::Dtype::kU8) {
        return Error(ErrorCode::kUnsupported,
                     "tensor '{}': dtype {}; packed BitNet weights (quantization_config.quant_method 'bitnet', "
                     "offline) are U8",
                     raw, safetensors::DtypeName(d));
      }
      if (!spec.mxfp4 && !(Packed(spec) && part == 0) && d != safetensors::Dtype::kF32 && d != safetensors::Dtype::kF16 &&
          d != safetensors::Dtype::kBF16) {
        return Error(ErrorCode::kUnsupported, "tensor '{}': dtype {}; trit converts F32, F16 and BF16 weights", raw,
                     safetensors::DtypeName(d));
      }
      if (part < 0) {
        m = {&spec, t, raw, {}};
        continue;
      }
      m.parts[static_cast<size_t>(part)] = t;
      if (!std::ranges::all_of(m.parts, [](const safetensors::ShardTensor& p) { return p.tensor != nullptr; })) {
        continue;
      }
      for (const safetensors::ShardTensor& p : m.parts) {
        if (spec.n_stack > 0 && p.tensor->dtype != m.parts[0].tensor->dtype) {
          return Error(ErrorCode::kUnsupported, "tensors '{}' ({}) and '{}' ({}) of {} differ in dtype",
                       m.parts[0].tensor->name, safetensors::DtypeName(m.parts[0].tensor->dtype), p.tensor->name,
                       safetensors::DtypeName(p.tensor->dtype), spec.gguf_name);
        }
      }
      m.spec = &spec;
      m.source = m.parts[0];
      m.hf_name = spec.mxfp4   ? fmt::format("{}_blocks, _scales", spec.hf_name)
                  : Packed(spec) ? fmt::format("{}, {}_scale", spec.hf_name, spec.hf_name)
                                 : StackPartName(spec, 0) + fmt::format(" .. {}", spec.n_stack - 1);
    }
  }
  size_t n_missing = 0;
  std::string first_missing;
  const HfTensorSpec* first_spec = nullptr;
  for (size_t i = 0; i < matched.size(); ++i) {
    if (matched[i].spec != nullptr || specs[i].optional) continue;
    if (const int64_t n_parts = PartCount(specs[i]); n_parts > 0) {  // each absent part counts
      for (int64_t p = 0; p < n_parts; ++p) {
        if (matched[i].parts[static_cast<size_t>(p)].tensor != nullptr) continue;
        if (n_missing++ == 0) first_missing = PartName(specs[i], p), first_spec = &specs[i];
      }
      continue;
    }
    if (n_missing++ == 0) first_missing = specs[i].hf_name, first_spec = &specs[i];
  }
  if (n_missing > 0) {
    return Error(ErrorCode::kCorrupt, "the checkpoint has no tensor '{}' (for {}){}", first_missing,
                 first_spec->gguf_name,
                 n_missing > 1 ? fmt::format(", nor {} other expected tensors", n_missing - 1) : "");
  }
  std::erase_if(matched, [](const Matched& m) { return m.spec == nullptr; });  // optional ones not there
  return matched;
}

// An MXFP4 weight's GGUF blocks: its rows picked from the blocks (one
// element a 16-byte block) and the scales alike, then repacked.
Status FillMxfp4(const HfTensorSpec& spec, const std::vector<safetensors::ShardTensor>& parts,
                 std::span<uint8_t> bytes) {
  const std::vector<int64_t> grid = PartShape(spec, 1);  // [E, rows, cols / 32]
  Expected<std::vector<uint8_t>> blocks = PickExperts(spec.pick, grid, quant::kQKMxfp4 / 2, parts[0].Data());
  if (!blocks.ok()) return blocks.status().WithContext(fmt::format("from '{}'", parts[0].tensor->name));
  Expected<std::vector<uint8_t>> scales = PickExperts(spec.pick, grid, 1, parts[1].Data());
  if (!scales.ok()) return scales.status().WithContext(fmt::format("from '{}'", parts[1].tensor->name));
  RepackMxfp4(*blocks, *scales, bytes);
  return Status::Ok();
}

bool Picks(const HfExpertsPick& pick) { return pick.transpose || pick.stride > 1; }

// A BitNet weight's codes and scale, from its master weight or its packed parts.
Expected<TernaryWeight> ReadTernary(const HfTensorSpec& spec, const safetensors::ShardTensor& source,
                                    const std::vector<safetensors::ShardTensor>& parts) {
  Expected<TernaryWeight> w =
      spec.ternary == HfTernary::kAbsmean
          ? TernarizeAbsmean(source.tensor->dtype, source.Data(), spec.shape[0] * spec.shape[1])
          : UnpackBitnetWeight(parts[0].Data(), spec.shape[0], spec.shape[1], parts[1].tensor->dtype, parts[1].Data(),
                               spec.ternary == HfTernary::kPackedDivide ? WeightScaleRule::kDivide
                                                                        : WeightScaleRule::kMultiply);
  if (!w.ok()) return w.status().WithContext(fmt::format("tensor '{}'", source.tensor->name));
  return w;
}

// "blk.0.attn_q.weight" -> "blk.0.attn_q.scale": where a tq1_0/tq2_0
// weight's scale goes (trit's bitnet decoder multiplies the projection's
// output by it, as `trit quantize` writes it).
std::string ScaleName(const std::string& weight) {
  return weight.substr(0, weight.size() - std::string_view(".weight").size()) + ".scale";
}

}  // namespace

Expected<HfConvertReport> ConvertHfToGguf(const std::string& dir, const std::string& output,
                                          const HfConvertOptions& options) {
  const bool ternary_type = IsTernaryType(options.type);
  if (!IsHfConvertType(options.type) && !ternary_type) {
    return Error(ErrorCode::kInvalidArgument, "output type {}: trit convert writes {} (and i2_s, tq2_0, tq1_0 for "
                 "BitNet checkpoints)",
                 quant::GetType(options.type).name, HfConvertTypeNames());
  }
  HfModelInfo info;
  Expected<HfModelConfig> config = ReadHfConfig(dir);
  if (!config.ok()) return config.status();
  info.config = std::move(config).value();
  const HfArchitecture* arch = FindHfArchitecture(info.config.architecture);
  if (arch == nullptr) {
    return Error(ErrorCode::kUnsupported, "{}: architecture '{}' is not one trit converts yet; supported: {}",
                 (std::filesystem::path(dir) / "config.json").string(), info.config.architecture,
                 SupportedHfArchitectures());
  }
  Expected<std::optional<PoolingType>> pooling = ReadSentenceTransformersPooling(dir);
  if (!pooling.ok()) return pooling.status();
  info.pooling = *pooling;

  HfConvertReport report;
  report.hf_architecture = info.config.architecture;
  report.gguf_arch = std::string(arch->gguf_arch);
  report.name = DirectoryName(dir);
  report.pooling = info.pooling;

  Expected<tokenizer::HfTokenizer> tok = ReadTokenizer(dir, *arch, info.config);
  if (!tok.ok()) return tok.status();
  if (Expected<int64_t> n_vocab = info.config.Int("vocab_size"); n_vocab.ok()) {
    const size_t want = static_cast<size_t>(*n_vocab);
    // LlamaHfVocab lists every added token, past the embedding's rows too
    // (llama.cpp writes them; the runtime never produces those ids).
    if (tok->tokens.size() > want && arch->vocab_source != HfVocabSource::kLlamaHfVocab) {
      return Error(ErrorCode::kCorrupt, "tokenizer.json has {} tokens, more than config.json's vocab_size {}",
                   tok->tokens.size(), want);
    }
    // Embedding matrices are often rounded up past the tokenizer (Qwen2:
    // 151,936 rows for 151,665 tokens): llama.cpp's get_vocab_base names
    // each id without a token "[PAD<id>]", typed unused.
    for (size_t id = tok->tokens.size(); id < want; ++id) {
      tok->tokens.push_back(fmt::format("[PAD{}]", id));
      tok->token_types.push_back(5);  // UNUSED
      if (!tok->scores.empty()) tok->scores.push_back(-10000.0f);
    }
  }
  report.n_vocab = tok->tokens.size();

  Expected<std::vector<HfTensorSpec>> specs = arch->tensors(info);
  if (!specs.ok()) return specs.status();
  Expected<safetensors::Checkpoint> checkpoint = safetensors::OpenCheckpoint(dir);
  if (!checkpoint.ok()) return checkpoint.status();
  Expected<std::vector<Matched>> matched = MatchTensors(*arch, *specs, *checkpoint, &report);
  if (!matched.ok()) return matched.status();
  const size_t n_ternary = static_cast<size_t>(
      std::ranges::count_if(*specs, [](const HfTensorSpec& s) { return s.ternary != HfTernary::kNone; }));
  if (ternary_type && n_ternary == 0) {
    return Error(ErrorCode::kInvalidArgument, "output type {}: only for BitNet checkpoints' ternary weights; "
                 "architecture '{}' has none (trit convert writes {} for it)",
                 quant::GetType(options.type).name, arch->gguf_arch, HfConvertTypeNames());
  }
  // tq1_0 / tq2_0 hold t with d = 1: each weight's scale follows it as an f32 [1] `.scale` tensor.
  const bool scale_tensors = ternary_type && options.type != quant::GgmlType::kI2_S;

  // A checkpoint whose experts came in MXFP4 is, as llama.cpp's
  // prepare_metadata names it for --outtype f32, f16 and bf16 (not q8_0),
  // MOSTLY_MXFP4_MOE.
  const bool mxfp4_experts = std::ranges::any_of(*specs, [](const HfTensorSpec& s) { return s.mxfp4; });
  const int file_type = mxfp4_experts && options.type != quant::GgmlType::kQ8_0 ? LlamaFileType(quant::GgmlType::kMXFP4)
                                                                                : LlamaFileType(options.type);
  gguf::Writer writer;
  const std::pair<const char*, gguf::Value> general[] = {
      {"general.architecture", gguf::Value(std::string(arch->gguf_arch))},
      {"general.type", gguf::Value(std::string("model"))},
      {"general.name", gguf::Value(report.name)},
      {"general.file_type", gguf::Value(static_cast<uint32_t>(file_type))},
      {"general.quantization_version", gguf::Value(kQuantizationVersion)},
  };
  for (const auto& [key, value] : general) {
    if (Status s = writer.SetMetadata(key, value); !s.ok()) return s;
  }
  if (Status s = arch->write_metadata(info, writer); !s.ok()) return s;
  if (Status s = tokenizer::WriteHfTokenizerMetadata(*tok, writer); !s.ok()) return s;
  Expected<HfChatTemplates> templates = ReadHfChatTemplates(dir);
  if (!templates.ok()) return templates.status();
  if (Status s = WriteHfChatTemplates(*templates, writer); !s.ok()) return s;

  const size_t n = matched->size() + (scale_tensors ? n_ternary : 0);  // tensors written
  report.tensors.resize(n);
  size_t i = 0;  // the next tensor's index in the file
  for (const Matched& m : *matched) {
    HfConvertedTensor& out = report.tensors[i];
    out.hf_name = m.hf_name;
    out.gguf_name = m.spec->gguf_name;
    const bool generated = !m.spec->generated.empty();
    out.from = generated ? safetensors::Dtype::kF32 : m.source.tensor->dtype;
    const std::vector<int64_t> shape = HfOutputShape(*m.spec);
    for (auto it = shape.rbegin(); it != shape.rend(); ++it) {
      if (!m.spec->squeeze || *it != 1) out.gguf_shape.push_back(*it);
    }
    out.to = m.spec->mxfp4 ? quant::GgmlType::kMXFP4 : GgufTypeFor(out.gguf_name, out.gguf_shape, options.type);
    const bool ternary = m.spec->ternary != HfTernary::kNone;
    if (ternary && ternary_type) {
      const int64_t block = quant::GetType(options.type).block_size;
      if (out.gguf_shape[0] % block != 0) {
        return Error(ErrorCode::kUnsupported,
                     "tensor '{}': rows of {} values are not whole {}-value blocks of {}; convert with --type f16 "
                     "(or f32, bf16)",
                     m.hf_name, out.gguf_shape[0], block, quant::GetType(options.type).name);
      }
      out.to = options.type;
    }
    const safetensors::ShardTensor source = m.source;
    const HfTensorSpec* spec = m.spec;
    const std::vector<safetensors::ShardTensor>* parts = &m.parts;
    auto fill = [source, spec, parts, &out, i, n, &options](std::span<uint8_t> bytes) -> Status {
      if (spec->ternary != HfTernary::kNone) {
        TRIT_ASSIGN_OR_RETURN(const TernaryWeight w, ReadTernary(*spec, source, *parts));
        if (Status s = WriteTernary(w, spec->shape[1], out.to, bytes); !s.ok()) {
          return s.WithContext(fmt::format("from '{}'", out.hf_name));
        }
        out.out_bytes = bytes.size();
        if (options.on_tensor) options.on_tensor(i, n, out);
        return Status::Ok();
      }
      if (spec->mxfp4) {
        TRIT_RETURN_IF_ERROR(FillMxfp4(*spec, *parts, bytes));
        out.out_bytes = bytes.size();
        if (options.on_tensor) options.on_tensor(i, n, out);
        return Status::Ok();
      }
      if (spec->n_stack > 0) {  // each part into its slice (whole rows: blocks never straddle parts)
        const size_t part_bytes = bytes.size() / parts->size();
        for (size_t p = 0; p < parts->size(); ++p) {
          const safetensors::ShardTensor& t = (*parts)[p];
          if (Status s = ConvertElements(t.tensor->dtype, t.Data(), out.to, bytes.subspan(p * part_bytes, part_bytes));
              !s.ok()) {
            return s.WithContext(fmt::format("from '{}'", t.tensor->name));
          }
        }
        out.out_bytes = bytes.size();
        if (options.on_tensor) options.on_tensor(i, n, out);
        return Status::Ok();
      }
      if (!spec->generated.empty()) {  // float32 values, little-endian as the map's
        const std::span<const uint8_t> values(reinterpret_cast<const uint8_t*>(spec->generated.data()),
                                              spec->generated.size() * sizeof(float));
        if (Status s = ConvertElements(safetensors::Dtype::kF32, values, out.to, bytes); !s.ok()) return s;
        out.out_bytes = bytes.size();
        if (options.on_tensor) options.on_tensor(i, n, out);
        return Status::Ok();
      }
      // llama.cpp's value changes (rope permutation, Gemma's 1 + w) happen
      // before the type conversion, in the dtype its modify_tensors sees.
      safetensors::Dtype dtype = source.tensor->dtype;
      std::span<const uint8_t> data = source.Data();
      std::vector<uint8_t> reordered;
      if (spec->v_heads.n_k_heads > 0) {
        Expected<std::vector<uint8_t>> r =
            ReorderValueHeads(spec->v_heads, spec->shape, safetensors::DtypeBits(dtype) / 8, data);
        if (!r.ok()) return r.status().WithContext(fmt::format("from '{}'", out.hf_name));
        reordered = std::move(r).value();
        data = reordered;
      }
      if (Picks(spec->pick)) {
        Expected<std::vector<uint8_t>> r =
            PickExperts(spec->pick, spec->shape, safetensors::DtypeBits(dtype) / 8, data);
        if (!r.ok()) return r.status().WithContext(fmt::format("from '{}'", out.hf_name));
        reordered = std::move(r).value();
        data = reordered;
      }
      TransformedTensor changed;
      if (spec->transform != HfTransform::kNone) {
        Expected<TransformedTensor> t =
            TransformTensor(spec->transform, spec->n_rope_heads, dtype, spec->shape, data);
        if (!t.ok()) return t.status();
        changed = std::move(t).value();
        dtype = changed.dtype;
        data = changed.bytes;
      }
      if (Status s = ConvertElements(dtype, data, out.to, bytes); !s.ok()) {
        return s.WithContext(fmt::format("from '{}'", out.hf_name));  // the writer names the GGUF tensor
      }
      out.out_bytes = bytes.size();
      if (options.on_tensor) options.on_tensor(i, n, out);
      return Status::Ok();
    };
    if (Status s = writer.AddTensor(out.gguf_name, out.to, out.gguf_shape, std::move(fill)); !s.ok()) {
      return s.WithContext(out.hf_name);
    }
    ++i;
    if (!ternary || !scale_tensors) continue;
    HfConvertedTensor& sc = report.tensors[i];
    sc = {.hf_name = out.hf_name + " (its scale)", .gguf_name = ScaleName(out.gguf_name), .from = out.from,
          .to = quant::GgmlType::kF32, .gguf_shape = {1}};
    auto fill_scale = [source, spec, parts, &sc, i, n, &options](std::span<uint8_t> bytes) -> Status {
      TRIT_ASSIGN_OR_RETURN(const TernaryWeight w, ReadTernary(*spec, source, *parts));
      std::memcpy(bytes.data(), &w.scale, sizeof w.scale);
      sc.out_bytes = bytes.size();
      if (options.on_tensor) options.on_tensor(i, n, sc);
      return Status::Ok();
    };
    if (Status s = writer.AddTensor(sc.gguf_name, sc.to, sc.gguf_shape, std::move(fill_scale)); !s.ok()) {
      return s.WithContext(out.hf_name);
    }
    ++i;
  }
  if (Status s = writer.WriteFile(output); !s.ok()) return s;  // its messages name the path
  return report;
}

}  // namespace trit::convert
