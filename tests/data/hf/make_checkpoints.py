"""Makes the tiny decoder checkpoints under tests/data/hf/<arch>/.

Each is a real transformers model class (LlamaForCausalLM, Qwen2ForCausalLM,
Qwen3ForCausalLM, Gemma3ForCausalLM) with random weights, saved in bf16 with
save_pretrained, beside a small tokenizer trained here on
tests/data/text/little_story.txt, in the form the real family ships it:

  llama   SentencePiece BPE with byte fallback (tokenizer.model + tokenizer.json),
          <unk>=0 <s>=1 </s>=2, a dummy prefix space, as Llama 2 / TinyLlama
  gemma3  SentencePiece BPE with byte fallback, <pad>=0 <eos>=1 <bos>=2 <unk>=3,
          no dummy prefix, as Gemma 3
  qwen2,  byte-level BPE with Qwen2's Split regex, <|endoftext|> <|im_start|>
  qwen3   <|im_end|> added, as Qwen2 / Qwen3

Run with a Python that has torch, transformers, tokenizers, sentencepiece:
  python tests/data/hf/make_checkpoints.py tests/data/hf
The weights come from torch.manual_seed(arch index), so a rerun with the same
package versions gives the same files.
"""
import json
import os
import sys
import tempfile

import sentencepiece as spm
import tokenizers
import torch
import transformers

HERE = os.path.dirname(os.path.abspath(__file__))
TEXT = os.path.join(HERE, "..", "text", "little_story.txt")

# Shared tiny shape: 2 layers, 4 query heads and 2 key/value heads of 16.
DIMS = dict(hidden_size=64, intermediate_size=96, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, max_position_embeddings=256)


def spm_tokenizer(out_dir, gemma):
    # transformers builds tokenizer.json from tokenizer.model (its SentencePiece
    # converter) when a directory holds only the latter.
    prefix = os.path.join(out_dir, "tokenizer")
    # Gemma's own piece names: with sentencepiece's defaults (<s>, </s>)
    # transformers' GemmaTokenizer would add <bos>/<eos> past the vocabulary.
    special = (dict(pad_id=0, eos_id=1, bos_id=2, unk_id=3, pad_piece="<pad>", eos_piece="<eos>", bos_piece="<bos>")
               if gemma else dict(unk_id=0, bos_id=1, eos_id=2, pad_id=-1))
    spm.SentencePieceTrainer.train(
        input=TEXT, model_prefix=prefix, model_type="bpe", vocab_size=400, byte_fallback=True,
        character_coverage=1.0, add_dummy_prefix=not gemma, remove_extra_whitespaces=False,
        normalization_rule_name="identity", split_digits=True, minloglevel=2,
        user_defined_symbols=["<start_of_turn>", "<end_of_turn>"] if gemma else [], **special)
    names = (dict(bos_token="<bos>", eos_token="<eos>", unk_token="<unk>", pad_token="<pad>") if gemma
             else dict(bos_token="<s>", eos_token="</s>", unk_token="<unk>"))
    config = dict(tokenizer_class="GemmaTokenizer" if gemma else "LlamaTokenizer", add_bos_token=True,
                  add_eos_token=False, **names)
    with open(os.path.join(out_dir, "tokenizer_config.json"), "w") as f:
        json.dump(config, f)
    return transformers.AutoTokenizer.from_pretrained(out_dir), prefix + ".model"


def bpe_tokenizer():
    regex = (r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|"
             r"\s*[\r\n]+|\s+(?!\S)|\s+")
    t = tokenizers.Tokenizer(tokenizers.models.BPE())
    t.normalizer = tokenizers.normalizers.NFC()
    t.pre_tokenizer = tokenizers.pre_tokenizers.Sequence([
        tokenizers.pre_tokenizers.Split(tokenizers.Regex(regex), behavior="isolated", invert=False),
        tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ])
    t.decoder = tokenizers.decoders.ByteLevel()
    t.post_processor = tokenizers.processors.ByteLevel(trim_offsets=False)
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=400, initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(),
        special_tokens=["<|endoftext|>", "<|im_start|>", "<|im_end|>"])
    t.train([TEXT], trainer)
    return transformers.PreTrainedTokenizerFast(tokenizer_object=t, eos_token="<|endoftext|>",
                                               pad_token="<|endoftext|>", bos_token=None)


def randomize(model, seed):
    torch.manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randn_like(p) * 0.1)


def make(arch, index, out_root):
    out = os.path.join(out_root, arch)
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        if arch in ("llama", "gemma3"):
            tok, sp_model = spm_tokenizer(tmp, gemma=arch == "gemma3")
        else:
            tok, sp_model = bpe_tokenizer(), None
        # The model's vocabulary is SentencePiece's own (tokenizer.json may list
        # a few more added tokens, as Gemma's does), as in the real families.
        n_vocab = spm.SentencePieceProcessor(model_file=sp_model).vocab_size() if sp_model else len(tok)
        if arch == "llama":
            cfg = transformers.LlamaConfig(vocab_size=n_vocab, rms_norm_eps=1e-5, rope_theta=10000.0,
                                           tie_word_embeddings=False, bos_token_id=1, eos_token_id=2, **DIMS)
            model = transformers.LlamaForCausalLM(cfg)
        elif arch == "qwen2":
            cfg = transformers.Qwen2Config(vocab_size=n_vocab, rms_norm_eps=1e-6, rope_theta=1000000.0,
                                           tie_word_embeddings=False, **DIMS)
            model = transformers.Qwen2ForCausalLM(cfg)
        elif arch == "qwen3":
            cfg = transformers.Qwen3Config(vocab_size=n_vocab, rms_norm_eps=1e-6, rope_theta=1000000.0,
                                           head_dim=16, tie_word_embeddings=True, **DIMS)
            model = transformers.Qwen3ForCausalLM(cfg)
        else:
            cfg = transformers.Gemma3TextConfig(vocab_size=n_vocab, rms_norm_eps=1e-6, head_dim=16,
                                                sliding_window=32, query_pre_attn_scalar=16,
                                                tie_word_embeddings=True, pad_token_id=0, eos_token_id=1,
                                                bos_token_id=2, **DIMS)
            model = transformers.Gemma3ForCausalLM(cfg)
        randomize(model, index)
        model = model.to(torch.bfloat16)
        model.save_pretrained(out, safe_serialization=True)
        tok.save_pretrained(out)
        if sp_model is not None:
            with open(sp_model, "rb") as src, open(os.path.join(out, "tokenizer.model"), "wb") as dst:
                dst.write(src.read())
    for junk in ("generation_config.json", "chat_template.jinja"):
        path = os.path.join(out, junk)
        if os.path.exists(path):
            os.remove(path)
    # save_pretrained records the temporary path it read tokenizer.model from.
    config_path = os.path.join(out, "tokenizer_config.json")
    with open(config_path) as f:
        config = json.load(f)
    for key in ("vocab_file", "is_local", "local_files_only"):
        config.pop(key, None)
    with open(config_path, "w") as f:
        json.dump(config, f, indent=2)


def main():
    out_root = sys.argv[1] if len(sys.argv) > 1 else HERE
    for index, arch in enumerate(["llama", "qwen2", "qwen3", "gemma3"]):
        make(arch, index, out_root)
    print(json.dumps({"transformers": transformers.__version__, "tokenizers": tokenizers.__version__,
                      "torch": torch.__version__, "sentencepiece": spm.__version__}))


if __name__ == "__main__":
    main()
