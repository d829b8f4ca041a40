#!/usr/bin/env python3
"""Makes a Gemma-4-E2B-shaped GGUF with random weights, the way a user's file is made.

A real transformers `Gemma4ForCausalLM` is built from the Gemma 4 E2B text
config (below; random weights, torch's own init, in bf16), saved as a Hugging
Face checkpoint, and converted by llama.cpp's own convert_hf_to_gguf.py to
F16. Quantize the result with llama.cpp's quantizer (bench/llama_quantize.py)
for the Q4_K_M and Q8_0 files the benchmarks run.

The tokenizer is the tiny SentencePiece-style BPE of tests/data/hf/gemma3,
its model.vocab filled with "<unused{i}>" pieces to the real 262,144 entries
(Gemma's own vocabulary has thousands of them): llama.cpp's Gemma 4
converter writes the tokenizer's size, not config.json's, and trims the
embedding to it, so without the filling the tied embedding and LM head would
not have the real size (a large part of what a small model's decode step
reads). The per-layer embedding (262,144 x 35 x 256) is a lookup of one row
per token, as in the real model.

Decode and prefill time depend on shapes and weight types, not on values, so
this file measures what the downloaded model would. About 20 GB of output and
temporary files (the bf16 checkpoint and the F16 file): never inside the
repository. Peak memory about 10 GB.

    PYTHONPATH=<llama.cpp>/gguf-py python bench/make_gemma4.py <llama.cpp>/convert_hf_to_gguf.py OUT.gguf [--layers N]

--layers N keeps N layers (a multiple of 5; the last N x 20 / 35 share KV)
for quick format checks.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import torch
import transformers

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKENIZER = os.path.join(ROOT, "tests", "data", "hf", "gemma3")
N_VOCAB = 262144


def config(layers):
    # Gemma 4 E2B's text config: 35 layers, four sliding (window 512) to one
    # full, hidden 1536, 8 query heads, 1 KV head, head sizes 256 sliding /
    # 512 full, proportional rope on the full layers (a quarter rotated), the
    # last 20 layers sharing KV with a double-wide MLP (6144 -> 12288),
    # per-layer embeddings of 256, soft-cap 30, tied embeddings.
    sliding, full = "sliding_attention", "full_attention"
    return transformers.Gemma4TextConfig(
        vocab_size=N_VOCAB, vocab_size_per_layer_input=N_VOCAB, hidden_size=1536, intermediate_size=6144,
        num_hidden_layers=layers, num_attention_heads=8, num_key_value_heads=1, head_dim=256,
        global_head_dim=512, attention_k_eq_v=False, layer_types=([sliding] * 4 + [full]) * (layers // 5),
        sliding_window=512, num_kv_shared_layers=layers * 20 // 35, use_double_wide_mlp=True,
        hidden_size_per_layer_input=256, final_logit_softcapping=30.0, max_position_embeddings=131072,
        rms_norm_eps=1e-6, tie_word_embeddings=True, bos_token_id=2, eos_token_id=1, pad_token_id=0)


def write_tokenizer(out_dir):
    with open(os.path.join(TOKENIZER, "tokenizer.json")) as f:
        tok = json.load(f)
    vocab = tok["model"]["vocab"]
    for a in tok["added_tokens"]:  # every id in model.vocab: transformers' vocab_size counts only those
        vocab.setdefault(a["content"], a["id"])
    start = max(vocab.values()) + 1
    for i in range(start, N_VOCAB):
        vocab[f"<unused{i}>"] = i
    with open(os.path.join(out_dir, "tokenizer.json"), "w") as f:
        json.dump(tok, f, ensure_ascii=False)
    shutil.copy(os.path.join(TOKENIZER, "tokenizer_config.json"), out_dir)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("converter", help="llama.cpp's convert_hf_to_gguf.py")
    ap.add_argument("output", help="the F16 GGUF to write")
    ap.add_argument("--layers", type=int, default=35)
    ap.add_argument("--seed", type=int, default=4)
    args = ap.parse_args()
    if args.layers < 5 or args.layers % 5:
        sys.exit("make_gemma4.py: --layers must be a multiple of 5")
    torch.manual_seed(args.seed)
    cfg = config(args.layers)
    print(f"building Gemma4ForCausalLM ({args.layers} layers, bf16)", file=sys.stderr, flush=True)
    torch.set_default_dtype(torch.bfloat16)  # a float32 model would need 18 GB
    model = transformers.Gemma4ForCausalLM(cfg).eval()
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(args.output))) as tmp:
        model.save_pretrained(tmp)
        del model
        write_tokenizer(tmp)
        print("converting with llama.cpp's convert_hf_to_gguf.py", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, args.converter, tmp, "--outtype", "f16", "--outfile", args.output], check=True)


if __name__ == "__main__":
    main()
