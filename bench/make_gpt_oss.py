#!/usr/bin/env python3
"""Makes a gpt-oss-20b-shaped GGUF with random weights, the way a user's file is made.

A real transformers `GptOssForCausalLM` is built from the gpt-oss-20b config
(below; random weights, torch's own init, in bf16), saved as a Hugging Face
checkpoint, and converted by llama.cpp's own convert_hf_to_gguf.py to F16
(the experts from the fused, interleaved gate_up_proj, as llama.cpp splits
them). Quantize the result with llama.cpp's quantizer to the file type
gpt-oss ships as (bench/llama_quantize.py ... mxfp4_moe: experts MXFP4,
every other matrix Q8_0). The tokenizer is the tiny byte-level BPE of
tests/data/hf/qwen3; the converter pads the vocabulary to the real 201,088
rows, so the embedding and the untied LM head have the real size.

Every layer has the real shape (32 experts of 2880, 4 chosen per token, 64
query / 8 KV heads of 64, sinks, sliding window 128 on every other layer,
YaRN); only the layer count is cut (--layers, default 4 of the real 24) to
fit a 24 GB machine and its disk: a decode step reads 4 of the 32 experts of
each layer, so per layer it reads what the real model does, and bytes per
token scale with the layer count (trit bench prints them). About 2 x 9 GB of
temporary files at the default: never inside the repository.

    PYTHONPATH=<llama.cpp>/gguf-py python bench/make_gpt_oss.py <llama.cpp>/convert_hf_to_gguf.py OUT.gguf [--layers N]
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


def convert_wrapper():
    """tests/data/hf/make_qwen35.py's CONVERT: llama.cpp's converter with the
    tiny tokenizer named "qwen2" (its hash is not in the converter's table)."""
    path = os.path.join(ROOT, "tests", "data", "hf", "make_qwen35.py")
    spec = importlib.util.spec_from_file_location("make_qwen35_fixture", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.CONVERT


def config(layers):
    # gpt-oss-20b: 24 layers, hidden 2880, 64 query / 8 KV heads of 64, 32
    # experts of 2880 with 4 chosen, sliding window 128 on even layers,
    # vocabulary 201,088, untied LM head, YaRN (factor 32 over 4096, base
    # 150000; truncate False as published: llama.cpp's file has no such key).
    return transformers.GptOssConfig(
        vocab_size=201088, hidden_size=2880, intermediate_size=2880, num_hidden_layers=layers,
        num_attention_heads=64, num_key_value_heads=8, head_dim=64, num_local_experts=32, num_experts_per_tok=4,
        sliding_window=128, max_position_embeddings=131072, rms_norm_eps=1e-5, tie_word_embeddings=False,
        rope_parameters=dict(rope_type="yarn", rope_theta=150000.0, factor=32.0, beta_fast=32.0, beta_slow=1.0,
                             truncate=False, original_max_position_embeddings=4096),
        bos_token_id=None, eos_token_id=None, pad_token_id=None)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("converter", help="llama.cpp's convert_hf_to_gguf.py")
    ap.add_argument("output", help="the F16 GGUF to write")
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--seed", type=int, default=50)
    args = ap.parse_args()
    if not 1 <= args.layers <= 24:
        sys.exit("make_gpt_oss.py: --layers must be 1..24")
    torch.manual_seed(args.seed)
    print(f"building GptOssForCausalLM ({args.layers} layers) in bf16", file=sys.stderr, flush=True)
    model = transformers.GptOssForCausalLM._from_config(config(args.layers), dtype=torch.bfloat16).eval()
    with tempfile.TemporaryDirectory(dir=os.path.dirname(os.path.abspath(args.output))) as tmp:
        model.save_pretrained(tmp)
        del model
        for f in ("tokenizer.json", "tokenizer_config.json"):
            shutil.copy(os.path.join(TOKENIZER, f), tmp)
        print("converting with llama.cpp's convert_hf_to_gguf.py", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-c", convert_wrapper(), args.converter, tmp, "--outtype", "f16",
                        "--outfile", args.output], check=True)


if __name__ == "__main__":
    main()
