#!/usr/bin/env python3
"""Writes a random-weight Hugging Face checkpoint in 1bitLLM's BitNet b1.58 layout.

The layout is the one Microsoft's bitnet.cpp converts to its `bitnet` GGUF
architecture and then to I2_S: `BitnetForCausalLM`, as 1bitLLM/bitnet_b1_58-3B
(and -large) publish it. Default shape = bitnet_b1_58-3B: hidden 3200,
intermediate 8640, 26 layers, 32 heads (no GQA), vocab 32002, RMS eps 1e-5,
rope theta 10000, tied embeddings (no lm_head tensor: bitnet.cpp's graph uses
token_embd as the LM head). Flags cut it down for a tiny test file.

What bitnet.cpp's converter (utils/convert-hf-to-gguf-bitnet.py, bitnet.cpp
commit c82b5e6, 2024-10-18) reads, checked in its code:
  config.json   architectures[0] == "BitnetForCausalLM"; num_hidden_layers,
                hidden_size, intermediate_size, num_attention_heads,
                num_key_value_heads, max_position_embeddings, rope_theta,
                rms_norm_eps, vocab_size (the vocabulary is padded with
                [PADn] tokens up to it); bos/eos_token_id via gguf's SpecialVocab.
                The other keys are informational (not read).
  tokenizer.model  a SentencePiece model (_set_vocab_sentencepiece); here the
                400-piece BPE of tests/data/hf/llama (made by this repository).
  tensors       model.embed_tokens.weight [V, H]
                model.layers.{i}.input_layernorm.weight [H]            -> attn_norm
                model.layers.{i}.self_attn.{q,k,v,o}_proj.weight [H, H]
                model.layers.{i}.self_attn.inner_attn_ln.weight [H]    -> attn_sub_norm
                model.layers.{i}.post_attention_layernorm.weight [H]   -> ffn_norm
                model.layers.{i}.mlp.{gate,up}_proj.weight [I, H]
                model.layers.{i}.mlp.down_proj.weight [H, I]
                model.layers.{i}.mlp.ffn_layernorm.weight [I]          -> ffn_sub_norm
                model.norm.weight [H]                                  -> output_norm
  The converter ternarizes the seven projections itself (absmean:
  s = 1/mean|W|, W' = clamp(round(W*s), -1, 1)/s) and does NOT permute q/k
  (the bitnet arch uses NEOX RoPE on the HF order).

Weights: projections ~ N(0, std^2) (default 0.02), so absmean ternarization
gives about 35/31/35 % of -1/0/+1 (zero where |W| < 0.4 std); norms ~ 1 + N(0, 0.05^2); embeddings
~ N(0, embed_std^2). Saved as float16 safetensors (--dtype f32 for float32),
sharded by layers so a 3B-shaped checkpoint never sits in memory at once.
numpy's PCG64 with --seed makes it reproducible.

Turning it into I2_S with bitnet.cpp's own tools, as its setup_env.py does
(bitnet.cpp built per setup_env.py; its venv has the fork's gguf-py):
  python make_bitnet_checkpoint.py CKPT [--layers 2 --hidden 256 ...]
  python <bitnet.cpp>/utils/convert-hf-to-gguf-bitnet.py CKPT --outtype f32 --outfile CKPT/ggml-model-f32.gguf
  <bitnet.cpp>/build/bin/llama-quantize CKPT/ggml-model-f32.gguf CKPT/ggml-model-i2_s.gguf I2_S 1
(The trailing 1 is the thread count: I2_S stores ONE float scale per tensor
after the packed data, and multi-threaded chunks would each write their own.)
tests/data/bitnet/README.md records the exact runs behind the committed file.
"""
import argparse
import json
import os
import shutil
import sys

import numpy as np
from safetensors.numpy import save_file

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKENIZER = os.path.join(ROOT, "tests", "data", "hf", "llama", "tokenizer.model")
TOKENIZER_PIECES = 400  # tests/data/hf/llama/tokenizer.model


def config(a):
    return {
        "architectures": ["BitnetForCausalLM"],
        "model_type": "llama",
        "hidden_size": a.hidden,
        "intermediate_size": a.intermediate,
        "num_hidden_layers": a.layers,
        "num_attention_heads": a.heads,
        "num_key_value_heads": a.kv_heads or a.heads,
        "max_position_embeddings": a.ctx,
        "rms_norm_eps": 1e-5,
        "rope_theta": 10000.0,
        "rope_scaling": None,
        "vocab_size": a.vocab,
        "bos_token_id": 1,
        "eos_token_id": 2,
        "hidden_act": "silu",
        "tie_word_embeddings": True,
        "attention_bias": False,
        "initializer_range": 0.02,
        "torch_dtype": "float16" if a.dtype == "f16" else "float32",
        # informational, as 1bitLLM's BitNet configs carry them; unread by the converter
        "input_bits": 8,
        "weight_bits": 1,
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("out", help="checkpoint directory to create")
    p.add_argument("--layers", type=int, default=26)
    p.add_argument("--hidden", type=int, default=3200)
    p.add_argument("--intermediate", type=int, default=8640)
    p.add_argument("--heads", type=int, default=32)
    p.add_argument("--kv-heads", type=int, default=0, help="default: = --heads (1bitLLM's models have no GQA)")
    p.add_argument("--vocab", type=int, default=32002,
                   help=f"config vocab_size (>= {TOKENIZER_PIECES}, the tokenizer's pieces; the converter pads the rest)")
    p.add_argument("--ctx", type=int, default=2048, help="max_position_embeddings")
    p.add_argument("--std", type=float, default=0.02, help="std of the projection weights")
    p.add_argument("--embed-std", type=float, default=0.02, help="std of the (tied) embedding")
    p.add_argument("--norm-std", type=float, default=0.05, help="norm weights are 1 + N(0, this^2)")
    p.add_argument("--dtype", choices=["f16", "f32"], default="f16")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--shard-layers", type=int, default=4, help="layers per safetensors shard")
    a = p.parse_args()

    H, I, V = a.hidden, a.intermediate, a.vocab
    kvh = a.kv_heads or a.heads
    if H % a.heads or a.heads % kvh:
        sys.exit("hidden must divide by heads, heads by kv-heads")
    if V < TOKENIZER_PIECES:
        sys.exit(f"--vocab must be >= {TOKENIZER_PIECES}")
    head_dim = H // a.heads
    dt = np.float16 if a.dtype == "f16" else np.float32
    rng = np.random.Generator(np.random.PCG64(a.seed))

    def normal(shape, std):
        return (rng.standard_normal(shape, dtype=np.float32) * np.float32(std)).astype(dt)

    def norm(n):
        return (1.0 + rng.standard_normal(n, dtype=np.float32) * np.float32(a.norm_std)).astype(dt)

    def layer(i):
        pre = f"model.layers.{i}."
        # generation order fixed (and so the values for a seed), independent of sharding
        return {
            pre + "input_layernorm.weight": norm(H),
            pre + "self_attn.q_proj.weight": normal((H, H), a.std),
            pre + "self_attn.k_proj.weight": normal((kvh * head_dim, H), a.std),
            pre + "self_attn.v_proj.weight": normal((kvh * head_dim, H), a.std),
            pre + "self_attn.inner_attn_ln.weight": norm(H),
            pre + "self_attn.o_proj.weight": normal((H, H), a.std),
            pre + "post_attention_layernorm.weight": norm(H),
            pre + "mlp.gate_proj.weight": normal((I, H), a.std),
            pre + "mlp.up_proj.weight": normal((I, H), a.std),
            pre + "mlp.ffn_layernorm.weight": norm(I),
            pre + "mlp.down_proj.weight": normal((H, I), a.std),
        }

    os.makedirs(a.out, exist_ok=True)
    if any(f.endswith(".safetensors") for f in os.listdir(a.out)):
        sys.exit(f"{a.out} already holds .safetensors files (the converter reads every one)")

    groups = [list(range(s, min(s + a.shard_layers, a.layers))) for s in range(0, a.layers, a.shard_layers)] or [[]]
    n = len(groups)
    names = ["model.safetensors"] if n == 1 else [f"model-{k + 1:05}-of-{n:05}.safetensors" for k in range(n)]
    weight_map, total = {}, 0
    for k, (grp, fname) in enumerate(zip(groups, names)):
        t = {}
        if k == 0:
            t["model.embed_tokens.weight"] = normal((V, H), a.embed_std)
        for i in grp:
            t.update(layer(i))
        if k == n - 1:
            t["model.norm.weight"] = norm(H)
        save_file(t, os.path.join(a.out, fname), metadata={"format": "pt"})
        for name, v in t.items():
            weight_map[name] = fname
            total += v.nbytes
        print(f"wrote {fname}: {len(t)} tensors", flush=True)
        del t
    if n > 1:
        with open(os.path.join(a.out, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)

    with open(os.path.join(a.out, "config.json"), "w") as f:
        json.dump(config(a), f, indent=2)
        f.write("\n")
    shutil.copyfile(TOKENIZER, os.path.join(a.out, "tokenizer.model"))
    with open(os.path.join(a.out, "tokenizer_config.json"), "w") as f:
        json.dump({"tokenizer_class": "LlamaTokenizer", "add_bos_token": True, "add_eos_token": False,
                   "bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"}, f, indent=2)
        f.write("\n")
    params = total // np.dtype(dt).itemsize
    print(f"{a.out}: {params / 1e6:.1f}M parameters, {total / 2**20:.1f} MiB {a.dtype}")


if __name__ == "__main__":
    main()
