#!/usr/bin/env python3
"""Makes a Qwen3-30B-A3B-shaped GGUF with random weights, the way a user's file is made.

A real transformers `Qwen3MoeForCausalLM` is built from the Qwen3-30B-A3B
config (below; random weights, torch's own init, in bf16), saved as a Hugging
Face checkpoint, and converted by llama.cpp's own convert_hf_to_gguf.py to
F16. Quantize the result with llama.cpp's quantizer (bench/llama_quantize.py)
for the Q4_K_M and Q8_0 files the benchmarks run. The tokenizer is the tiny
byte-level BPE of tests/data/hf/qwen3; the converter pads the vocabulary to
the real 151,936 rows, so the embedding and the untied LM head have the real
size.

Every layer has the real shape (128 experts of 768, 8 chosen per token, 32
query / 4 KV heads of 128); only the layer count is cut (--layers, default 8
of the real 48) to fit a 24 GB machine and its disk: a decode step reads 8 of
the 128 experts of each layer, so per layer it reads what the real model
does, and bytes per token scale with the layer count (trit bench prints
them). About 3 x 10 GB of temporary files at the default: never inside the
repository. Peak memory about 11 GB.

    PYTHONPATH=<llama.cpp>/gguf-py python bench/make_qwen3moe.py <llama.cpp>/convert_hf_to_gguf.py OUT.gguf [--layers N]
"""
import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

import torch
import transformers

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOKENIZER = os.path.join(ROOT, "tests", "data", "hf", "qwen3")


def test_generator():
    """tests/data/hf/make_qwen3moe.py, whose CONVERT runs llama.cpp's converter
    with the tiny tokenizer named "qwen2" (its hash is not in the converter's table)."""
    path = os.path.join(ROOT, "tests", "data", "hf", "make_qwen3moe.py")
    spec = importlib.util.spec_from_file_location("make_qwen3moe_fixture", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def config(layers):
    # Qwen3-30B-A3B: 48 layers, hidden 2048, 32 query / 4 KV heads of 128,
    # every layer 128 experts of 768 with 8 chosen and their weights
    # renormalised, vocabulary 151,936, untied LM head, rope base 1e6.
    return transformers.Qwen3MoeConfig(
        vocab_size=151936, hidden_size=2048, intermediate_size=6144, moe_intermediate_size=768,
        num_hidden_layers=layers, num_attention_heads=32, num_key_value_heads=4, head_dim=128, num_experts=128,
        num_experts_per_tok=8, norm_topk_prob=True, decoder_sparse_step=1, mlp_only_layers=[],
        max_position_embeddings=40960, rms_norm_eps=1e-6, tie_word_embeddings=False,
        rope_parameters=dict(rope_type="default", rope_theta=1000000.0),
        bos_token_id=None, eos_token_id=None, pad_token_id=None)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("converter", help="llama.cpp's convert_hf_to_gguf.py")
    ap.add_argument("output", help="the F16 GGUF to write")
    ap.add_argument("--layers", type=int, default=8)
    ap.add_argument("--seed", type=int, default=48)
    args = ap.parse_args()
    if not 1 <= args.layers <= 48:
        sys.exit("make_qwen3moe.py: --layers must be 1..48")
    torch.manual_seed(args.seed)
    print(f"building Qwen3MoeForCausalLM ({args.layers} layers) in bf16", file=sys.stderr, flush=True)
    model = transformers.Qwen3MoeForCausalLM._from_config(config(args.layers), dtype=torch.bfloat16).eval()
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(args.output))) as tmp:
        model.save_pretrained(tmp)
        del model
        for f in ("tokenizer.json", "tokenizer_config.json"):
            shutil.copy(os.path.join(TOKENIZER, f), tmp)
        print("converting with llama.cpp's convert_hf_to_gguf.py", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-c", test_generator().CONVERT, args.converter, tmp, "--outtype", "f16",
                        "--outfile", args.output], check=True)


if __name__ == "__main__":
    main()
