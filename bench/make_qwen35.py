#!/usr/bin/env python3
"""Makes a Qwen3.5-0.8B-shaped GGUF with random weights, the way a user's file is made.

A real transformers `Qwen3_5ForCausalLM` is built from the Qwen3.5-0.8B text
config (below; random weights, torch's own init), saved as a bf16 Hugging Face
checkpoint, and converted by llama.cpp's own convert_hf_to_gguf.py to F16.
Quantize the result with llama.cpp's quantizer (bench/llama_quantize.py) for
the Q4_K_M and Q8_0 files the benchmarks run. The tokenizer is the tiny
byte-level BPE of tests/data/hf/qwen3; the converter pads the vocabulary with
unused pieces to the real 248,320 rows, so the tied embedding and LM head
have the real size (a large part of what a small model's decode step reads).

Decode and prefill time depend on shapes and weight types, not on values, so
this file measures what the downloaded model would. Several GB of output and
temporary files: never inside the repository.

    PYTHONPATH=<llama.cpp>/gguf-py python bench/make_qwen35.py <llama.cpp>/convert_hf_to_gguf.py OUT.gguf [--layers N]

--layers N keeps N layers (a multiple of 4: N/4 full-attention layers) for quick format checks.
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
    """tests/data/hf/make_qwen35.py, whose CONVERT runs llama.cpp's converter
    with the tiny tokenizer named "qwen2" (the same Split regex as the real
    "qwen35" pre-tokenizer; its hash is not in the converter's table)."""
    path = os.path.join(ROOT, "tests", "data", "hf", "make_qwen35.py")
    spec = importlib.util.spec_from_file_location("make_qwen35_fixture", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def config(layers):
    # Qwen3.5-0.8B's text config: 24 layers (every 4th full attention), hidden
    # 1024, FFN 3584, 8 query / 2 KV heads of 256 with a quarter rotated (MRoPE
    # sections 11/11/10), Gated DeltaNet with 16 key and 16 value heads of 128,
    # conv width 4, vocabulary 248,320, tied embeddings.
    return transformers.Qwen3_5TextConfig(
        vocab_size=248320, hidden_size=1024, intermediate_size=3584, num_hidden_layers=layers,
        num_attention_heads=8, num_key_value_heads=2, head_dim=256,
        linear_conv_kernel_dim=4, linear_key_head_dim=128, linear_value_head_dim=128,
        linear_num_key_heads=16, linear_num_value_heads=16, full_attention_interval=4,
        max_position_embeddings=262144, rms_norm_eps=1e-6, tie_word_embeddings=True,
        rope_parameters=dict(rope_type="default", rope_theta=10000000.0, partial_rotary_factor=0.25,
                             mrope_section=[11, 11, 10], mrope_interleaved=True),
        bos_token_id=None, eos_token_id=None, pad_token_id=None)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("converter", help="llama.cpp's convert_hf_to_gguf.py")
    ap.add_argument("output", help="the F16 GGUF to write")
    ap.add_argument("--layers", type=int, default=24)
    ap.add_argument("--seed", type=int, default=35)
    args = ap.parse_args()
    if args.layers < 4 or args.layers % 4:
        sys.exit("make_qwen35.py: --layers must be a multiple of 4")
    torch.manual_seed(args.seed)
    print(f"building Qwen3_5ForCausalLM ({args.layers} layers)", file=sys.stderr, flush=True)
    model = transformers.Qwen3_5ForCausalLM(config(args.layers)).to(torch.bfloat16).eval()
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(args.output))) as tmp:
        model.save_pretrained(tmp)
        del model
        for f in ("tokenizer.json", "tokenizer_config.json"):
            shutil.copy(os.path.join(TOKENIZER, f), tmp)
        print("converting with llama.cpp's convert_hf_to_gguf.py", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-c", test_generator().CONVERT, args.converter, tmp, "--outtype", "f16", "--no-mtp",
                        "--outfile", args.output], check=True)


if __name__ == "__main__":
    main()
