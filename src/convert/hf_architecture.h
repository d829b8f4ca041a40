// What `trit convert` knows of one Hugging Face architecture: which
// config.json "architectures" names it takes, the GGUF architecture it
// writes, its hyper-parameter keys, and the table of its tensors (Hugging
// Face name -> GGUF name, with the shape config.json implies). One file per
// architecture (hf_bert.cpp ...); hf_to_gguf.cpp is the one writer they share.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "convert/hf_config.h"
#include "formats/gguf/writer.h"

namespace trit::tokenizer {
struct HfTokenizer;
}  // namespace trit::tokenizer

namespace trit::convert {

// What llama.cpp's converter does to a tensor's values before writing them
// (hf_tensor_transform.h has the formulas).
enum class HfTransform {
  kNone,
  kPermuteRope,  // LlamaModel.permute: rows of each head from halves-rotated to interleaved pairs
  kAddOne,       // Gemma's RMSNorm weight w is used as (1 + w): llama.cpp stores 1 + w
  kNegExp,       // Qwen3.5's A_log: llama.cpp stores A = -exp(A_log)
};

// Qwen3.5's linear-attention value heads, which Hugging Face stores grouped
// by key head ([k0: v0 v1, k1: v0 v1]) and llama.cpp tiled ([v0: k0 k1,
// v1: k0 k1]) so that ggml broadcasts the key heads
// (_LinearAttentionVReorderBase._reorder_v_heads). The part of the axis
// after `skip` (the q and k rows of a fused qkv) is seen as
// (n_k_heads, n_v_per_k, head_dim) and its first two axes swapped.
struct HfVHeadOrder {
  int64_t n_k_heads = 0;  // 0: no reordering
  int64_t n_v_per_k = 0;
  int64_t head_dim = 0;
  int64_t skip = 0;
  bool columns = false;  // the last axis (out_proj's input), not the first
};

// A part of one fused tensor of experts, [E, a, b] or [E, a] (gpt-oss's
// gate_up_proj [E, hidden, 2 x ff] with gate and up interleaved, its bias
// [E, 2 x ff], down_proj [E, ff, hidden]), as llama.cpp's GptOssModel
// takes it: the last two axes swapped first when `transpose` (torch's
// transpose(-1, -2)), then of axis 1 every `stride`-th index from `offset`
// kept (data[:, offset::stride]). Pure moves, so any element size.
struct HfExpertsPick {
  bool transpose = false;
  int64_t stride = 1;
  int64_t offset = 0;
};

// BitNet b1.58's ternary projections (hf_ternary.h has the rules): how the
// checkpoint holds the weight [rows, cols] whose values are t * scale, t in
// {-1, 0, 1} and one float scale per tensor.
enum class HfTernary {
  kNone,
  // Master weights (F32/F16/BF16), ternarized as BitNet's absmean rule does:
  // s = 1 / max(mean |w|, 1e-5), t = clamp(round(w * s), -1, 1), scale 1 / s.
  kAbsmean,
  // transformers' packed form (quantization_config.quant_method "bitnet"):
  // hf_name U8 [rows / 4, cols], row i * rows / 4 + j in bits 2i of byte row
  // j, code - 1 = t (unpack_weights), and hf_name + "_scale" [1] (F32/F16/
  // BF16). kPackedDivide: BitLinear's value t / weight_scale (linear_class
  // "bitlinear"); kPackedMultiply: AutoBitLinear's t * weight_scale
  // ("autobitlinear", offline).
  kPackedDivide,
  kPackedMultiply,
};

// One tensor an architecture expects in the checkpoint.
struct HfTensorSpec {
  std::string hf_name;         // after HfArchitecture::normalize_name, e.g. "encoder.layer.0.attention.self.query.weight"
  std::string gguf_name;       // e.g. "blk.0.attn_q.weight"
  std::vector<int64_t> shape;  // numpy order, outermost first, as in the checkpoint
  HfTransform transform = HfTransform::kNone;
  int64_t n_rope_heads = 0;    // kPermuteRope: the heads the rows split into
  HfVHeadOrder v_heads = {};   // a pure move of rows or columns, done before `transform`
  bool squeeze = false;        // axes of size 1 dropped from the GGUF shape (conv1d's [C, 1, K])
  // A tensor the converter computes rather than reads (Gemma 4's
  // rope_freqs): these float32 values, hf_name empty, shape their count.
  std::vector<float> generated = {};
  // Written when the checkpoint has it, not missed when it has not (Gemma 4's
  // shared-KV layers' k/v projections: in Google's checkpoints, not in
  // transformers' model; llama.cpp writes them and never uses them).
  bool optional = false;
  // > 0: the GGUF tensor stacks this many checkpoint tensors along a new
  // outer axis (shape[0] == n_stack), as llama.cpp's MoE converters stack
  // per-expert weights into one 3-D tensor (torch.stack(dim=0)). hf_name
  // holds "{}" where each part's index (0..n_stack-1) goes, e.g.
  // "model.layers.0.mlp.experts.{}.up_proj.weight"; each part has shape[1:]
  // and all parts one dtype. No transform applies to a stack.
  int64_t n_stack = 0;
  // Taken from a fused tensor of experts (shape is the checkpoint's; the
  // GGUF shape follows from the pick). Default: the whole tensor.
  HfExpertsPick pick = {};
  // The published gpt-oss form: the weight [E, rows, cols] (shape, rows the
  // outputs) is stored as MXFP4 in two uint8 tensors, hf_name + "_blocks"
  // [E, rows, cols / 32, 16] (element 2j of a block in the low nibble of
  // byte j, 2j + 1 in the high) and hf_name + "_scales" [E, rows, cols / 32]
  // (E8M0), and is written as GGUF MXFP4 blocks without dequantizing
  // (GptOssModel.repack_mxfp4), whatever type was asked for; `pick`
  // (stride, offset; no transpose) chooses rows.
  bool mxfp4 = false;
  // A BitNet ternary weight (2-D; no transform, pick or stack applies).
  HfTernary ternary = HfTernary::kNone;
};

// The numpy shape of what a spec writes (before GGUF's reversal): shape
// after the pick (transpose, then axis 1 divided by the stride).
std::vector<int64_t> HfOutputShape(const HfTensorSpec& spec);

// The checkpoint name of part `index` of a stacked spec.
std::string StackPartName(const HfTensorSpec& spec, int64_t index);

// Where the vocabulary comes from.
enum class HfVocabSource {
  kTokenizerJson,           // tokenizer.json only (WordPiece, byte-level BPE)
  kSentencePieceFirst,      // tokenizer.model when present (llama.cpp's _set_vocab_sentencepiece), else tokenizer.json
  kLlamaHfVocab,            // tokenizer.json as gguf-py's LlamaHfVocab lists it, with merges (Gemma 4)
};

// What a converter knows of the model directory besides the tensors.
struct HfModelInfo {
  HfModelConfig config;
  std::optional<PoolingType> pooling;  // from sentence-transformers' modules.json; nullopt: none
};

struct HfArchitecture {
  std::string_view gguf_arch;                   // general.architecture, e.g. "bert"
  std::span<const std::string_view> hf_names;   // config.json "architectures"[0] values, e.g. "BertModel"

  // The checkpoint's tensor name as the table names it (e.g. "bert." stripped).
  std::string (*normalize_name)(std::string_view hf_name);
  // Why a (normalized) tensor is left out of the GGUF file, as llama.cpp's
  // converter leaves it out; nullopt for a tensor that is kept.
  std::optional<std::string_view> (*dropped)(std::string_view name);
  // Every tensor the GGUF file gets, in file order, from config.json;
  // errors name the config key that is missing or out of range.
  Expected<std::vector<HfTensorSpec>> (*tensors)(const HfModelInfo& info);
  // The "<arch>.*" keys (and any other the architecture adds) from config.json.
  Status (*write_metadata)(const HfModelInfo& info, gguf::Writer& writer);
  HfVocabSource vocab_source = HfVocabSource::kTokenizerJson;
  // SentencePiece vocabularies: tokenizer.ggml.add_space_prefix is written as
  // false (Gemma 3's set_vocab) instead of from tokenizer_config.json's add_prefix_space.
  bool spm_no_space_prefix = false;
  // What the architecture's set_vocab changes after reading (Gemma 4: the
  // model name, tokens it always renders, add_bos); may be null.
  void (*adjust_vocab)(tokenizer::HfTokenizer* tok) = nullptr;
};

// The architecture whose hf_names hold `hf_architecture`; nullptr if none.
const HfArchitecture* FindHfArchitecture(std::string_view hf_architecture);
// Every config.json "architectures" name trit converts, comma-separated.
std::string SupportedHfArchitectures();

}  // namespace trit::convert
