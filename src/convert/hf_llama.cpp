// LlamaForCausalLM as llama.cpp's LlamaModel writes it: q_proj and k_proj
// permuted (Hugging Face's checkpoints rotate the halves of a head, llama.cpp
// adjacent pairs), plus llama.vocab_size and llama.rope.dimension_count.
// The vocabulary: tokenizer.model when there is one (SentencePiece), else
// tokenizer.json (byte-level BPE, as Llama 3).
#include <fmt/format.h>

#include "convert/hf_decoder.h"

namespace trit::convert {
namespace {

constexpr std::string_view kHfNames[] = {"LlamaForCausalLM"};
constexpr HfDecoderVariant kVariant = {.permute_qk = true};

std::string NormalizeName(std::string_view name) { return std::string(name); }

Expected<std::vector<HfTensorSpec>> Tensors(const HfModelInfo& info) { return DecoderTensors(info, kVariant); }

Status WriteMetadata(const HfModelInfo& info, gguf::Writer& w) {
  Expected<HfDecoderDims> d = ReadDecoderDims(info.config);
  if (!d.ok()) return d.status();
  if (Status s = WriteDecoderMetadata("llama", *d, info.config, w); !s.ok()) return s;
  if (Status s = w.SetMetadata("llama.vocab_size", gguf::Value(static_cast<uint32_t>(d->n_vocab))); !s.ok()) return s;
  return w.SetMetadata("llama.rope.dimension_count", gguf::Value(static_cast<uint32_t>(d->head_dim)));
}

}  // namespace

const HfArchitecture& LlamaArchitecture() {
  static const HfArchitecture kLlama = {
      .gguf_arch = "llama",
      .hf_names = kHfNames,
      .normalize_name = NormalizeName,
      .dropped = DecoderDropped,
      .tensors = Tensors,
      .write_metadata = WriteMetadata,
      .vocab_source = HfVocabSource::kSentencePieceFirst,
  };
  return kLlama;
}

}  // namespace trit::convert
